# The seed example prints what PyTorch prints (tests/data/seed_example_pytorch.txt, made by
# tools/gen_seed_example_output.py), line for line; only the API's name differs in the error.
execute_process(COMMAND "${EXE}" OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "seed_example exited with ${r}: ${err}")
endif()
file(READ "${EXPECTED}" expected)
string(REPLACE "'torch.use_deterministic_algorithms(True)'" "'ditto::use_deterministic_algorithms(true)'" expected "${expected}")
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "seed_example printed:\n${out}\nPyTorch printed:\n${expected}")
endif()
if(NOT err MATCHES "max_unpooling2d_forward_out does not have a deterministic implementation")
  message(FATAL_ERROR "the warn_only run did not warn on stderr; stderr was:\n${err}")
endif()
