"""ditto.audit from Python: a Python training writes the same log at every thread count, its
records carry the Python modules' paths, and the C++ and Python seed programs write logs that
ditto-audit diff finds the same op by op."""
import json
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


# --- PyTorch programs (ditto.audit.torch_recording, python3 -m ditto.audit_torch) ------------------

torch = pytest.importorskip("torch")


def torch_train(path, values=""):
    class TorchNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU())
            self.head = torch.nn.Linear(16, 3)

        def forward(self, x):
            return self.head(self.body(x))

    torch.manual_seed(0)
    model = TorchNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    g = torch.Generator()
    g.manual_seed(3)
    with ditto.audit.torch_recording(path, values):
        for step in range(2):
            ditto.audit.mark("step", step)
            x = torch.randn(8, 6, generator=g)
            y = torch.randint(0, 3, (8,), generator=g)
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()


def test_a_pytorch_program_is_recorded_with_module_paths_backward_and_no_views(tmp_path):
    torch_train(tmp_path / "a.log")
    torch_train(tmp_path / "b.log")
    assert body(tmp_path / "a.log") == body(tmp_path / "b.log")  # PyTorch's CPU ops here are deterministic
    out = tool("show", str(tmp_path / "a.log"))
    assert out.returncode == 0, out.stderr
    assert '"recorder": "pytorch ' in out.stdout.splitlines()[0]
    lines = out.stdout.splitlines()[1:]
    ops = {line.split()[3] for line in lines if " mark " not in line}
    assert {"randn", "randint", "addmm", "log_softmax", "nll_loss", "mm", "add_"} <= ops, ops
    assert not ops & {"t", "view", "detach", "transpose", "expand", "empty"}, ops  # views and empty memory left out
    addmm = [line for line in lines if " addmm " in line and "forward" in line]
    assert any(" in body.0 " in line for line in addmm) and any(" in head " in line for line in addmm), addmm
    assert any(" mm [torch, ] backward" in line for line in lines)
    assert any("mark step = 1" in line for line in lines)
    # the torch recording is off once the block ends: ops run after it are not in the log
    n = len(lines)
    torch.ones(3).add_(1)
    assert len(tool("show", str(tmp_path / "a.log")).stdout.splitlines()) - 1 == n


def program(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_diff_names_the_op_where_a_port_departs_from_pytorch(tmp_path):
    body_text = """
import sys
g = torch.Generator()
g.manual_seed(5)
x = torch.randn(3, 4, generator=g)
a = x * 3
b = a + {constant}
c = b.relu().sum()
"""
    torch_prog = program(tmp_path, "t.py", "import torch\n" + body_text.format(constant="1"))
    ditto_prog = program(tmp_path, "d.py", "import ditto as torch\n" + body_text.format(constant="1.25"))
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    subprocess.run([sys.executable, "-m", "ditto.audit_torch", "--values", "all", str(tmp_path / "t.log"), torch_prog],
                   env=env, check=True, timeout=120)
    subprocess.run([sys.executable, ditto_prog], check=True, timeout=120,
                   env=dict(env, DITTO_AUDIT=str(tmp_path / "d.log"), DITTO_AUDIT_VALUES="all"))
    out = tool("diff", str(tmp_path / "t.log"), str(tmp_path / "d.log"))
    assert out.returncode == 1, out.stdout + out.stderr
    first = out.stdout.splitlines()[1]
    assert " add [torch, ] " in first, out.stdout
    assert "its inputs are values the other run holds too" in out.stdout
    assert "before it: 2 records whose results" in out.stdout  # randn and the product: PyTorch's bits
    assert "12 of 12 elements differ; largest difference 0.25" in out.stdout, out.stdout
    j = json.loads(tool("diff", str(tmp_path / "t.log"), str(tmp_path / "d.log"), "--json").stdout)
    assert j["by_values"] and j["differ"] and j["inputs_matched"] and j["matched"] == 2
    assert j["record_a"]["op"] == "add" and j["record_b"]["op"].startswith("add")
    assert j["args"][0]["differing"] == 12
    # the same program on both sides agrees
    ditto_same = program(tmp_path, "s.py", "import ditto as torch\n" + body_text.format(constant="1"))
    subprocess.run([sys.executable, ditto_same], check=True, timeout=120,
                   env=dict(env, DITTO_AUDIT=str(tmp_path / "s.log")))
    out = tool("diff", str(tmp_path / "t.log"), str(tmp_path / "s.log"))
    assert out.returncode == 0 and "the values agree" in out.stdout, out.stdout


def test_the_seed_training_loop_against_pytorch_op_by_op(tmp_path):
    """The seed's program on PyTorch, recorded by the PyTorch recorder, against ditto's C++ and Python
    seed programs: the initial draws and the first addmm are PyTorch's bits; the first op that is
    not is MSELoss's reduction, one ulp off (ditto's mean sums in its canonical tree order)."""
    exe = os.path.join(BUILD, "seed_example")
    if not os.path.exists(exe):
        pytest.skip("seed_example not built")
    with open(os.path.join(ROOT, "examples", "seed_example.py")) as f:
        text = f.read().replace("import ditto as torch\n", "import torch\n").replace("from ditto import nn\n",
                                                                                   "from torch import nn\n")
    torch_prog = program(tmp_path, "seed_torch.py", text)
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"), DITTO_AUDIT_VALUES="all")
    subprocess.run([sys.executable, "-m", "ditto.audit_torch", str(tmp_path / "torch.log"), torch_prog], env=env,
                   check=True, timeout=120, capture_output=True)
    subprocess.run([exe], env=dict(env, DITTO_AUDIT=str(tmp_path / "cpp.log")), capture_output=True, check=True,
                   timeout=120)
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "seed_example.py")], capture_output=True,
                   env=dict(env, DITTO_AUDIT=str(tmp_path / "py.log")), check=True, timeout=120)
    for port in ("cpp.log", "py.log"):
        out = tool("diff", str(tmp_path / "torch.log"), str(tmp_path / port))
        assert out.returncode == 1, out.stdout + out.stderr
        assert "first part at record 3 of" in out.stdout and " mse_loss [torch, ] " in out.stdout, out.stdout
        assert "its inputs are values the other run holds too" in out.stdout
        assert "before it: 3 records whose results" in out.stdout  # two uniform_ draws and addmm
        assert " mean [canonical-tree, deterministic] " in out.stdout
        assert "1 of 1 elements differ" in out.stdout and "ulps: [1, 1]: 1" in out.stdout, out.stdout
