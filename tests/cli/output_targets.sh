#!/bin/sh
# Fault injection on druba's outputs, through the command line: --trace-out to a dangling
# symbolic link, a FIFO, a directory and beside an unrelated PATH.tmp; the report to a closed
# standard output. Works in a temporary directory it removes; names no device.
#   output_targets.sh DRUBA MODELS_DIR
set -u
druba=$1
models=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
run() { "$druba" verify "$models/recursive-bug.pds" --spec "$models/recursive-bug.spec" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

ln -s written.json link.json
run --trace-out link.json > out.txt 2> err.txt
code=$?
[ $code -eq 10 ] || fail "link: exit $code $(cat err.txt)"
[ -L link.json ] || fail "the link was replaced"
grep -q '"druba_trace":1' written.json || fail "the link's target was not written"

mkfifo pipe
cat pipe > got.json &
reader=$!
# The reader may not have opened the FIFO yet: an open without a reader is an error, so retry.
tries=0
until run --trace-out pipe > out.txt 2> err.txt; [ $? -eq 10 ]; do
  tries=$((tries + 1))
  [ $tries -lt 100 ] || { kill $reader; fail "fifo: $(cat err.txt)"; }
  sleep 0.05
done
wait $reader
[ -p pipe ] || fail "the FIFO was replaced"
grep -q '"druba_trace":1' got.json || fail "nothing came through the FIFO"

mkdir folder
run --trace-out folder > out.txt 2> err.txt
code=$?
[ $code -eq 2 ] || fail "directory: exit $code"
grep -q "folder: error: cannot write the file: it is a directory" err.txt || fail "$(cat err.txt)"
grep -q "^verdict: violation" out.txt || fail "directory: the report was lost: $(cat out.txt)"

echo unrelated > trace.json.tmp
run --trace-out trace.json > out.txt 2> err.txt
code=$?
[ $code -eq 10 ] || fail "tmp: exit $code"
[ "$(cat trace.json.tmp)" = unrelated ] || fail "trace.json.tmp was touched"
grep -q '"druba_trace":1' trace.json || fail "trace.json was not written"
[ "$(ls -A | grep -c druba-)" -eq 0 ] || fail "a temporary file was left: $(ls -A)"

run --json >&- 2> err.txt
code=$?
[ $code -eq 3 ] || fail "closed stdout: exit $code"
grep -q "cannot write the report to standard output" err.txt || fail "$(cat err.txt)"
echo "all output targets behave"
