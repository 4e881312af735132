# The U-Net example prints the same losses, pixel accuracies and parameter fingerprint on every
# run, whatever the thread count (1 and 3 threads, the CPU's best kernel level); and its first
# steps give the same parameters at the scalar level as at the best one (the scalar level's
# fma is libm's, far slower, so only a few steps run there).
function(run_example out_var)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env ${ARGN} "${EXE}" ${ARGS} OUTPUT_VARIABLE out RESULT_VARIABLE r)
  if(r)
    message(FATAL_ERROR "unet_example ${ARGS} failed with ${ARGN}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

set(ARGS "")
run_example(one DITTO_NUM_THREADS=1)
run_example(three DITTO_NUM_THREADS=3)
if(NOT one MATCHES "epoch 3 .*test pixel accuracy 0\\.9[0-9]+\n.*parameters fingerprint: [0-9a-f]+")
  message(FATAL_ERROR "unexpected output:\n${one}")
endif()
if(NOT one STREQUAL three)
  message(FATAL_ERROR "outputs differ between 1 and 3 threads:\n${one}\n---\n${three}")
endif()

set(ARGS --steps 2)
run_example(best DITTO_NUM_THREADS=2)
run_example(scalar DITTO_NUM_THREADS=2 DITTO_CPU_CAPABILITY=scalar)
if(NOT best MATCHES "^parameters fingerprint: [0-9a-f]+\n$")
  message(FATAL_ERROR "unexpected output with --steps 2:\n${best}")
endif()
if(NOT best STREQUAL scalar)
  message(FATAL_ERROR "the scalar level differs from the best one:\n${best}\n---\n${scalar}")
endif()
