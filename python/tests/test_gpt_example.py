"""examples/gpt/gpt.py, the GPT example's Python twin, run on ditto and on PyTorch 1.13 from the
same initial weights and batches: each step's loss within 1e-5 relative over 50 steps (the two
differ by rounding: attention, GEMM and reduction order), and the model learns."""
import os
import re
import subprocess
import sys

import pytest

_here = os.path.dirname(os.path.abspath(__file__))
_script = os.path.join(_here, "..", "..", "examples", "gpt", "gpt.py")
_flags = ["--steps", "50", "--batch", "4", "--block", "32", "--layers", "2", "--heads", "2", "--embd", "32",
          "--warmup", "5", "--log-every", "1", "--eval-batches", "0", "--sample", "0", "--save", ""]  # fmt: skip


def _losses(extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.environ.get("DITTO_PYTHONPATH", os.path.join(_here, "..", "..", "build", "python"))
    out = subprocess.run([sys.executable, _script, *_flags, *extra], env=env, capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    return [float(x) for x in re.findall(r"loss ([0-9.]+)  lr", out)]


def test_the_twin_follows_pytorchs_loss_trace():
    pytest.importorskip("torch")
    ours, theirs = _losses([]), _losses(["--torch"])
    assert len(ours) == len(theirs) == 50
    worst = max(abs(a - b) / b for a, b in zip(ours, theirs))
    assert worst < 1e-5, (worst, ours, theirs)
    assert ours[-1] < ours[0] - 0.5  # it learns
