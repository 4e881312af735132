# A run stopped at step STEP (--save-at) and resumed in a new process (--resume) prints what the
# run straight through prints from there on: the same losses and fingerprints, bit for bit, at 1
# and 2 threads. Usage: cmake -DEXE=<example> -DSTEP=<n> -DWORK=<dir> -P resume.cmake
file(MAKE_DIRECTORY ${WORK})
foreach(threads 1 2)
  set(ckpt ${WORK}/resume-${threads}.ckpt)
  file(REMOVE ${ckpt})
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env DITTO_NUM_THREADS=${threads} "${EXE}"
                  OUTPUT_VARIABLE straight RESULT_VARIABLE r1)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env DITTO_NUM_THREADS=${threads} "${EXE}" --save-at ${STEP} ${ckpt}
                  OUTPUT_VARIABLE first RESULT_VARIABLE r2)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env DITTO_NUM_THREADS=${threads} "${EXE}" --resume ${ckpt}
                  OUTPUT_VARIABLE resumed RESULT_VARIABLE r3)
  if(r1 OR r2 OR r3)
    message(FATAL_ERROR "a run failed (${r1}, ${r2}, ${r3}) at ${threads} threads:\n${first}\n${resumed}")
  endif()
  if(NOT first MATCHES "saved at step ${STEP}\n$")
    message(FATAL_ERROR "the first half did not stop at step ${STEP}:\n${first}")
  endif()
  string(REGEX REPLACE "^resumed at step [0-9]+\n" "" rest "${resumed}")
  string(LENGTH "${straight}" ls)
  string(LENGTH "${rest}" lr)
  if(lr LESS 40 OR lr GREATER ls)
    message(FATAL_ERROR "the resumed run printed too little:\n${resumed}")
  endif()
  math(EXPR from "${ls} - ${lr}")
  string(SUBSTRING "${straight}" ${from} ${lr} tail)
  if(NOT tail STREQUAL rest)
    message(FATAL_ERROR "at ${threads} threads the resumed run differs from the run straight through:\n"
                        "straight:\n${straight}\nresumed:\n${resumed}")
  endif()
  message(STATUS "${threads} threads: resumed at step ${STEP}, the same ${lr} bytes of output")
endforeach()
