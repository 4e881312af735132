# Installs the built ditto into a fresh prefix, then configures, builds and runs a consumer
# project that uses find_package(ditto CONFIG) and ditto::ditto; where the Python package was built
# (PYTHON set), imports it from the prefix's lib/pythonX.Y/site-packages too.
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK}/prefix" RESULT_VARIABLE r OUTPUT_QUIET)
if(r)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SRC}" -B "${WORK}/build" "-DCMAKE_PREFIX_PATH=${WORK}/prefix"
                        -DCMAKE_BUILD_TYPE=Release RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "configuring the consumer failed")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK}/build" RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "building the consumer failed")
endif()
execute_process(COMMAND "${WORK}/build/app" RESULT_VARIABLE r OUTPUT_VARIABLE out)
if(r OR NOT out MATCHES "ok")
  message(FATAL_ERROR "the consumer failed: ${out}")
endif()

if(PYTHON)
  file(GLOB site "${WORK}/prefix/lib/python*/site-packages")
  if(NOT EXISTS "${site}/ditto/__init__.py")
    message(FATAL_ERROR "the Python package was not installed under ${WORK}/prefix/lib/pythonX.Y/site-packages")
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "PYTHONPATH=${site}" "${PYTHON}" -c
                          "import ditto; assert ditto.__file__.startswith('${site}'); print(ditto.ones(2).sum().item())"
                  RESULT_VARIABLE r OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(r OR NOT out MATCHES "2.0")
    message(FATAL_ERROR "importing the installed Python package failed: ${out} ${err}")
  endif()
endif()
