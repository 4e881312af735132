"""Tensor methods PyTorch programs use that are made of table ops, written here once: logical
operators on bool tensors, isnan / isinf / isfinite, all / any, allclose. Each is deterministic
because the ops it runs are (docs/determinism.md)."""
from ditto import _C

Tensor = _C.Tensor


def _bool_operands(a, b):
    if not isinstance(b, Tensor):
        b = _C.tensor(b, dtype=_C.bool) if isinstance(b, bool) else None
    if b is None or a.dtype is not _C.bool or b.dtype is not _C.bool:
        return None
    return b


def _and(a, b):
    b = _bool_operands(a, b)
    if b is None:
        return NotImplemented
    return a * b  # bool * bool is logical and


def _or(a, b):
    b = _bool_operands(a, b)
    if b is None:
        return NotImplemented
    return a + b  # bool + bool is logical or


def _xor(a, b):
    b = _bool_operands(a, b)
    if b is None:
        return NotImplemented
    return a != b


def _invert(a):
    if a.dtype is not _C.bool:
        raise RuntimeError("[bitwise_not] only bool tensors are supported (ditto has no bitwise integer ops yet)")
    return a == False  # noqa: E712


def logical_not(input):
    return input == 0


def logical_and(input, other):
    return (input != 0) * (other != 0)


def logical_or(input, other):
    return (input != 0) + (other != 0)


def isnan(input):
    return input != input


def isinf(input):
    if not input.is_floating_point():
        return _C.zeros_like(input, dtype=_C.bool)
    return input.abs() == float("inf")


def isfinite(input):
    if not input.is_floating_point():
        return _C.ones_like(input, dtype=_C.bool)
    return (input - input) == 0  # inf - inf and NaN - NaN are NaN


def all(input, dim=None, keepdim=False):  # noqa: A001
    nz = input != 0
    if dim is None:
        return nz.sum() == input.numel()
    return nz.sum(dim, keepdim) == (input.size(dim) if input.dim() else 1)


def any(input, dim=None, keepdim=False):  # noqa: A001
    nz = input != 0
    if dim is None:
        return nz.sum() > 0
    return nz.sum(dim, keepdim) > 0


def fill(input, value):
    """torch.fill: a new tensor of input's shape and dtype holding value; input gets a zero gradient."""
    return _C.where(_C.ones_like(input, dtype=_C.bool), _C.full_like(input, value), input)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    close = (input - other).abs() <= atol + rtol * other.abs()
    if equal_nan:
        close = close + isnan(input) * isnan(other)
    return _C.equal(close, _C.ones_like(close, dtype=_C.bool)) if close.numel() else True


Tensor.__and__ = _and
Tensor.__rand__ = _and
Tensor.__or__ = _or
Tensor.__ror__ = _or
Tensor.__xor__ = _xor
Tensor.__rxor__ = _xor
Tensor.__invert__ = _invert
for _name in ("logical_not", "logical_and", "logical_or", "isnan", "isinf", "isfinite", "all", "any", "allclose", "fill"):
    setattr(Tensor, _name, globals()[_name])
