# ditto::audit on the CNN example (8 batches, then a checkpoint): the logs at 1 thread, at 3
# threads on the scalar level and at 2 threads on the detected level (AVX-512 or AVX2 where the CPU
# has it) are the same bytes apart from their headers, and ditto-audit diff says so (exit 0);
# a run with one bit planted in one op's result (DITTO_AUDIT_PERTURB) is told apart at that op,
# with its inputs matched (exit 1).
# With values kept (the MLP of checkpoint_example, 5 steps), diff --plot draws a PNG.
# Usage: cmake -DEXE=<cnn_example> -DMLP=<checkpoint_example> -DAUDIT=<ditto-audit> -DWORK=<dir> -P audit_cnn.cmake
file(MAKE_DIRECTORY ${WORK})
function(record log)  # record(<log> <env...>)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env DITTO_AUDIT=${WORK}/${log} ${ARGN} ${EXE} --save-at 8 ${WORK}/cnn.ckpt
                  OUTPUT_VARIABLE o ERROR_VARIABLE e RESULT_VARIABLE r)
  if(r)
    message(FATAL_ERROR "cnn_example failed (${r}): ${ARGN}\n${o}\n${e}")
  endif()
endfunction()
function(body log out)  # the log's bytes after its header, as hex
  file(READ ${WORK}/${log} len HEX OFFSET 12 LIMIT 4)
  string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1" len "${len}")
  math(EXPR start "16 + ${len}")
  file(READ ${WORK}/${log} hex HEX OFFSET ${start})
  set(${out} "${hex}" PARENT_SCOPE)
endfunction()

record(a.log DITTO_NUM_THREADS=1)
record(b.log DITTO_NUM_THREADS=3 DITTO_CPU_CAPABILITY=scalar)
record(c.log DITTO_NUM_THREADS=2)
body(a.log a)
string(LENGTH "${a}" n)
if(n LESS 20000)
  message(FATAL_ERROR "the log is too short to hold the run (${n} hex digits)")
endif()
foreach(other b.log c.log)
  body(${other} o)
  if(NOT a STREQUAL o)
    message(FATAL_ERROR "${other} differs from a.log beyond the header")
  endif()
  execute_process(COMMAND ${AUDIT} diff ${WORK}/a.log ${WORK}/${other} OUTPUT_VARIABLE out RESULT_VARIABLE r)
  if(NOT r EQUAL 0 OR NOT out MATCHES "the logs agree")
    message(FATAL_ERROR "ditto-audit diff a.log ${other}: ${r}\n${out}")
  endif()
endforeach()
# One bit planted in the result of record 500.
record(p.log DITTO_NUM_THREADS=1 DITTO_AUDIT_PERTURB=500)
execute_process(COMMAND ${AUDIT} diff ${WORK}/a.log ${WORK}/p.log OUTPUT_VARIABLE out RESULT_VARIABLE r)
if(NOT r EQUAL 1 OR NOT out MATCHES "first differ at record [0-9]+: its inputs are the same bits, its results are not"
   OR NOT out MATCHES "a.log: #500 ")
  message(FATAL_ERROR "the planted difference was not found at record 500 (${r}):\n${out}")
endif()
execute_process(COMMAND ${AUDIT} show ${WORK}/a.log --step -1 --json OUTPUT_VARIABLE out RESULT_VARIABLE r)
if(r OR NOT out MATCHES "\"op\": \"conv2d\"")
  message(FATAL_ERROR "ditto-audit show --json: ${r}\n${out}")
endif()

# Values and --plot, on the small MLP.
foreach(log v.log w.log)
  set(extra "")
  if(log STREQUAL "w.log")
    set(extra DITTO_AUDIT_PERTURB=120)
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env DITTO_AUDIT=${WORK}/${log} DITTO_AUDIT_VALUES=all ${extra}
                          ${MLP} --save-at 5 ${WORK}/mlp.ckpt RESULT_VARIABLE r OUTPUT_QUIET)
  if(r)
    message(FATAL_ERROR "checkpoint_example failed (${r})")
  endif()
endforeach()
file(REMOVE ${WORK}/diff.png)
execute_process(COMMAND ${AUDIT} diff ${WORK}/v.log ${WORK}/w.log --plot ${WORK}/diff.png OUTPUT_VARIABLE out
                ERROR_VARIABLE err RESULT_VARIABLE r)
if(NOT r EQUAL 1 OR NOT out MATCHES "1 of [0-9]+ elements differ" OR NOT out MATCHES "ulps: \\[1, 1\\]: 1")
  message(FATAL_ERROR "diff with values (${r}):\n${out}\n${err}")
endif()
file(READ ${WORK}/diff.png magic HEX LIMIT 8)
if(NOT magic STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "--plot wrote no PNG (${magic}):\n${out}\n${err}")
endif()
