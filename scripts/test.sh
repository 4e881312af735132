#!/usr/bin/env bash
# The whole test suite from a fresh Debian machine: install packages, build, run the tests (C++ and
# Python), then build and run the C++ tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
# python3-torch: the Python tests hand tensors to and from PyTorch (DLPack)
bash scripts/install-deps.sh python3-torch
JOBS=$(nproc)
# Debian's python3, which install-deps.sh gave pytest, NumPy and PyTorch
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDITTO_WERROR=ON -DPython_EXECUTABLE=/usr/bin/python3
cmake --build build -j"$JOBS"
(cd build && ctest --output-on-failure -j"$JOBS")
# (without MPI: OpenMPI's own allocations would read as leaks; the world-of-one stub is tested there)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDITTO_SANITIZE=ON -DDITTO_BUILD_EXAMPLES=OFF -DDITTO_WERROR=ON \
  -DDITTO_WITH_MPI=OFF
cmake --build build-asan -j"$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$JOBS")
