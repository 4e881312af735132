#!/usr/bin/env bash
# Builds ditto on a fresh Debian machine and runs the main example: the seed's program in C++
# (examples/seed_example.cpp), then in Python (examples/seed_example.py, `import ditto as torch`).
# `run-example.sh gpt [flags]` instead trains and samples the character-level GPT of examples/gpt,
# in C++ and then in Python (the same flags; both print the same losses and text).
# `run-example.sh ddp [flags]` runs the data-parallel example of examples/ddp in one process, then
# under mpirun at 3 processes, in C++ and in Python: all four print the same bits.
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
if [ "${1:-}" = ddp ]; then
  shift
  cmake --build build -j"$(nproc)" --target ddp_example ditto_python
  # as root (CI, containers) OpenMPI wants to be told; more processes than cores are fine
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONPATH=build/python
  MPIRUN=(mpirun --oversubscribe --bind-to none -np 3 -x PYTHONPATH)
  echo "--- C++, one process"; ./build/ddp_example "$@"
  echo "--- C++, mpirun -np 3"; "${MPIRUN[@]}" ./build/ddp_example "$@"
  echo "--- Python, one process"; /usr/bin/python3 examples/ddp/ddp.py "$@"
  echo "--- Python, mpirun -np 3"; "${MPIRUN[@]}" /usr/bin/python3 examples/ddp/ddp.py "$@"
  exit 0
fi
cmake --build build -j"$(nproc)" --target seed_example ditto_python
./build/seed_example
PYTHONPATH=build/python /usr/bin/python3 examples/seed_example.py
