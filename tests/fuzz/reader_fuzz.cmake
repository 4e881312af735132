# Builds a file reader's libFuzzer target with clang (Debian's clang and libclang-rt-14-dev, which
# scripts/install-deps.sh installs) from tests/fuzz/NAME_fuzz.cpp and the library's SOURCES (the
# reader's untrusted-input layer, which needs no more of the library), and runs it over the
# committed corpus tests/fuzz/CORPUS for RUNS inputs (with tests/fuzz/NAME.dict where there is
# one). New inputs it finds go to WORK, never into the committed corpus.
# Usage: cmake -DCLANG=clang++ -DROOT=<repo> -DWORK=<dir> -DNAME=n -DSOURCES=src/a.cpp;.. -DCORPUS=dir
#              -DRUNS=N -P reader_fuzz.cmake
if(NOT CLANG)
  message("clang++ not found: skipped")
  return()
endif()
file(MAKE_DIRECTORY ${WORK}/new)
set(srcs)
foreach(s ${SOURCES})
  list(APPEND srcs ${ROOT}/${s})
endforeach()
execute_process(
  COMMAND ${CLANG} -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
          -I${ROOT}/include -I${ROOT}/src ${srcs} ${ROOT}/tests/fuzz/${NAME}_fuzz.cpp -o ${WORK}/${NAME}_fuzz
  RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "building the fuzz target failed")
endif()
set(dict)
if(EXISTS ${ROOT}/tests/fuzz/${NAME}.dict)
  set(dict -dict=${ROOT}/tests/fuzz/${NAME}.dict)
endif()
execute_process(
  COMMAND ${WORK}/${NAME}_fuzz -runs=${RUNS} -seed=1 -max_len=32768 -rss_limit_mb=1024 ${dict} ${WORK}/new
          ${ROOT}/tests/fuzz/${CORPUS}
  RESULT_VARIABLE r)
if(r)
  message(FATAL_ERROR "the fuzz target found a failing input (see above)")
endif()
