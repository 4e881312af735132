"""Deterministic mode from Python: PyTorch's functions, argument checks, exception types and
texts (docs/spec/pytorch-determinism.md sections 1.1, 1.2, 2), warnings through warnings.warn."""
import warnings

import pytest

import ditto
import ditto.utils.deterministic
from ditto import nn

REFUSAL = (
    "max_unpooling2d_forward_out does not have a deterministic implementation, but you set "
    "'ditto.use_deterministic_algorithms(True)'. You can turn off determinism just for this operation, or you "
    "can use the 'warn_only=True' option, if that's acceptable for your application."
)
ALERT = (
    "max_unpooling2d_forward_out does not have a deterministic implementation, but you set "
    "'ditto.use_deterministic_algorithms(True, warn_only=True)'."
)


@pytest.fixture(autouse=True)
def restore_mode():
    yield
    ditto.use_deterministic_algorithms(False)
    ditto.utils.deterministic.fill_uninitialized_memory = True


def unpool():
    pooled, indices = nn.MaxPool2d(2, return_indices=True)(ditto.ones(1, 1, 4, 4))
    return nn.MaxUnpool2d(2)(pooled, indices, output_size=(1, 1, 4, 4))


def test_switch_and_queries():
    assert not ditto.are_deterministic_algorithms_enabled()
    ditto.use_deterministic_algorithms(True)
    assert ditto.are_deterministic_algorithms_enabled()
    assert not ditto.is_deterministic_algorithms_warn_only_enabled()
    ditto.use_deterministic_algorithms(True, warn_only=True)
    assert ditto.is_deterministic_algorithms_warn_only_enabled()
    ditto.use_deterministic_algorithms(False, warn_only=True)  # accepted; warn_only stored
    assert not ditto.are_deterministic_algorithms_enabled()
    assert ditto.is_deterministic_algorithms_warn_only_enabled()
    assert ditto.get_deterministic_debug_mode() == 0


def test_argument_checks_are_pytorchs():
    with pytest.raises(TypeError, match=r"^_set_deterministic_algorithms\(\): argument 'mode' \(position 1\) must be bool, not int$"):
        ditto.use_deterministic_algorithms(1)
    with pytest.raises(TypeError, match=r"^_set_deterministic_algorithms\(\): argument 'warn_only' must be bool, not int$"):
        ditto.use_deterministic_algorithms(True, warn_only=1)
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        ditto.use_deterministic_algorithms(True, True)


@pytest.mark.parametrize(
    "value, mode, warn_only, level",
    [("default", False, False, 0), (0, False, False, 0), ("warn", True, True, 1), (1, True, True, 1),
     ("error", True, False, 2), (2, True, False, 2), (True, True, True, 1), (False, False, False, 0)],
)  # fmt: skip
def test_debug_mode_mapping(value, mode, warn_only, level):
    ditto.set_deterministic_debug_mode(value)
    assert ditto.are_deterministic_algorithms_enabled() is mode
    assert ditto.is_deterministic_algorithms_warn_only_enabled() is warn_only
    assert ditto.get_deterministic_debug_mode() == level


def test_debug_mode_errors():
    with pytest.raises(TypeError, match=r"^debug_mode must be str or int, but got <class 'float'>$"):
        ditto.set_deterministic_debug_mode(1.0)
    with pytest.raises(RuntimeError, match=r"^invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got WARN$"):
        ditto.set_deterministic_debug_mode("WARN")
    with pytest.raises(RuntimeError, match=r"^invalid value of debug_mode, expected 0, 1, or 2, but got 3$"):
        ditto.set_deterministic_debug_mode(3)


def test_fill_uninitialized_memory_is_a_bool_property():
    d = ditto.utils.deterministic
    assert d.fill_uninitialized_memory is True
    ditto.use_deterministic_algorithms(True)
    assert all(v != v for v in ditto.empty(3).tolist())  # NaN
    assert ditto.empty(2, dtype=ditto.int64).tolist() == [2**63 - 1] * 2
    d.fill_uninitialized_memory = False
    assert d.fill_uninitialized_memory is False
    with pytest.raises(RuntimeError, match="^expected a bool, but got int$"):
        d.fill_uninitialized_memory = 1


def test_refusal_is_a_runtime_error_with_pytorchs_sentence():
    ditto.use_deterministic_algorithms(True)
    with pytest.raises(RuntimeError) as e:
        unpool()
    assert isinstance(e.value, ditto.NondeterministicError)
    assert str(e.value) == REFUSAL
    # other errors are plain RuntimeErrors naming the op
    with pytest.raises(RuntimeError, match=r"^\[mm\]") as e2:
        ditto.mm(ditto.ones(2, 3), ditto.ones(2, 3))
    assert not isinstance(e2.value, ditto.NondeterministicError)


def test_warn_only_is_a_user_warning_for_every_call_under_always():
    ditto.use_deterministic_algorithms(True, warn_only=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for _ in range(3):
            out = unpool()
    assert tuple(out.shape) == (1, 1, 4, 4)
    assert len(w) == 3
    assert all(r.category is UserWarning and str(r.message) == ALERT for r in w)


def test_warn_only_default_filter_shows_one_per_location():
    ditto.use_deterministic_algorithms(True, warn_only=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("default")
        for _ in range(3):
            unpool()
    assert len(w) == 1


def test_warning_as_error_raises_from_the_op():
    ditto.use_deterministic_algorithms(True, warn_only=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="max_unpooling2d_forward_out"):
            unpool()


def test_allow_nondeterministic_exempts_a_named_op_in_its_scope():
    ditto.use_deterministic_algorithms(True)
    with ditto.allow_nondeterministic("max_unpooling2d_forward_out"):
        assert tuple(unpool().shape) == (1, 1, 4, 4)
    with pytest.raises(ditto.NondeterministicError):
        unpool()
    with pytest.raises(RuntimeError, match="unknown|not an op|no op"):
        ditto.allow_nondeterministic("no_such_op").__enter__()
