#!/usr/bin/env python3
"""Runs the seed's example (and its warn_only variant) in PyTorch and writes what it prints.

Usage: /usr/bin/python3 tools/gen_seed_example_output.py tests/data/seed_example_pytorch.txt
(needs Debian's python3-torch). tests/CMakeLists.txt compares examples/seed_example's output
with this file line for line; the only difference allowed is the API name in the error text
('torch.use_deterministic_algorithms(True)' vs 'ditto::use_deterministic_algorithms(true)').
"""
import contextlib
import io
import sys
import warnings

import torch
from torch import nn


def seed_program():
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)

    x = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    y = torch.tensor([[3.0], [5.0], [7.0], [9.0]])
    model = nn.Linear(1, 1)
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    losses = []
    for step in range(3):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(round(loss.item(), 4))

    print("Deterministic losses:", losses)
    print("Mode enabled:", torch.are_deterministic_algorithms_enabled())

    torch.manual_seed(0)
    image = torch.randn(1, 1, 4, 4)
    pooled, indices = nn.MaxPool2d(2, return_indices=True)(image)
    try:
        nn.MaxUnpool2d(2)(pooled, indices, output_size=(1, 1, 4, 4))
        print("max_unpool2d: no error")
    except RuntimeError as error:
        print("Rejected op: max_unpool2d")
        print("Error:", str(error).split(" You can turn off")[0])

    # the seed's warn_only variant
    torch.use_deterministic_algorithms(True, warn_only=True)
    pooled, indices = nn.MaxPool2d(2, return_indices=True)(torch.ones(1, 1, 4, 4))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        out = nn.MaxUnpool2d(2)(pooled, indices, output_size=(1, 1, 4, 4))
    print("Ran with warning only:", tuple(out.shape))


if __name__ == "__main__":
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        seed_program()
    path = sys.argv[1] if len(sys.argv) > 1 else "seed_example_pytorch.txt"
    with open(path, "w") as f:
        f.write(buf.getvalue())
    print("wrote", path)
