# The GPT example (examples/gpt) in a small configuration prints the same bits
#   - at 1, 2, 3 and 8 threads and at the scalar level beside the detected one,
#   - when sampling recomputes the whole context instead of using the KV cache,
#   - when stopped at step 6, checkpointed and resumed in a new process (from step 7 on),
#   - and from its Python twin (gpt.py on ditto), straight through and resumed, where PYTHON is given.
# Usage: cmake -DEXE=<gpt_example> -DSCRIPT=<gpt.py> -DPYTHON=<python3 or empty>
#              -DPYTHONPATH=<build/python> -DWORK=<dir> -P gpt_example.cmake
file(MAKE_DIRECTORY ${WORK})
set(flags --steps 12 --batch 4 --block 32 --layers 2 --heads 2 --embd 32 --warmup 3 --dropout 0.1 --log-every 1
          --eval-batches 1 --sample 100)

function(run out)  # run(<var> <env...> -- <args...>): stdout without the checkpoint lines
  cmake_parse_arguments(R "" "" "ENV;ARGS" ${ARGN})
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${R_ENV} ${R_ARGS} OUTPUT_VARIABLE o ERROR_VARIABLE e RESULT_VARIABLE r)
  if(r)
    message(FATAL_ERROR "failed (${r}): ${R_ENV} ${R_ARGS}\n${o}\n${e}")
  endif()
  string(REGEX REPLACE "checkpoint [^\n]*\n" "" o "${o}")
  set(${out} "${o}" PARENT_SCOPE)
endfunction()

run(ref ENV DITTO_NUM_THREADS=1 ARGS "${EXE}" ${flags} --save ${WORK}/gpt.ckpt)
if(NOT ref MATCHES "step    12/12  loss [0-9.]+.*last loss bits 0x[0-9a-f]+\nvalidation loss [0-9.]+\n--- sample [^\n]*\nROMEO:")
  message(FATAL_ERROR "unexpected output:\n${ref}")
endif()
foreach(env "DITTO_NUM_THREADS=2" "DITTO_NUM_THREADS=3" "DITTO_NUM_THREADS=8" "DITTO_NUM_THREADS=2;DITTO_CPU_CAPABILITY=scalar")
  run(o ENV ${env} ARGS "${EXE}" ${flags} --save ${WORK}/gpt.ckpt)
  if(NOT o STREQUAL ref)
    message(FATAL_ERROR "${env} prints other bits:\n${ref}\n---\n${o}")
  endif()
endforeach()
run(o ENV DITTO_NUM_THREADS=2 ARGS "${EXE}" ${flags} --save ${WORK}/gpt.ckpt --no-cache)
if(NOT o STREQUAL ref)
  message(FATAL_ERROR "sampling without the KV cache prints other text:\n${ref}\n---\n${o}")
endif()

# stopped at step 6 and resumed
run(half ENV DITTO_NUM_THREADS=2 ARGS "${EXE}" ${flags} --stop-at 6 --save ${WORK}/half.ckpt)
run(rest ENV DITTO_NUM_THREADS=1 ARGS "${EXE}" ${flags} --save ${WORK}/gpt.ckpt --resume ${WORK}/half.ckpt)
string(FIND "${ref}" "step     7/12" at)
string(SUBSTRING "${ref}" ${at} -1 tail)
string(FIND "${rest}" "step     7/12" at2)
if(at LESS 0 OR at2 LESS 0)
  message(FATAL_ERROR "no step 7:\n${ref}\n---\n${rest}")
endif()
string(SUBSTRING "${rest}" ${at2} -1 rest_tail)
if(NOT rest MATCHES "resumed at step 6\n" OR NOT rest_tail STREQUAL tail)
  message(FATAL_ERROR "the resumed run differs from the run straight through:\n${ref}\n---\n${rest}")
endif()

if(PYTHON)
  run(py ENV DITTO_NUM_THREADS=2 PYTHONPATH=${PYTHONPATH} ARGS "${PYTHON}" "${SCRIPT}" ${flags} --save ${WORK}/gpt-py.ckpt)
  if(NOT py STREQUAL ref)
    message(FATAL_ERROR "the Python twin prints other bits:\n${ref}\n---\n${py}")
  endif()
  run(pyhalf ENV PYTHONPATH=${PYTHONPATH} ARGS "${PYTHON}" "${SCRIPT}" ${flags} --stop-at 6 --save ${WORK}/half-py.ckpt)
  run(pyrest ENV PYTHONPATH=${PYTHONPATH} ARGS "${PYTHON}" "${SCRIPT}" ${flags} --save ${WORK}/gpt-py.ckpt
      --resume ${WORK}/half-py.ckpt)
  string(FIND "${pyrest}" "step     7/12" at3)
  string(SUBSTRING "${pyrest}" ${at3} -1 pyrest_tail)
  if(at3 LESS 0 OR NOT pyrest_tail STREQUAL tail)
    message(FATAL_ERROR "the Python twin's resumed run differs:\n${ref}\n---\n${pyrest}")
  endif()
  string(LENGTH "${py}" n)
  message(STATUS "C++ and Python: the same ${n} bytes")
endif()
