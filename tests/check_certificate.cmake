# Certifies a `safe` and checks the certificate with the independent checker (`druba check`, and
# `druba-check` beside it, which must answer alike).
#   cmake -DDRUBA=<druba> -DMODEL=<.pds or .drb> -DWORKDIR=<dir> [-DARGS=a@@b] [-DINPUT=a@@b]
#         [-DSTDOUT=<regex verify's JSON must match>]
#         [-DMUTATE=drop-state|drop-pair|flip|edit|deadlock-on|replace] [-DFROM=.. -DTO=..]
#         [-DKIND=<the certificate's kind>]
#         [-DREASON=<the condition check must name>] -P check_certificate.cmake
# ARGS go to verify (e.g. --top 2), INPUT to both verify and check (--init, --spec, --target).
# Without MUTATE, check must say valid (exit 0). With it, the certificate (or the model) is
# changed first and check must say invalid (exit 10) naming REASON. deadlock-on asks the check
# for deadlock freedom too, of a model that has a deadlock; replace puts TO for the text FROM in
# the abstraction (a `drb predicates` certificate's predicates).
cmake_minimum_required(VERSION 3.25)
string(REPLACE "@@" ";" ARGS "${ARGS}")  # lists arrive @@-separated (add_test splits at ';')
string(REPLACE "@@" ";" INPUT "${INPUT}")
get_filename_component(stem "${MODEL}" NAME_WE)
file(MAKE_DIRECTORY "${WORKDIR}")
# One file per test: the arguments and inputs are part of its name (tests run in parallel).
string(MAKE_C_IDENTIFIER "${stem}${MUTATE}${ARGS}${INPUT}" name)
set(cert "${WORKDIR}/${name}.cert.json")
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
file(READ "${cert}" json)
string(JSON kind GET "${json}" kind)
if(KIND AND NOT kind STREQUAL KIND)
  message(FATAL_ERROR "a certificate of kind '${kind}', expected '${KIND}'")
endif()
set(states abstract_states)
if(kind STREQUAL "drb explicit")
  set(states states)
endif()
if(MUTATE)
  if(MUTATE STREQUAL "drop-state")  # the last state (sorted: rarely the initial one)
    string(JSON n LENGTH "${json}" ${states})
    math(EXPR last "${n} - 1")
    string(JSON json REMOVE "${json}" ${states} ${last})
  elseif(MUTATE STREQUAL "deadlock-on")
    string(JSON json SET "${json}" deadlock true)
  elseif(MUTATE STREQUAL "drop-pair")
    string(JSON json REMOVE "${json}" below_top 0)
  elseif(MUTATE STREQUAL "flip" AND kind STREQUAL "drb predicates")  # the last predicate bit
    string(JSON n LENGTH "${json}" abstract_states)
    math(EXPR last "${n} - 1")
    string(JSON width LENGTH "${json}" abstract_states ${last})
    math(EXPR bit "${width} - 2")
    string(JSON v GET "${json}" abstract_states ${last} ${bit})
    math(EXPR v "1 - ${v}")
    string(JSON json SET "${json}" abstract_states ${last} ${bit} "${v}")
  elseif(MUTATE STREQUAL "flip")  # in the last state: another shared state (CPDS), or the last
    string(JSON n LENGTH "${json}" ${states})  # number (explicit: the last thread's last local)
    math(EXPR last "${n} - 1")
    set(slot 0)
    if(kind STREQUAL "drb explicit")
      string(JSON width LENGTH "${json}" ${states} ${last})
      math(EXPR slot "${width} - 1")
    endif()
    string(JSON g GET "${json}" ${states} ${last} ${slot})
    math(EXPR g "${g} + 1000")
    string(JSON json SET "${json}" ${states} ${last} ${slot} "${g}")
  elseif(MUTATE STREQUAL "replace")  # FROM by TO in the abstraction's text (one predicate)
    string(JSON text GET "${json}" abstraction)
    string(FIND "${text}" "${FROM}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "the certificate's abstraction has no '${FROM}':\n${text}")
    endif()
    string(REPLACE "${FROM}" "${TO}" text "${text}")
    string(REPLACE "\\" "\\\\" text "${text}")  # back to a JSON string
    string(REPLACE "\"" "\\\"" text "${text}")
    string(REPLACE "\n" "\\n" text "${text}")
    string(JSON json SET "${json}" abstraction "\"${text}\"")
  elseif(MUTATE STREQUAL "edit")  # the model edited after certifying: one more newline
    get_filename_component(dir "${MODEL}" DIRECTORY)
    get_filename_component(ext "${MODEL}" LAST_EXT)
    file(READ "${MODEL}" text)
    set(model "${WORKDIR}/${stem}-edited${ext}")
    file(WRITE "${model}" "${text}\n")
    if(ext STREQUAL ".pds")
      file(COPY_FILE "${dir}/${stem}.init" "${WORKDIR}/${stem}-edited.init")
    endif()
  endif()
  file(WRITE "${cert}" "${json}")
endif()
execute_process(COMMAND "${DRUBA}" check "${model}" ${INPUT} --certificate "${cert}"
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP t2 "%s%f")
# druba-check, the checker as a program of its own (built beside druba), must answer alike: the
# same exit code and the same first line (the verdict, the condition and its example: the checkers
# walk the certificate's states in a fixed order). Not on the PLDI'18 files: their checks are the
# suite's longest, and the same code runs.
get_filename_component(bin "${DRUBA}" DIRECTORY)
if(EXISTS "${bin}/druba-check" AND NOT MODEL MATCHES "/benchmarks/")
  execute_process(COMMAND "${bin}/druba-check" "${model}" ${INPUT} --certificate "${cert}"
                  RESULT_VARIABLE alone_code OUTPUT_VARIABLE alone_out ERROR_VARIABLE alone_err)
  string(REGEX MATCH "^[^\n]*" verdict "${out}")
  string(REGEX MATCH "^[^\n]*" alone_verdict "${alone_out}")
  if(NOT alone_code EQUAL code OR NOT alone_verdict STREQUAL verdict)
    message(FATAL_ERROR "druba check and druba-check differ: exit ${code} and ${alone_code}\n"
                        "${out}${err}\n${alone_out}${alone_err}")
  endif()
endif()
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
