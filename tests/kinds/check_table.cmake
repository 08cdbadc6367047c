# The third kind (table/) through the command line: verify proves the lock (by exhaustion, by the
# plateau and closure test of Thm. 7, and in mode ai), finds the broken
# one's violation with a trace, test runs its bounds, --json reports its header, its own option
# (--bad) reaches its front end, another kind's option is refused naming both kinds, bad input is
# exit 2 with file:line:col, and the other kinds still run through the same binary.
#   cmake -DDRUBA=<druba_with_table> -DDIR=<tests/kinds/table> -DMODELS=<models> -P check_table.cmake
cmake_minimum_required(VERSION 3.25)

function(expect code pattern)
  execute_process(COMMAND "${DRUBA}" ${ARGN} RESULT_VARIABLE got OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT got EQUAL code OR NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "druba ${ARGN}: exit ${got} (expected ${code}), output:\n${out}${err}\n"
                        "expected to match: ${pattern}")
  endif()
  message(STATUS "druba ${ARGN}: exit ${got}")
endfunction()

expect(0 "verdict: safe .*abstract states \\(2\\):\n  shared=0 at 0:3\n  shared=1 at 0:2 1:1"
       verify "${DIR}/safe.tbl")
expect(0 "verdict: safe \\([^\n]*Thm. 7" verify "${DIR}/safe.tbl" --exhaust-share 0)
expect(0 "verdict: safe \\(the reached abstract states are closed under every action"
       verify "${DIR}/safe.tbl" --mode ai)
expect(0 "\"verdict\":\"safe\".*\"threads\":3,\"edges\":2" verify "${DIR}/safe.tbl" --json)
expect(10 "verdict: violation.*trace: .*edge 1: 1 0 -> 2 1" verify "${DIR}/broken.tbl")
expect(10 "verdict: violation" test "${DIR}/broken.tbl" --rounds 2 --delays 0)
expect(0 "verdict: bounded" test "${DIR}/safe.tbl" --rounds 3 --delays 1)
expect(10 "verdict: violation" verify "${DIR}/safe.tbl" --bad 1)
expect(2 "--top: error: this option is for a CPDS model, and .*safe.tbl is a transition table"
       verify "${DIR}/safe.tbl" --top 2)
expect(2 "--bad: error: this option is for a transition table, and .*lock.drb is a .drb program"
       verify "${MODELS}/lock.drb" --bad 1)
expect(2 "bad-edge.tbl:3:10: .*expected '->'" verify "${DIR}/bad-edge.tbl")
expect(2 "not a model druba reads: .*a transition table \\(.tbl\\)" verify "${DIR}/table.h")
expect(0 "verdict: safe" verify "${MODELS}/lock.drb" --threads 2)
expect(0 "verdict: safe" verify "${MODELS}/ex8.pds")
