#!/usr/bin/env bash
# Runs druba and druba-mpi (under mpirun, with each process count given) on one model and fails
# unless they agree (tests/CMakeLists.txt; docs/distributed.md):
#   test: `druba test` and `druba-mpi test --stepwise` (the bounds reached one raise at a time, in
#     batches of 4 KiB): the verdict, concrete states, keys, Pareto pairs and (.pds) abstract
#     states;
#   verify: `druba verify` and `druba-mpi verify`, with the same options: that, the abstract
#     states, the proof, the final bounds, the successor calls, and |O| and (.pds) its passes
#     where O was computed; a safe verdict's certificate and its --dump-abstract file are druba's,
#     byte for byte, and `druba check` finds the certificate valid. (Where druba computes O beside
#     the exploration, without a property or interchangeable threads, druba-mpi does not: such a
#     model is compared with --upper-bound off. A .drb program is compared with druba's
#     `--reuse-search off --symmetric-search off`, which is what druba-mpi computes, refinement
#     included; O's passes may differ there, its set may not. A proof by an invariant from a solver
#     may differ from run to run: its certificate must then be valid, not druba's byte for byte.)
# Of a violation only the verdict and (verify) the bounds agree: the searches stop at different
# points (and test --stepwise reaches the bounds another way). Its trace, walked back across the
# processes, must replay with single-process `druba replay`.
#   compare.sh DRUBA DRUBA_MPI MPIRUN "NP..." test|verify MODEL [options...]
set -euo pipefail
druba=$1 druba_mpi=$2 mpirun=$3 counts=$4 command=$5
shift 5
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
abstract=0
extra=()  # druba's options for what druba-mpi computes
case $1 in
  *.pds) abstract=1 ;;
  *.drb) if [ "$command" = verify ]; then abstract=1 extra=(--reuse-search off --symmetric-search off); fi ;;
esac
passes=1
case $1 in *.drb) passes=0 ;; esac
fields() {  # the fields compared, of a --json report on stdin
  python3 -c 'import json, sys
r = json.loads(sys.stdin.read())
keys = ["verdict", "concrete_states", "keys", "pareto_pairs"]
keys += ["abstract_states"] if sys.argv[1] == "1" else []
keys += ["proof", "rounds", "delays", "image_calls", "upper_bound"] \
    if sys.argv[2] == "verify" else []
keys += ["upper_bound_passes"] if sys.argv[2] == "verify" and sys.argv[3] == "1" else []
if r["verdict"] == "violation":
  keys = ["verdict"] + (["rounds", "delays"] if sys.argv[2] == "verify" else [])
if r["verdict"] == "unknown":
  keys = ["verdict"]  # a limit (or a value too large) stopped both, at different points
if r.get("upper_bound") is None:  # O not computed: druba says 0 passes, druba-mpi nothing
  keys = [k for k in keys if k != "upper_bound_passes"]
# A .drb verify: each thread count run and what it found (an unknown too, when no limit stopped
# it: each claim must be the same).
runs = [(x.get("threads"), x.get("verdict")) for x in r.get("runs", [])] \
    if sys.argv[2] == "verify" and sys.argv[3] == "0" and "limit" not in r["reason"] else []
print(" ".join(str(r.get(k)) for k in keys) + (" runs " + str(runs) if runs else ""))' \
    "$abstract" "$command" "$passes" 2>/dev/null || echo "no report"
}
# `druba check` takes the model's options, not the proof's.
checked=()
skip=0
for arg in "$@"; do
  if [ $skip = 1 ]; then skip=0; continue; fi
  case $arg in
    --upper-bound|--symmetric-search|--exhaust-share|--abstraction|--solver-timeout|--refine|--horn|--max-threads) skip=1 ;;
    *) checked+=("$arg") ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
druba_check() {  # single-process `druba check` of a certificate: what it prints
  "$druba" check "${checked[@]}" --certificate "$1" 2>&1 || true
}
own=()
mine=(--batch-bytes 4096)
if [ "$command" = verify ]; then
  own=(--certificate "$work/own.json")
  mine+=(--certificate "$work/certificate.json")
  if [ $abstract = 1 ]; then
    own+=(--dump-abstract "$work/own.txt")
    mine+=(--dump-abstract "$work/dump.txt")
  fi
else
  mine+=(--stepwise)
fi
# A run that found a violation exits 10, which is no failure here.
single=$({ "$druba" "$command" "$@" "${extra[@]}" "${own[@]}" --json --jobs 1 || true; } | fields)
if [ "$single" = "no report" ]; then  # nothing to compare with: a failure, never a vacuous pass
  echo "FAIL: druba $command $* ${extra[*]} gave no report"
  exit 1
fi
status=0
# Each process count's certificate must be druba's byte for byte, so druba's own is checked once.
case $single in
  safe*)
    check=$(druba_check "$work/own.json")
    case $check in
      *"certificate valid"*) echo "ok: druba's certificate: $check" ;;
      *) echo "FAIL: druba's certificate: $check"; status=1 ;;
    esac
    ;;
esac
for np in $counts; do
  spread=$({ "$mpirun" --oversubscribe --bind-to none --stdin none -np "$np" "$druba_mpi" "$command" "$@" "${mine[@]}" \
               --json --trace-out "$work/trace.json" || true; } 2> /dev/null | fields)
  if [ "$spread" != "$single" ]; then
    echo "FAIL: $command $* with $np processes: druba-mpi '$spread', druba '$single'"
    status=1
  else
    echo "ok: $command $* with $np processes: $spread"
  fi
  case $spread in
    safe*)
      if ! cmp -s "$work/own.json" "$work/certificate.json"; then
        # An invariant from a solver (the Horn solver races two encodings on two threads) may
        # differ from run to run: then it must be valid, not druba's byte for byte.
        check=$(druba_check "$work/certificate.json")
        case "$spread $check" in
          *" invariant "*"certificate valid"*)
            echo "ok: the certificate of $np processes (an invariant) is valid: $check" ;;
          *) echo "FAIL: the certificate of $np processes is not druba's"; status=1 ;;
        esac
      else
        echo "ok: the certificate of $np processes is druba's"
      fi
      rm -f "$work/certificate.json"
      if [ $abstract = 1 ] && ! cmp -s "$work/own.txt" "$work/dump.txt"; then
        echo "FAIL: the abstract states of $np processes (--dump-abstract) are not druba's"
        status=1
      fi
      rm -f "$work/dump.txt"
      ;;
    violation*)
      replay=$("$druba" replay "$1" --trace "$work/trace.json" 2>&1 || true)
      case $replay in
        "replay: violation confirmed"* | "replay: deadlock confirmed"*) echo "ok: its trace replays: $replay" ;;
        *) echo "FAIL: the trace of $np processes does not replay: $replay"; status=1 ;;
      esac
      ;;
  esac
done
exit $status
