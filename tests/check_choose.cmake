# Differential: a program that chooses a value with `*` (and an `assume` of its range) and the same
# program choosing among the values by `choose` must get the same verdict, at 2 and 3 threads.
# The first takes its proofs from the abstraction's queries (its explicit search only samples);
# the second from exhaustion: two independent computations of one answer.
#   cmake -DDRUBA=<druba> -DANY=<x.any.drb> -P check_choose.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE ".any.drb" ".choose.drb" CHOOSE "${ANY}")
foreach(threads 2 3)
  foreach(model ANY CHOOSE)
    execute_process(COMMAND "${DRUBA}" verify "${${model}}" --threads ${threads}
                    OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
    string(REGEX MATCH "verdict: [a-z]+" verdict_${model} "${out}")
    if(NOT verdict_${model})
      message(FATAL_ERROR "${${model}} at ${threads} threads: no verdict\n${out}\n${err}")
    endif()
  endforeach()
  if(NOT verdict_ANY STREQUAL verdict_CHOOSE)
    message(FATAL_ERROR "${threads} threads: `*` says '${verdict_ANY}', `choose` says "
                        "'${verdict_CHOOSE}'")
  endif()
  if(verdict_ANY STREQUAL "verdict: unknown")
    message(FATAL_ERROR "${ANY} at ${threads} threads: unknown, which decides nothing")
  endif()
endforeach()
