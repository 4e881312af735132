#!/usr/bin/env bash
# Builds ditto on a fresh Debian machine and runs the main example.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)" --target seed_example
./build/seed_example
