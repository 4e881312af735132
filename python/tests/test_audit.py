"""ditto.audit from Python: a Python training writes the same log at every thread count, its
records carry the Python modules' paths, and the C++ and Python seed programs write logs that
ditto-audit diff finds the same op by op."""
import os
import subprocess
import sys

import pytest

import ditto
from ditto import nn

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.dirname(os.path.abspath(os.environ.get("DITTO_PYTHONPATH", os.path.join(ROOT, "build", "python"))))
TOOL = os.path.join(BUILD, "ditto-audit")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.body(x))


def train(path, threads):
    old = ditto.get_num_threads()
    ditto.set_num_threads(threads)
    try:
        ditto.manual_seed(0)
        model = Net()
        opt = ditto.optim.SGD(model.parameters(), lr=0.1)
        g = ditto.Generator()
        g.manual_seed(3)
        with ditto.audit.recording(path):
            for step in range(2):
                ditto.audit.mark("step", step)
                x = ditto.randn(8, 6, generator=g)
                y = ditto.randint(0, 3, (8,), generator=g)
                opt.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
    finally:
        ditto.set_num_threads(old)


def body(path):
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[12:16], "little")
    return data[16 + n:]


def tool(*args):
    if not os.path.exists(TOOL):
        pytest.skip(f"{TOOL} not built")
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=120)


def test_a_python_training_writes_the_same_log_at_every_thread_count(tmp_path):
    train(tmp_path / "a.log", 1)
    train(tmp_path / "b.log", 3)
    assert len(body(tmp_path / "a.log")) > 5000
    assert body(tmp_path / "a.log") == body(tmp_path / "b.log")
    out = tool("diff", str(tmp_path / "a.log"), str(tmp_path / "b.log"))
    assert out.returncode == 0 and "the logs agree" in out.stdout, out.stdout + out.stderr


def test_records_carry_the_python_module_path(tmp_path):
    train(tmp_path / "a.log", 1)
    out = tool("show", str(tmp_path / "a.log"), "--op", "addmm")
    assert out.returncode == 0, out.stderr
    assert " in body.0 " in out.stdout + " " and " in head " in out.stdout + " ", out.stdout[:2000]
    assert "backward (" in tool("show", str(tmp_path / "a.log"), "--step", "1").stdout


def test_the_cpp_and_python_seed_programs_write_the_same_log(tmp_path):
    exe = os.path.join(BUILD, "seed_example")
    if not os.path.exists(exe):
        pytest.skip("seed_example not built")
    env = dict(os.environ, DITTO_AUDIT=str(tmp_path / "cpp.log"))
    subprocess.run([exe], env=env, capture_output=True, check=True, timeout=120)
    env = dict(os.environ, DITTO_AUDIT=str(tmp_path / "py.log"), PYTHONPATH=os.path.join(BUILD, "python"))
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "seed_example.py")], env=env, capture_output=True,
                   check=True, timeout=120)
    # The Python program makes its data from lists (copies the C++ program does not make): in step,
    # the logs part at once; aligned, every op of the C++ program is the Python program's, bit for bit.
    out = tool("diff", str(tmp_path / "cpp.log"), str(tmp_path / "py.log"))
    assert out.returncode == 1 and "different paths" in out.stdout, out.stdout + out.stderr
    out = tool("diff", str(tmp_path / "cpp.log"), str(tmp_path / "py.log"), "--align")
    assert out.returncode == 0, out.stdout + out.stderr
    skipped_cpp = int(out.stdout.split(" records, ")[1].split(" and ")[0])
    assert skipped_cpp == 0, out.stdout
