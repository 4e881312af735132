#!/usr/bin/env bash
# The whole test suite from a fresh Debian machine: install packages, build, run the tests, then
# build and run them again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
JOBS=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDITTO_WERROR=ON
cmake --build build -j"$JOBS"
(cd build && ctest --output-on-failure -j"$JOBS")
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDITTO_SANITIZE=ON -DDITTO_BUILD_EXAMPLES=OFF -DDITTO_WERROR=ON
cmake --build build-asan -j"$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$JOBS")
