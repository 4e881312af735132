"""PyTorch's OpInfo samples through ditto (sweep.py): every swept op passes every sample, except
the known failures listed with their reasons; the sweep's comparison catches a wrong result; every
table op that OpInfo covers is swept; docs/coverage.md is what the sweep gives."""
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")  # Debian's python3-torch, installed by scripts/test.sh

import sweep  # noqa: E402

import ditto  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
_results = {}


def result(name):
    if name not in _results:
        _results[name] = sweep.run_entry(sweep.BY_NAME[name])
    return _results[name]


@pytest.fixture(autouse=True)
def mode_off():
    ditto.use_deterministic_algorithms(False)
    yield


@pytest.mark.parametrize("name", [e.opinfo for e in sweep.SWEEP])
def test_opinfo_samples(name):
    r = result(name)
    assert r["samples"] > 0, f"{name}: no sample ran"
    known, why = sweep.KNOWN_FAILURES.get(name, (0, ""))
    assert len(r["failures"]) <= known, "\n".join(r["failures"])
    if known:
        assert r["failures"], f"{name} no longer fails: remove it from KNOWN_FAILURES ({why})"


@pytest.mark.parametrize("name", sorted(sweep.KERNEL_LEVEL_DIFFERENCES))
def test_kernel_level_differences_pass_against_pytorchs_default_kernel(name):
    """An entry that differs only from PyTorch's vector kernels passes whole against its DEFAULT one."""
    code = (
        "import sweep, sys; assert sweep.TORCH_CAPABILITY == 'DEFAULT', sweep.TORCH_CAPABILITY; "
        f"r = sweep.run_entry(sweep.BY_NAME[{name!r}]); print(r['samples'], r['failures']); "
        "sys.exit(1 if r['failures'] or not r['samples'] else 0)"
    )
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.abspath(__file__))] + sys.path)
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


def test_the_sweep_catches_a_wrong_result():
    def one_ulp_off(out):
        if isinstance(out, ditto.Tensor) and out.is_floating_point() and out.numel():
            out = out.detach().clone()
            flat = out.reshape(-1)
            flat[0] = flat[0] * (1 + 2**-20) + 2**-30
        return out

    for name in ("add", "exp", "mm", "index_select"):
        r = sweep.run_entry(sweep.BY_NAME[name], perturb=one_ulp_off, max_samples=4)
        assert r["failures"], f"a perturbed {name} passed"


def test_every_table_op_that_opinfo_covers_is_swept():
    swept = {name.split(".")[0] if not name.startswith("nn.") else name for name in sweep.BY_NAME}
    swept |= {name.split(".")[-1] for name in sweep.BY_NAME if name.startswith("nn.functional.")}
    opinfo = {name.split(".")[0] for name in sweep.OPS} | {
        name.split(".")[2] for name in sweep.OPS if name.startswith("nn.functional.")
    }
    missing = []
    for row in ditto._C._op_table():
        base = row["name"].split(".")[0].rstrip("_")
        if base in opinfo and base not in swept:
            missing.append(row["name"])
    assert missing == [], f"table ops that OpInfo covers but the sweep does not: {missing}"


def test_coverage_doc_is_current():
    results = {e.opinfo: result(e.opinfo) for e in sweep.SWEEP}
    with open(os.path.join(ROOT, "docs", "coverage.md")) as f:
        committed = f.read()
    assert committed == sweep.coverage_markdown(results), "docs/coverage.md is stale: run tools/gen_coverage.py"
