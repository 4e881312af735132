#!/usr/bin/env bash
# Builds ditto on a fresh Debian machine and runs the main example: the seed's program in C++
# (examples/seed_example.cpp), then in Python (examples/seed_example.py, `import ditto as torch`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=/usr/bin/python3
cmake --build build -j"$(nproc)" --target seed_example ditto_python
./build/seed_example
PYTHONPATH=build/python /usr/bin/python3 examples/seed_example.py
