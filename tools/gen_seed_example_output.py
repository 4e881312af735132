#!/usr/bin/env python3
"""Runs the seed's example (and its warn_only variant) in PyTorch and writes what it prints.

Usage: /usr/bin/python3 tools/gen_seed_example_output.py tests/data/seed_example_pytorch.txt
(needs Debian's python3-torch). The program is examples/seed_example.py, run with its two ditto
imports turned back into PyTorch's. Compared line for line with what examples/seed_example (C++,
tests/examples/seed_example.cmake) and examples/seed_example.py (python/tests/test_seed.py)
print; the only difference allowed is the API name in the error text
('torch.use_deterministic_algorithms(True)' vs ditto's).
"""
import contextlib
import io
import os
import sys

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "seed_example.py")


def pytorch_source():
    with open(PROGRAM) as f:
        src = f.read()
    for ditto_line, torch_line in (("import ditto as torch\n", "import torch\n"),
                                   ("from ditto import nn\n", "from torch import nn\n")):
        if ditto_line not in src:
            raise SystemExit(f"{PROGRAM}: expected the line {ditto_line!r}")
        src = src.replace(ditto_line, torch_line)
    return src


if __name__ == "__main__":
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(pytorch_source(), PROGRAM, "exec"), {"__name__": "__main__"})
    path = sys.argv[1] if len(sys.argv) > 1 else "seed_example_pytorch.txt"
    with open(path, "w") as f:
        f.write(buf.getvalue())
    print("wrote", path)
