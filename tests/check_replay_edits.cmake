# Every field a saved trace states is checked on replay: writes a trace with `druba verify
# --trace-out` (or `test` for a .drb model) into WORKDIR, confirms it replays, then edits one field
# at a time and demands exit 2 with the message given for that edit.
#   cmake -DDRUBA=<druba> -DMODEL=<model> [-DSPEC=<spec>] -DWORKDIR=<dir> -DEDITS=<list> -P ...
# EDITS: a list of "FROM=>TO=>REGEX" (the first occurrence of FROM becomes TO).
cmake_minimum_required(VERSION 3.25)
get_filename_component(stem "${MODEL}" NAME_WE)
set(trace "${WORKDIR}/${stem}.edits.trace.json")
if(MODEL MATCHES "\\.drb$")
  execute_process(COMMAND "${DRUBA}" test "${MODEL}" --trace-out "${trace}" RESULT_VARIABLE code
                  OUTPUT_QUIET)
else()
  execute_process(COMMAND "${DRUBA}" verify "${MODEL}" --spec "${SPEC}" --trace-out "${trace}"
                  RESULT_VARIABLE code OUTPUT_QUIET)
endif()
if(NOT code EQUAL 10)
  message(FATAL_ERROR "no violation to save (exit ${code})")
endif()
execute_process(COMMAND "${DRUBA}" replay "${MODEL}" --trace "${trace}" RESULT_VARIABLE code
                OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT code EQUAL 10)
  message(FATAL_ERROR "the unedited trace does not replay (exit ${code}): ${err}")
endif()
file(READ "${trace}" original)
string(REPLACE "@@" ";" EDITS "${EDITS}")
set(n 0)
foreach(edit IN LISTS EDITS)
  string(REPLACE "=>" ";" parts "${edit}")
  list(GET parts 0 from)
  list(GET parts 1 to)
  list(GET parts 2 regex)
  string(FIND "${original}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "'${from}' is not in the trace:\n${original}")
  endif()
  string(LENGTH "${from}" length)
  string(SUBSTRING "${original}" 0 ${at} head)
  math(EXPR rest "${at} + ${length}")
  string(SUBSTRING "${original}" ${rest} -1 tail)
  math(EXPR n "${n} + 1")
  set(edited "${WORKDIR}/${stem}.edit${n}.trace.json")
  file(WRITE "${edited}" "${head}${to}${tail}")
  execute_process(COMMAND "${DRUBA}" replay "${MODEL}" --trace "${edited}" RESULT_VARIABLE code
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 2 OR NOT err MATCHES "${regex}")
    message(FATAL_ERROR "edit '${from}' -> '${to}': exit ${code}, expected 2 and '${regex}'\n"
                        "${out}${err}")
  endif()
endforeach()
message(STATUS "${n} edits rejected")
