"""The seed's Python program, with only its imports changed, prints what PyTorch printed."""
import os
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PROGRAM = os.path.join(ROOT, "examples", "seed_example.py")
EXPECTED = os.path.join(ROOT, "tests", "data", "seed_example_pytorch.txt")


def run(path, env_extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, path], capture_output=True, text=True, env=env, timeout=120)


def expected_lines():
    with open(EXPECTED) as f:
        text = f.read()
    # the one difference: the refusal names ditto's switch
    assert "'torch.use_deterministic_algorithms(True)'" in text
    return text.replace("'torch.use_deterministic_algorithms(True)'", "'ditto.use_deterministic_algorithms(True)'").splitlines()


def test_program_is_the_seed_with_only_its_imports_changed():
    with open(PROGRAM) as f:
        lines = [line for line in f.read().splitlines() if line and not line.startswith("#")]
    assert lines[:2] == ["import ditto as torch", "from ditto import nn"]
    assert not any("ditto" in line for line in lines[2:])


def test_seed_prints_what_pytorch_printed():
    r = run(PROGRAM)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == expected_lines()
    assert r.stdout.splitlines()[0] == "Deterministic losses: [35.0928, 0.9611, 0.0321]"


def test_warn_only_part_warns_on_stderr_naming_the_op():
    r = run(PROGRAM)
    assert "UserWarning: max_unpooling2d_forward_out does not have a deterministic implementation" in r.stderr
    assert "'ditto.use_deterministic_algorithms(True, warn_only=True)'" in r.stderr
    assert r.stderr.count("UserWarning") == 1


def test_same_output_for_every_thread_count():
    outs = {run(PROGRAM, {"DITTO_NUM_THREADS": str(n)}).stdout for n in (1, 2, 3)}
    assert outs == {"\n".join(expected_lines()) + "\n"}
