# Runs one `druba verify` with --jobs 1 and with --jobs 3 and demands the same verdict, reached
# abstract set (--dump-abstract) and search figures: parallel expansion must not change the result.
#   cmake -DDRUBA=<druba> "-DARGS=a@@b" -DOUT=<scratch prefix> -P check_jobs.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "@@" ";" ARGS "${ARGS}")
foreach(jobs 1 3)
  execute_process(COMMAND "${DRUBA}" verify ${ARGS} --json --jobs ${jobs}
                          --dump-abstract ${OUT}.jobs${jobs}.abstract
                  RESULT_VARIABLE code_${jobs} OUTPUT_VARIABLE out_${jobs} ERROR_VARIABLE err
                  TIMEOUT 120)
  if(NOT out_${jobs} MATCHES "\"jobs\":${jobs}")
    message(FATAL_ERROR "--jobs ${jobs} did not run on ${jobs} threads:\n${out_${jobs}}\n${err}")
  endif()
  set(figures_${jobs} "")
  foreach(field verdict abstract_states concrete_states keys pareto_pairs rounds delays
                image_calls transitions reexpansions closure_checks)
    string(REGEX MATCH "\"${field}\":[^,]*" value "${out_${jobs}}")
    list(APPEND figures_${jobs} "${value}")
  endforeach()
endforeach()
if(NOT code_1 EQUAL code_3)
  message(FATAL_ERROR "exit code ${code_1} with one thread, ${code_3} with three")
endif()
if(NOT figures_1 STREQUAL figures_3)
  message(FATAL_ERROR "one thread: ${figures_1}\nthree threads: ${figures_3}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}.jobs1.abstract
                        ${OUT}.jobs3.abstract RESULT_VARIABLE differ)
if(differ)
  message(FATAL_ERROR "the reached abstract sets differ")
endif()
message(STATUS "same result on 1 and 3 threads: ${figures_1}")
