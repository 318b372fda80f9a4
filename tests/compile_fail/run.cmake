# Compiles unsupported_point.cpp once per case (CASE: "", RANGE, DIMENSION, SCALARS) and
# checks that it fails with exactly one error, quoct's static_assert carrying EXPECT.
# Run as: cmake -DCXX=... -DINCLUDE=... -DSOURCE=... -DCASE=... -DEXPECT=... -P run.cmake
set(defs "")
if(CASE)
    set(defs "-DQUOCT_FAIL_CASE_${CASE}")
endif()
execute_process(
    COMMAND ${CXX} -std=c++17 -fsyntax-only -I${INCLUDE} ${defs} ${SOURCE}
    RESULT_VARIABLE result
    ERROR_VARIABLE err
    OUTPUT_VARIABLE out)
if(result EQUAL 0)
    message(FATAL_ERROR "compiled, but must not (case '${CASE}')")
endif()
string(REGEX MATCHALL "error:" errors "${err}${out}")
list(LENGTH errors count)
if(NOT count EQUAL 1)
    message(FATAL_ERROR "expected exactly one error, got ${count}:\n${err}")
endif()
string(FIND "${err}" "${EXPECT}" at)
if(at EQUAL -1)
    message(FATAL_ERROR "the error does not say '${EXPECT}':\n${err}")
endif()
