#!/usr/bin/env bash
# Builds ditto on a fresh Debian machine and runs the main example: the seed's program in C++
# (examples/seed_example.cpp), then in Python (examples/seed_example.py, `import ditto as torch`).
# `run-example.sh gpt [flags]` instead trains and samples the character-level GPT of examples/gpt,
# in C++ and then in Python (the same flags; both print the same losses and text).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=/usr/bin/python3
if [ "${1:-}" = gpt ]; then
  shift
  cmake --build build -j"$(nproc)" --target gpt_example ditto_python
  ./build/gpt_example --save build/gpt.ckpt "$@"
  PYTHONPATH=build/python /usr/bin/python3 examples/gpt/gpt.py --save build/gpt-py.ckpt "$@"
  exit 0
fi
cmake --build build -j"$(nproc)" --target seed_example ditto_python
./build/seed_example
PYTHONPATH=build/python /usr/bin/python3 examples/seed_example.py
