# Run with cmake -P (see tests/CMakeLists.txt): installs this build of quoct with
# `cmake --install` into a scratch prefix, then runs the installed `quoct` from there and
# checks that it reads the cities installed under the prefix (share/quoct/cities.csv), not
# the ones in the source tree: after the installed file is replaced by a one-city file, the
# installed tool must answer from that file.
#   -DBUILD_DIR=<quoct build tree> -DWORK_DIR=<scratch dir> [-DCONFIG=<config>]
cmake_minimum_required(VERSION 3.16)

foreach(var BUILD_DIR WORK_DIR)
    if(NOT DEFINED ${var})
        message(FATAL_ERROR "install_cli: run.cmake needs -D${var}=...")
    endif()
endforeach()
if(NOT DEFINED CONFIG OR CONFIG STREQUAL "")
    set(CONFIG Release)
endif()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --config ${CONFIG}
    RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_cli: cmake --install failed (${rc})")
endif()

set(tool ${prefix}/bin/quoct)
file(GLOB data ${prefix}/share/quoct/cities.csv)
if(NOT EXISTS ${tool} OR NOT data)
    message(FATAL_ERROR "install_cli: expected ${tool} and ${prefix}/share/quoct/cities.csv after the install")
endif()

# Runs the installed tool with QUOCT_DATA unset; `out` gets stdout, and any failure stops.
function(run_installed out)
    execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=QUOCT_DATA ${tool} ${ARGN}
        RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr WORKING_DIRECTORY ${WORK_DIR})
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "install_cli: ${tool} ${ARGN} failed (${rc}): ${stderr}")
    endif()
    set(${out} "${stdout}" PARENT_SCOPE)
endfunction()

# The bundled cities, as installed: Paris is the nearest city to Paris.
run_installed(paris near --lon 2.3522 --lat 48.8566 --k 1 --format csv)
if(NOT paris MATCHES "\nParis,")
    message(FATAL_ERROR "install_cli: expected Paris from the installed cities, got:\n${paris}")
endif()

# Replace the installed file: the installed tool must now answer from it.
file(WRITE ${prefix}/share/quoct/cities.csv "name,lon,lat\nInstalled only,2.35,48.86\n")
run_installed(mine near --lon 2.3522 --lat 48.8566 --k 1 --format csv)
if(NOT mine MATCHES "\nInstalled only,")
    message(FATAL_ERROR "install_cli: the installed quoct did not read ${prefix}/share/quoct/cities.csv:\n${mine}")
endif()
message(STATUS "install_cli: the installed quoct reads ${prefix}/share/quoct/cities.csv")
