# Runs one druba command line and checks its exit code and output.
#   cmake -DDRUBA=<druba> "-DARGS=a;b;c" (or a@@b@@c) -DEXIT=<code> [-DSTDOUT=<regex>] [-DSTDERR=<regex>]
#         [-DNO_FILE=<path that must not exist afterwards>]
#         [-DFILE=<path written> -DFILE_REGEX=<regex its content must match>] -P check_cli.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "@@" ";" ARGS "${ARGS}")
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
