# ctest -R install_package: installs the build into a fresh prefix, configures and builds
# tests/consumer against it with find_package(scalewall), runs the consumer, and checks that the
# installed tree holds the executables, the docs and the examples.
# Variables: BUILD_DIR, SOURCE_DIR, WORK_DIR, GENERATOR, CXX.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}\n${out}\n${err}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(path bin/scalewall include/scalewall/base/units.h
             share/doc/scalewall/architecture.md share/doc/scalewall/errors.md
             share/scalewall/examples/seed-7b-bf16.toml)
  if(NOT EXISTS ${prefix}/${path})
    message(FATAL_ERROR "the installed tree has no ${path}")
  endif()
endforeach()
file(GLOB package ${prefix}/lib*/cmake/scalewall/scalewallConfig.cmake)
if(NOT package)
  message(FATAL_ERROR "the installed tree has no lib/cmake/scalewall/scalewallConfig.cmake")
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/consumer -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
message(STATUS "installed, found with find_package(scalewall), built and ran the consumer")
