#!/usr/bin/env bash
# Runs `druba test` and `druba-mpi test` (under mpirun with each process count given) on one model
# and bounds, and fails unless the verdict, the concrete states, the keys, the Pareto pairs and
# the abstract states agree (tests/CMakeLists.txt; docs/distributed.md). A violation's trace,
# walked back across the processes, must replay with single-process `druba replay`.
#   compare.sh DRUBA DRUBA_MPI MPIRUN "NP..." MODEL [options of test...]
set -euo pipefail
druba=$1 druba_mpi=$2 mpirun=$3 counts=$4
shift 4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# verdict, states, keys, Pareto pairs (and for a .pds model its abstract states) of a --json
# report on stdin; of a violation only the verdict. A run that found one exits 10, which is no
# failure here.
abstract=0
case $1 in *.pds) abstract=1 ;; esac
fields() {
  python3 -c 'import json, sys
r = json.loads(sys.stdin.read())
keys = ["verdict", "concrete_states", "keys", "pareto_pairs"] + (["abstract_states"] if sys.argv[1] == "1" else [])
if r["verdict"] == "violation": keys = ["verdict"]  # the searches stop at different points
print(" ".join(str(r[k]) for k in keys))' "$abstract" 2>/dev/null || echo "no report"
}
single=$({ "$druba" test "$@" --json --jobs 1 || true; } | fields)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for np in $counts; do
  spread=$({ "$mpirun" --oversubscribe -np "$np" "$druba_mpi" test "$@" --json --batch-bytes 4096 \
               --stepwise || true; } | fields)
  if [ "$spread" != "$single" ]; then
    echo "FAIL: $* with $np processes: druba-mpi '$spread', druba '$single'"
    status=1
  else
    echo "ok: $* with $np processes: $spread"
  fi
  if [ "$spread" = violation ]; then
    "$mpirun" --oversubscribe -np "$np" "$druba_mpi" test "$@" --trace-out "$work/trace.json" \
      > /dev/null 2>&1 || true
    replay=$("$druba" replay "$1" --trace "$work/trace.json" 2>&1 || true)
    case $replay in
      "replay: violation confirmed"*) echo "ok: its trace replays: $replay" ;;
      *) echo "FAIL: the trace of $np processes does not replay: $replay"; status=1 ;;
    esac
  fi
done
exit $status
