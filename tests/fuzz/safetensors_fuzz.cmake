# Builds the safetensors reader's libFuzzer target with clang (Debian's clang and
# libclang-rt-14-dev, which scripts/install-deps.sh installs) and runs it over the committed corpus
# for RUNS inputs. New inputs it finds go to WORK, never into the committed corpus.
# Usage: cmake -DCLANG=clang++ -DROOT=<repo> -DWORK=<dir> -DRUNS=N -P safetensors_fuzz.cmake
if(NOT CLANG)
  message("clang++ not found: skipped")
  return()
endif()
file(MAKE_DIRECTORY ${WORK}/new)
execute_process(
  COMMAND ${CLANG} -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
          -I${ROOT}/include -I${ROOT}/src ${ROOT}/src/io/safetensors_format.cpp ${ROOT}/tests/fuzz/safetensors_fuzz.cpp
          -o ${WORK}/safetensors_fuzz
  RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "building the fuzz target failed")
endif()
execute_process(
  COMMAND ${WORK}/safetensors_fuzz -runs=${RUNS} -seed=1 -max_len=8192 -rss_limit_mb=1024
          -dict=${ROOT}/tests/fuzz/safetensors.dict ${WORK}/new ${ROOT}/tests/fuzz/safetensors-corpus
  RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "the fuzz target found a failing input (see above)")
endif()
