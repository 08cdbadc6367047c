# Refinement without hand-written predicates: removes every `abstraction` block (and the expected
# verdicts) from MODEL, verifies what is left (with --threads THREADS when given) and demands
# `safe`; then pastes the abstraction block the report printed back into the model and demands
# that the paper's algorithm alone (--refine off) proves it with that block: the block is a
# proof, not just a claim. Usage:
#   cmake -DDRUBA=<druba> -DMODEL=<file> -DWORKDIR=<dir> [-DTHREADS=N|N..] -P check_refinement.cmake
cmake_minimum_required(VERSION 3.25)
file(READ "${MODEL}" text)
string(REGEX REPLACE "\nabstraction [A-Za-z0-9_]+ {[^}]*}" "" text "${text}")
string(REGEX REPLACE "# druba-expect[^\n]*\n" "" text "${text}")
if(text MATCHES "\nabstraction ")
  message(FATAL_ERROR "${MODEL}: an abstraction block was left")
endif()
get_filename_component(stem "${MODEL}" NAME_WE)
file(MAKE_DIRECTORY "${WORKDIR}")
set(bare "${WORKDIR}/${stem}-bare.drb")
file(WRITE "${bare}" "${text}")
set(args)
if(THREADS)
  set(args --threads ${THREADS})
endif()
execute_process(COMMAND "${DRUBA}" verify "${bare}" ${args} --json
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(JSON verdict GET "${out}" verdict)
if(NOT verdict STREQUAL "safe")
  message(FATAL_ERROR "${stem} without abstraction blocks: verdict ${verdict}, expected safe\n${out}${err}")
endif()
string(JSON block ERROR_VARIABLE none GET "${out}" refinement abstraction)
if(none)
  message(STATUS "${stem}: proved without refinement (exhaustion or the default abstraction)")
  return()
endif()
string(JSON added LENGTH "${out}" refinement added)
set(pasted "${WORKDIR}/${stem}-refined.drb")
file(WRITE "${pasted}" "${text}\n${block}")
execute_process(COMMAND "${DRUBA}" verify "${pasted}" ${args} --refine off --json
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(JSON again GET "${out}" verdict)
if(NOT again STREQUAL "safe")
  message(FATAL_ERROR "${stem}: the printed block does not prove it with --refine off: ${again}\n${block}\n${out}${err}")
endif()
message(STATUS "${stem}: ${added} predicates found; the printed block proves it alone")
