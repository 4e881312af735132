"""The Python forms of the selection ops against PyTorch 1.13: where(condition), nonzero(as_tuple=),
repeat_interleave(repeats) alone and with output_size, the in-place masked_scatter_ and index_fill_
(returning self), Tensor methods. The OpInfo sweep compares the rest, bit for bit."""
import numpy as np
import pytest

import ditto

real = pytest.importorskip("torch")


def D(t):
    return ditto.from_numpy(t.numpy().copy())


def same(a, b):
    a, b = a.numpy(), b.numpy()
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_where_and_nonzero_forms():
    x = real.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    assert all(same(a, b) for a, b in zip(ditto.where(D(x)), real.where(x)))
    assert all(same(a, b) for a, b in zip(ditto.nonzero(D(x), as_tuple=True), real.nonzero(x, as_tuple=True)))
    assert same(D(x).nonzero(), x.nonzero()) and same(ditto.argwhere(D(x)), real.argwhere(x))
    assert isinstance(ditto.where(D(x)), tuple) and len(ditto.nonzero(ditto.tensor(2.0), as_tuple=True)) == 1


def test_repeat_interleave_forms():
    r = real.tensor([3, 0, 2])
    assert same(ditto.repeat_interleave(D(r)), real.repeat_interleave(r))
    x = real.arange(6.0).view(2, 3)
    assert same(ditto.repeat_interleave(D(x), 2, dim=1, output_size=6), real.repeat_interleave(x, 2, dim=1, output_size=6))
    assert same(D(x).repeat_interleave(D(real.tensor([1, 3])), dim=0), x.repeat_interleave(real.tensor([1, 3]), dim=0))


def test_in_place_forms_return_self():
    x = real.zeros(2, 3)
    d = D(x)
    mask = real.tensor([[True, False, True], [False, True, False]])
    assert d.masked_scatter_(D(mask), ditto.tensor([1.0, 2.0, 3.0])) is d
    assert same(d, x.masked_scatter_(mask, real.tensor([1.0, 2.0, 3.0])))
    assert d.index_fill_(1, ditto.tensor([2]), 7.0) is d
    assert same(d, x.index_fill_(1, real.tensor([2]), 7.0))
    assert same(d.index_fill(0, ditto.tensor(0), ditto.tensor(-1.0)), x.index_fill(0, real.tensor(0), real.tensor(-1.0)))
    assert same(d.take(ditto.tensor([5, -6])), x.take(real.tensor([5, -6])))
    assert same(d.masked_select(D(mask)), x.masked_select(mask))
    assert same(ditto.take_along_dim(d, ditto.tensor([[1], [0]]), dim=1), real.take_along_dim(x, real.tensor([[1], [0]]), dim=1))
