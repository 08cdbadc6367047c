# Differential: two programs that must mean the same (FIRST and SECOND) get the same verdict in
# every run of RUNS, each a `;`-list item of `@`-separated verify options ("--threads@2").
#   * `x := *` with an `assume` of its range against `choose` over the values (tests/inputs/choose):
#     the first is proved by the abstraction's queries (its explicit search only samples), the
#     second by exhaustion;
#   * an `unsafe` line against the assertion at the place (tests/inputs/unsafe): the checks the
#     parser adds in every step against the one the program states.
#   * `forall j: a[j] := ...` against the same update written out for the thread count
#     (tests/inputs/each); with SAME_STATES set, the runs must also count the same concrete states
#     (`--mode@explicit`: the two programs have the same variables, so the same state space).
# An `unknown` decides nothing, and fails.
#   cmake -DDRUBA=<druba> -DFIRST=<a.drb> -DSECOND=<b.drb> "-DRUNS=r1;r2" -P check_same_verdict.cmake
cmake_minimum_required(VERSION 3.25)
foreach(run IN LISTS RUNS)
  string(REPLACE "@" ";" options "${run}")
  foreach(model FIRST SECOND)
    execute_process(COMMAND "${DRUBA}" verify "${${model}}" ${options}
                    OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
    string(REGEX MATCH "verdict: [a-z]+" verdict_${model} "${out}")
    string(REGEX MATCH "[0-9]+ concrete states" states_${model} "${out}")
    if(NOT verdict_${model})
      message(FATAL_ERROR "${${model}} (${options}): no verdict\n${out}\n${err}")
    endif()
  endforeach()
  if(NOT verdict_FIRST STREQUAL verdict_SECOND)
    message(FATAL_ERROR "${options}: ${FIRST} says '${verdict_FIRST}', ${SECOND} says "
                        "'${verdict_SECOND}'")
  endif()
  if(SAME_STATES AND NOT states_FIRST STREQUAL states_SECOND)
    message(FATAL_ERROR "${options}: ${FIRST} reached '${states_FIRST}', ${SECOND} "
                        "'${states_SECOND}'")
  endif()
  if(verdict_FIRST STREQUAL "verdict: unknown")
    message(FATAL_ERROR "${FIRST} (${options}): unknown, which decides nothing")
  endif()
endforeach()
