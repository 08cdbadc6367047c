#!/bin/bash
# Every long path stops on time: SIGTERM and --time-limit end each with `unknown` (exit 5) within
# 1 s or 10% of the limit, whichever is larger, with the report printed. The paths: the Horn
# solver, the every-count invariants from finite instances (their Houdini queries), refinement,
# the search over orbits at many threads, the independent checker's every-count encoding (with
# `long`: the filter lock's certificate, whose check takes half a minute) and druba-mpi. Works in
# a temporary directory it removes; names no device.
# `quick` (the default suite: two paths, the signal at 1 s and a limit of 2 s) or `all`
# (`ctest -L long`: every path, the filter lock's check and druba-mpi included).
#   limits.sh quick|all DRUBA MODELS INPUTS [DRUBA_MPI MPIEXEC]
set -u
mode=$1
druba=$2
models=$3
inputs=$4
mpi=${5:-}
mpiexec=${6:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Milliseconds since the epoch.
now() { date +%s%3N; }

# mpirun's own share, added to druba-mpi's bounds: its start (0.4 s here) and its end after a code
# other than 0, when it aborts the job (about 1 s: Open MPI's, docs/distributed.md), and the
# processes' busy polling of each other on two cores (druba-mpi's .drb verify with 2 processes
# ended 2.1 to 2.4 s after a limit of 2 s, where druba alone ends within 0.02 s).
mpirun_ms=0

# stop NAME SECONDS COMMAND...: SIGTERM after SECONDS; the run must end within 1 s with exit 5
# and a verdict or a check's answer on stdout.
stop() {
  local name=$1 after=$2
  shift 2
  "$@" > "$dir/out" 2> "$dir/err" &
  local pid=$!
  sleep "$after"
  if ! kill -0 "$pid" 2> /dev/null; then
    wait "$pid"
    fail "$name: ended before the signal (exit $?): the path is not long enough to test"
    return
  fi
  local sent
  sent=$(now)
  # mpirun answers a signal with its own exit code, 1 (docs/distributed.md): druba-mpi's are had
  # by signalling its processes, the children of mpirun.
  if [ -n "${children:-}" ]; then pkill -TERM -P "$pid"; else kill -TERM "$pid"; fi
  wait "$pid"
  local code=$? took=$(($(now) - sent))
  echo "$name: SIGTERM after ${after} s: exit $code in ${took} ms"
  [ "$code" -eq 5 ] || fail "$name: exit $code after SIGTERM, expected 5: $(tail -3 "$dir/err")"
  [ "$took" -le $((1000 + mpirun_ms)) ] ||
    fail "$name: ${took} ms after SIGTERM (at most $((1000 + mpirun_ms)))"
  grep -Eq '^(verdict: unknown|certificate unknown)' "$dir/out" ||
    fail "$name: no report after SIGTERM: $(head -3 "$dir/out")"
}

# limit NAME SECONDS COMMAND...: the command with --time-limit SECONDS must end within
# max(1 s, 10%) of it with exit 5.
limit() {
  local name=$1 seconds=$2
  shift 2
  local start
  start=$(now)
  "$@" --time-limit "$seconds" > "$dir/out" 2> "$dir/err"
  local code=$? took=$(($(now) - start))
  local slack=$((seconds * 100))
  [ "$slack" -ge 1000 ] || slack=1000
  slack=$((slack + mpirun_ms))
  echo "$name: --time-limit $seconds: exit $code in ${took} ms"
  [ "$code" -eq 5 ] || fail "$name: exit $code with --time-limit $seconds, expected 5: $(tail -3 "$dir/err")"
  [ "$took" -le $((seconds * 1000 + slack)) ] ||
    fail "$name: ${took} ms with --time-limit $seconds (at most $((seconds * 1000 + slack)))"
}

ticket="$inputs/ticket-by-difference.drb"
both() {  # a name, the signal's time, the limit, the command
  local name=$1 after=$2 seconds=$3
  shift 3
  stop "$name" "$after" "$@"
  limit "$name" "$seconds" "$@"
}
if [ "$mode" = quick ]; then
  both refinement_every_count 1 2 "$druba" verify "$ticket" --threads 2..
  both orbits 1 2 "$druba" verify "$inputs/many-threads-trivial.drb" --threads 40
else
  both horn 3 4 "$druba" verify "$ticket" --threads 4 --horn proof  # 625 tuples: over 8 s
  both refinement 2 3 "$druba" verify "$ticket" --threads 2 --horn off
  both refinement_every_count 3 4 "$druba" verify "$ticket" --threads 2..
  both houdini_every_count 3 4 "$druba" verify "$models/filter-lock-n.drb" --threads 2..
  both orbits 2 3 "$druba" verify "$inputs/many-threads-trivial.drb" --threads 40
fi
if [ "$mode" = all ]; then
  "$druba" verify "$models/filter-lock-n.drb" --threads 2.. --certificate "$dir/filter.json" > /dev/null ||
    fail "the filter lock's certificate was not written"
  both check_every_count 5 10 "$druba" check "$models/filter-lock-n.drb" --threads 2.. \
    --certificate "$dir/filter.json"
  # (Not at 60 threads: there --time-limit 8 ended at 10.7 s and 15 at 17.2 s, the limit falling
  # in a rehash of the multi-GB abstract set, which no poll interrupts; SIGTERM at 5, 10 and 15 s
  # ended within 0.4 s. Left, issue 55's note.)
fi
if [ -n "$mpi" ] && [ "$mode" = all ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpirun_ms=2500
  children=1 both mpi_refinement 1 2 "$mpiexec" --oversubscribe --bind-to none --stdin none -np 2 "$mpi" \
    verify "$ticket" --threads 2 --horn off
fi
if [ "$failures" -gt 0 ]; then
  echo "$failures of the limits were not honoured"
  exit 1
fi
echo "every limit honoured"
