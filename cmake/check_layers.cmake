# Fails when a file under src/ includes an internal header of a higher layer (docs/design.md,
# "Layers"). Layers, lowest first:
#   core      tensors, dtypes, allocation, threads, dtype dispatch
#   cpu       the CPU kernels and their declarations
#   autograd  the graph (nodes, recording, saved values) and the engine
#   ops       the op table, the dispatcher, the public ops and their backward formulas
#   random nn optim   distributions, layers, optimisers (one level: they do not include each other)
#   io distributed   files (safetensors, checkpoints); processes (MPI, data parallelism, samplers)
# A file may include headers of its own directory and of lower layers; the public headers
# (include/ditto/) may be included anywhere. Usage: cmake -DSRC=<repo>/src -P check_layers.cmake
#
# Kernels take TensorBase (ditto/tensor_base.h), not Tensor: a cpu/ file that includes
# "ditto/tensor.h" is rebuilt whenever an op is added, so only the files listed here may, each
# because it runs ops on its arguments.
set(kernels_using_tensor
  cpu/index.cpp    # cat's list of Tensor, index_select's contiguous index, nonzero's output (factory, views)
  cpu/scatter.cpp  # contiguous copies of strided self, source and index
)
set(ranks core 0 cpu 1 autograd 2 ops 3 random 4 nn 4 optim 4 io 5 distributed 5)
function(rank_of dir out)
  list(FIND ranks ${dir} i)
  if(i EQUAL -1)
    set(${out} -1 PARENT_SCOPE)
  else()
    math(EXPR j "${i} + 1")
    list(GET ranks ${j} r)
    set(${out} ${r} PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*.h ${SRC}/*.cpp ${SRC}/*.def)
set(bad "")
set(count 0)
foreach(f ${files})
  string(REGEX MATCH "^[^/]+" dir ${f})
  rank_of(${dir} own)
  if(own EQUAL -1)
    string(APPEND bad "  ${f}: directory '${dir}' has no layer (add it to cmake/check_layers.cmake)\n")
    continue()
  endif()
  file(STRINGS ${SRC}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    math(EXPR count "${count} + 1")
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    string(REGEX MATCH "^[^/]+" idir ${inc})
    if(dir STREQUAL "cpu" AND inc STREQUAL "ditto/tensor.h")
      list(FIND kernels_using_tensor ${f} allowed)
      if(allowed EQUAL -1)
        string(APPEND bad "  ${f} (cpu) includes \"ditto/tensor.h\": kernels take TensorBase (ditto/tensor_base.h)\n")
      endif()
    endif()
    if(idir STREQUAL "ditto" OR idir STREQUAL dir)
      continue()
    endif()
    rank_of(${idir} theirs)
    if(theirs EQUAL -1)
      string(APPEND bad "  ${f}: includes \"${inc}\", which is in no layer\n")
    elseif(NOT theirs LESS own)
      string(APPEND bad "  ${f} (${dir}) includes \"${inc}\" (${idir}): not a lower layer\n")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "Layering: internal headers must be included downward only:\n${bad}")
endif()
message(STATUS "Layering: ${count} includes checked, all downward")
