# Certifies a `safe` and checks the certificate with the independent checker (`druba check`).
#   cmake -DDRUBA=<druba> -DMODEL=<.pds> -DWORKDIR=<dir> [-DARGS=a@@b] [-DINPUT=a@@b]
#         [-DSTDOUT=<regex verify's JSON must match>] [-DMUTATE=drop-state|drop-pair|flip|edit]
#         [-DREASON=<the condition check must name>] -P check_certificate.cmake
# ARGS go to verify (e.g. --top 2), INPUT to both verify and check (--init, --spec, --target).
# Without MUTATE, check must say valid (exit 0). With it, the certificate (or the model) is
# changed first and check must say invalid (exit 10) naming REASON.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "@@" ";" ARGS "${ARGS}")  # lists arrive @@-separated (add_test splits at ';')
string(REPLACE "@@" ";" INPUT "${INPUT}")
get_filename_component(stem "${MODEL}" NAME_WE)
file(MAKE_DIRECTORY "${WORKDIR}")
set(cert "${WORKDIR}/${stem}${MUTATE}.cert.json")
string(TIMESTAMP t0 "%s%f")
execute_process(COMMAND "${DRUBA}" verify "${MODEL}" ${ARGS} ${INPUT} --json --certificate "${cert}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP t1 "%s%f")
if(NOT code EQUAL 0)
  message(FATAL_ERROR "verify exited ${code}, expected 0 (safe)\n${out}${err}")
endif()
if(STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "verify's report does not match '${STDOUT}':\n${out}")
endif()
set(model "${MODEL}")
if(MUTATE)
  file(READ "${cert}" json)
  if(MUTATE STREQUAL "drop-state")  # the last abstract state (sorted: rarely the initial one)
    string(JSON n LENGTH "${json}" abstract_states)
    math(EXPR last "${n} - 1")
    string(JSON json REMOVE "${json}" abstract_states ${last})
  elseif(MUTATE STREQUAL "drop-pair")
    string(JSON json REMOVE "${json}" below_top 0)
  elseif(MUTATE STREQUAL "flip")  # another shared state in the last abstract state
    string(JSON n LENGTH "${json}" abstract_states)
    math(EXPR last "${n} - 1")
    string(JSON g GET "${json}" abstract_states ${last} 0)
    math(EXPR g "${g} + 1000")
    string(JSON json SET "${json}" abstract_states ${last} 0 "${g}")
  elseif(MUTATE STREQUAL "edit")  # the model edited after certifying: one more newline
    get_filename_component(dir "${MODEL}" DIRECTORY)
    file(READ "${MODEL}" text)
    set(model "${WORKDIR}/${stem}-edited.pds")
    file(WRITE "${model}" "${text}\n")
    file(COPY_FILE "${dir}/${stem}.init" "${WORKDIR}/${stem}-edited.init")
  endif()
  file(WRITE "${cert}" "${json}")
endif()
execute_process(COMMAND "${DRUBA}" check "${model}" ${INPUT} --certificate "${cert}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP t2 "%s%f")
math(EXPR verify_ms "(${t1} - ${t0}) / 1000")
math(EXPR check_ms "(${t2} - ${t1}) / 1000")
file(SIZE "${cert}" bytes)
if(NOT MUTATE)
  if(NOT code EQUAL 0 OR NOT out MATCHES "^certificate valid")
    message(FATAL_ERROR "check exited ${code}, expected 0 (valid)\n${out}${err}")
  endif()
  message(STATUS "${stem}: certificate ${bytes} bytes, verify ${verify_ms} ms, check ${check_ms} ms")
  return()
endif()
if(NOT code EQUAL 10 OR NOT out MATCHES "certificate invalid: ${REASON}")
  message(FATAL_ERROR "check of the ${MUTATE} certificate exited ${code}, expected 10 naming "
                      "'${REASON}'\n${out}${err}")
endif()
