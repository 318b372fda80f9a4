# Run with cmake -P (see tests/CMakeLists.txt): installs quoct from SOURCE_DIR into a
# prefix under WORK_DIR, deletes the build tree so only the install is left, then
# configures, builds and runs the consumer project next to this script against it.
#   -DSOURCE_DIR=<quoct source> -DWORK_DIR=<scratch dir> -DGENERATOR=<generator>
#   -DCXX_COMPILER=<compiler> [-DWITH_MPI=ON: check find_package(quoct COMPONENTS mpi) too]
cmake_minimum_required(VERSION 3.16)

foreach(var SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "run.cmake needs -D${var}=...")
    endif()
endforeach()

function(run)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        string(REPLACE ";" " " shown "${ARGN}")
        message(FATAL_ERROR "cmake_import: failed (${rc}): ${shown}")
    endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(quoct_build ${WORK_DIR}/quoct-build)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})

# A Release configuration, as a packager's, but compiled without optimisation: this test is
# about what gets installed and found: at -O3 the test took 91 s, at -O0 52 s. The consumer too.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${quoct_build} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG"
    -DCMAKE_INSTALL_PREFIX=${prefix}
    -DQUOCT_BUILD_TESTS=OFF -DQUOCT_BUILD_BENCH=OFF -DQUOCT_BUILD_EXAMPLES=OFF -DQUOCT_BUILD_TOOLS=OFF -DQUOCT_BUILD_PYTHON=OFF)
run(${CMAKE_COMMAND} --build ${quoct_build} --config Release)
run(${CMAKE_COMMAND} --install ${quoct_build} --config Release)
file(REMOVE_RECURSE ${quoct_build})

run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/cmake_import -B ${consumer_build} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O0 -DNDEBUG"
    -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DQUOCT_EXPECTED_DIR=${prefix}
    -DQUOCT_TEST_CSV=${SOURCE_DIR}/data/bunny.csv -DQUOCT_TEST_MPI=${WITH_MPI})
run(${CMAKE_COMMAND} --build ${consumer_build} --config Release)
execute_process(COMMAND ${CMAKE_CTEST_COMMAND} -C Release --output-on-failure
    WORKING_DIRECTORY ${consumer_build} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake_import: the consumer's test failed (${rc})")
endif()
