"""Each case of tools/gen_golden_python.py, run with ditto, prints and computes what PyTorch 1.13
did: the same repr, dtype and shape, and the same bits."""
import builtins

import pytest

import ditto
from golden import compared, describe, load, run_case, run_program

DATA = load()


@pytest.fixture(autouse=True)
def one_thread_off_mode():
    ditto.use_deterministic_algorithms(False)
    yield


@pytest.mark.parametrize("case", DATA["cases"], ids=[c["expr"] for c in DATA["cases"]])
def test_case_matches_pytorch(case):
    want = {k: v for k, v in case.items() if k not in ("setup", "expr")}
    got = compared(want, describe(run_case(case["setup"], case["expr"], ditto), ditto))
    assert got == want


@pytest.mark.parametrize("name", sorted(DATA["programs"]))
def test_program_prints_what_pytorch_printed(name):
    program = DATA["programs"][name]
    got = run_program(program["code"], ditto).splitlines()
    want = program["output"].splitlines()
    assert got == want


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_programs_do_not_depend_on_the_thread_count(threads):
    before = ditto.get_num_threads()
    ditto.set_num_threads(threads)
    try:
        got = run_program(DATA["programs"]["sgd_groups"]["code"], ditto)
    finally:
        ditto.set_num_threads(before)
    assert got.splitlines() == DATA["programs"]["sgd_groups"]["output"].splitlines()


@pytest.mark.parametrize("case", DATA["errors"], ids=[c["expr"] for c in DATA["errors"]])
def test_bad_call_raises_pytorchs_exception_class(case):
    want = getattr(builtins, case["raises"])
    with pytest.raises(want):
        eval(case["expr"], {"torch": ditto})
