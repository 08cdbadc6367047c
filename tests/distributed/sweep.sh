#!/usr/bin/env bash
# The issue's sweep (CTest label `long`): with 1, 2 and 4 processes, druba-mpi against druba on
# every PLDI'18 file of tests/benchmarks.expect at K = 1 and K = 2 (verify: the paper's proof, and
# the sandwich proof with the file's target and on Stefan's interchangeable threads), on two
# composed instances (Stefan-5, Bluetooth3 2+2), and on every bundled .drb model (test to 4 rounds
# and 2 delays; verify as each of its header lines says, and at one count with O first), each
# compared by compare.sh. Fails when any comparison fails.
#   sweep.sh DRUBA DRUBA_MPI MPIRUN SOURCE_DIR BENCH_DIR
set -uo pipefail
druba=$1 druba_mpi=$2 mpirun=$3 source=$4 bench=$5
compare=$(dirname "$0")/compare.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
ran=0
run() {
  ran=$((ran + 1))
  if ! "$compare" "$druba" "$druba_mpi" "$mpirun" "1 2 4" "$@" > "$work/out" 2>&1; then
    failed=$((failed + 1))
    cat "$work/out"
  fi
}
mapfile -t rows < <(grep -v '^#' "$source/tests/benchmarks.expect")
paper=(--upper-bound off --symmetric-search off)
for row in "${rows[@]}"; do
  read -r file k _ <<< "$row"
  run verify "$bench/$file.pds" --top "$k" "${paper[@]}"
  # The sandwich proof where druba computes O first: with the file's target (O free of it
  # answers), and with interchangeable threads (the search over orbits covers O).
  if [ -f "$bench/$file.spec" ]; then
    run verify "$bench/$file.pds" --top "$k" --spec "$bench/$file.spec"
  fi
  case $file in *Stefan*) run verify "$bench/$file.pds" --top "$k" ;; esac
done
"$druba" compose "$bench/08_Stefan-1/stefan-4.pds" --blocks 0,0,0,0,0 --init '0|0,0,0,0,0' \
  -o "$work/stefan-5.pds" > /dev/null
"$druba" compose "$bench/03_Bluetooth-3/Bluetooth3-21.pds" --blocks 0,1,2,2,3 \
  --init '0|1,1,9,9,1' -o "$work/bt3-22.pds" > /dev/null
for k in 1 2; do
  run verify "$work/stefan-5.pds" --top "$k" "${paper[@]}"
  run verify "$work/stefan-5.pds" --top "$k"
  run verify "$work/bt3-22.pds" --top "$k" "${paper[@]}"
done
for model in "$source"/models/*.drb; do
  run test "$model" --rounds 4 --delays 2
  # verify as each header line says (its thread counts, deadlock, abstraction, refinement,
  # Horn solver, exhaustion), and once (without deadlock, at one count of at most 3) with O first.
  mapfile -t setups < <(sed -n 's/^# druba-expect: //p' "$model" | grep -v 'mode=' |
    sed -e 's/verdict=[^ ]*//' -e 's/proof=[^ ]*//' -e 's/abstract-states=[^ ]*//' \
        -e 's/violation-threads=[^ ]*//' -e 's/orbits=[^ ]*//' -e 's/threads=/--threads /' \
        -e 's/deadlock=1/--deadlock/' -e 's/abstraction=/--abstraction /' \
        -e 's/refine=/--refine /' -e 's/horn=/--horn /' -e 's/exhaust=/--exhaust-share /' |
    tr -s ' ' | sed -e 's/^ //' -e 's/ $//' | sort -u)
  [ ${#setups[@]} = 0 ] && setups=("")
  joint=0
  for setup in "${setups[@]}"; do
    read -r -a options <<< "$setup"
    run verify "$model" "${options[@]}"
    case $setup in
      # (O by the all-SAT post at 4 threads or more: sense-barrier at 6 takes druba minutes)
      *--deadlock* | *..* | *"--threads "[4-9]*) ;;
      *) if [ $joint = 0 ]; then joint=1; run verify "$model" "${options[@]}" --upper-bound joint; fi ;;
    esac
  done
done
echo "$ran comparisons (each with 1, 2 and 4 processes), $failed failed"
[ "$failed" = 0 ]
