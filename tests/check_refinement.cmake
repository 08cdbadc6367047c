# Refinement without hand-written predicates: removes every `abstraction` block (and the expected
# verdicts) from MODEL, verifies what is left (with --threads THREADS when given) and demands
# `safe`; then pastes the abstraction block the report printed back into the model and demands
# that the paper's algorithm alone (--refine off) proves it with that block: the block is a
# proof, not just a claim. The proof's certificate is checked too. Usage:
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
  if(THREADS MATCHES "\\.\\.$")
    # Refinement is what this tests: not the invariants from finite instances, which the route
    # auto would try before it.
    list(APPEND args --route abstraction)
  endif()
endif()
# The proof is also certified (for every count too), and the certificate must be checked valid.
set(cert "${WORKDIR}/${stem}-bare.cert.json")
file(REMOVE "${cert}")
set(cert_args --certificate "${cert}")
# `druba verify FILE ARGN --json` must say safe; its report is left in `out`, `what` names the run.
function(verify_safe what file)
  execute_process(COMMAND "${DRUBA}" verify "${file}" ${ARGN} --json
                  RESULT_VARIABLE code OUTPUT_VARIABLE report ERROR_VARIABLE err)
  string(JSON verdict GET "${report}" verdict)
  if(NOT verdict STREQUAL "safe")
    message(FATAL_ERROR "${stem} ${what}: verdict ${verdict}, expected safe\n${report}${err}")
  endif()
  set(out "${report}" PARENT_SCOPE)
endfunction()
verify_safe("without abstraction blocks" "${bare}" ${args} ${cert_args})
execute_process(COMMAND "${DRUBA}" check "${bare}" --certificate "${cert}"
                RESULT_VARIABLE code OUTPUT_VARIABLE checked ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "${stem}: the certificate of the refined proof is not valid:\n${checked}${err}")
endif()
message(STATUS "${stem}: ${checked}")
string(JSON block ERROR_VARIABLE none GET "${out}" refinement abstraction)
if(none)
  message(STATUS "${stem}: proved without refinement (exhaustion or the default abstraction)")
  return()
endif()
string(JSON added LENGTH "${out}" refinement added)
set(pasted "${WORKDIR}/${stem}-refined.drb")
file(WRITE "${pasted}" "${text}\n${block}")
verify_safe("with the printed block and --refine off (${block})" "${pasted}" ${args} --refine off)
message(STATUS "${stem}: ${added} predicates found; the printed block proves it alone")
