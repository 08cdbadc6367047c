#!/bin/sh
# An output file that is where standard output goes (the file it is redirected to, or a FIFO it
# writes into) gets the file, then the report, in order: nothing replaced, nothing lost.
#   check_output_is_stdout.sh DRUBA MODELS_DIR
set -eu
druba=$1
models=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; cat "$dir/out" 2>/dev/null | head -20; exit 1; }

# A regular file: standard output redirected to the certificate's path.
"$druba" verify "$models/ex8.pds" --certificate "$dir/out" > "$dir/out" || fail "verify exited $?"
head -1 "$dir/out" | grep -q '"druba_certificate": 1' || fail "the certificate is not first"
grep -q '^verdict: safe' "$dir/out" || fail "the report was lost"

# The trace of a violation, with a JSON report after it.
code=0
"$druba" verify "$models/recursive-bug.pds" --spec "$models/recursive-bug.spec" \
  --trace-out "$dir/out" --json > "$dir/out" || code=$?
[ "$code" -eq 10 ] || fail "verify exited $code, expected 10"
[ "$(grep -c '"verdict":"violation"' "$dir/out")" -eq 1 ] || fail "no report after the trace"
grep -q '"steps"' "$dir/out" || fail "no trace"

# A FIFO that standard output writes into, read by cat.
mkfifo "$dir/fifo"
cat "$dir/fifo" > "$dir/out" &
"$druba" verify "$models/ex8.pds" --certificate "$dir/fifo" > "$dir/fifo" || fail "verify exited $?"
wait
head -1 "$dir/out" | grep -q '"druba_certificate": 1' || fail "FIFO: the certificate is not first"
grep -q '^verdict: safe' "$dir/out" || fail "FIFO: the report was lost"
echo "outputs to standard output: in order, nothing lost"
