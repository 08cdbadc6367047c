# Runs one druba command line and checks its exit code and output.
#   cmake -DDRUBA=<druba> "-DARGS=a;b;c" (or a@@b@@c) -DEXIT=<code> [-DSTDOUT=<regex>] [-DSTDERR=<regex>]
#         [-DNO_FILE=<path that must not exist afterwards>]
#         [-DFILE=<path written> -DFILE_REGEX=<regex its content must match>] -P check_cli.cmake
# or from a test file (tests/cli/NAME.desc), one `key: value` per line ('#' starts a comment):
#   command: verify ${MODELS}/ex8.pds --top 2   (druba's arguments, split at spaces)
#   exit: 0                                     stdout: REGEX    stderr: REGEX
#   file: PATH   file-matches: REGEX            no-file: PATH
#   same-as-expected: PATH   same-as-actual: PATH
#   prefix: timeout -s TERM 0.3                 (a program that runs druba with its arguments)
# (labels, setup, requires and needs are read by tests/CMakeLists.txt). ${MODELS}, ${INPUTS},
# ${WORK} (the build's test directory), ${BENCH} and ${SOURCE} are replaced by their paths.
#   cmake -DDRUBA=<druba> -DDESC=<file> -DMODELS=.. -DINPUTS=.. -DWORK=.. -DBENCH=.. -DSOURCE=..
#         -P check_cli.cmake
cmake_minimum_required(VERSION 3.25)
if(DEFINED DESC)
  file(READ "${DESC}" content)
  string(REPLACE ";" "@SEMICOLON@" content "${content}")
  string(REPLACE "\n" ";" lines "${content}")
  set(keys command exit stdout stderr file file-matches no-file same-as-expected same-as-actual
           labels setup requires needs prefix)
  foreach(line IN LISTS lines)
    if(line STREQUAL "" OR line MATCHES "^#")
      continue()
    endif()
    if(NOT line MATCHES "^([a-z-]+): (.*)$")
      message(FATAL_ERROR "${DESC}: not 'key: value': ${line}")
    endif()
    set(key "${CMAKE_MATCH_1}")
    set(value "${CMAKE_MATCH_2}")
    if(NOT key IN_LIST keys)
      message(FATAL_ERROR "${DESC}: unknown key '${key}'")
    endif()
    foreach(var MODELS INPUTS WORK BENCH SOURCE)
      string(REPLACE "\${${var}}" "${${var}}" value "${value}")
    endforeach()
    string(REPLACE "@SEMICOLON@" ";" value "${value}")
    if(DEFINED desc_${key})  # a second line would silently replace the first
      message(FATAL_ERROR "${DESC}: '${key}:' given twice (join the patterns with .*)")
    endif()
    set(desc_${key} "${value}")
  endforeach()
  if(NOT DEFINED desc_exit OR NOT DEFINED desc_command)
    message(FATAL_ERROR "${DESC}: 'command:' and 'exit:' are required")
  endif()
  string(REPLACE " " ";" ARGS "${desc_command}")
  set(EXIT "${desc_exit}")
  if(DEFINED desc_prefix)  # e.g. `timeout -s TERM 0.3`: a program that runs druba
    string(REPLACE " " ";" prefix "${desc_prefix}")
    list(APPEND prefix "${DRUBA}")
    list(POP_FRONT prefix DRUBA)
    list(PREPEND ARGS ${prefix})
  endif()
  foreach(pair stdout:STDOUT stderr:STDERR file:FILE file-matches:FILE_REGEX no-file:NO_FILE
               same-as-expected:COMPARE_EXPECTED same-as-actual:COMPARE_ACTUAL)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 key)
    list(GET pair 1 var)
    if(DEFINED desc_${key})
      string(REPLACE "\\n" "\n" "${var}" "${desc_${key}}")
    endif()
  endforeach()
else()
  string(REPLACE "@@" ";" ARGS "${ARGS}")
endif()
execute_process(COMMAND "${DRUBA}" ${ARGS} RESULT_VARIABLE code OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 120)
if(NOT code EQUAL EXIT)
  message(FATAL_ERROR "exit code ${code}, expected ${EXIT}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED STDOUT AND NOT out MATCHES "${STDOUT}")
  message(FATAL_ERROR "stdout does not match '${STDOUT}':\n${out}")
endif()
if(DEFINED STDERR AND NOT err MATCHES "${STDERR}")
  message(FATAL_ERROR "stderr does not match '${STDERR}':\n${err}")
endif()
if(DEFINED NO_FILE AND EXISTS "${NO_FILE}")
  message(FATAL_ERROR "${NO_FILE} was left behind")
endif()
if(DEFINED FILE)
  file(READ "${FILE}" content)
  if(NOT content MATCHES "${FILE_REGEX}")
    message(FATAL_ERROR "${FILE} does not match '${FILE_REGEX}':\n${content}")
  endif()
endif()
if(DEFINED COMPARE_EXPECTED)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${COMPARE_EXPECTED}" "${COMPARE_ACTUAL}"
                  RESULT_VARIABLE differ)
  if(differ)
    file(READ "${COMPARE_ACTUAL}" actual)
    message(FATAL_ERROR "${COMPARE_ACTUAL} differs from ${COMPARE_EXPECTED}:\n${actual}")
  endif()
endif()
