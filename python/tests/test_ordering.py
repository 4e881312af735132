"""Ordering ops against PyTorch 1.13 (Debian's python3-torch) where ties and NaNs make the index
choice part of the result (Note [Ordering ties]): sort without stable, topk on both of its paths,
kthvalue, median and nanmedian; random lines with few distinct values, along either dim. Every
value and index must be PyTorch's, bit for bit, and the same at 1 and 3 threads."""
import numpy as np
import pytest

import ditto

real = pytest.importorskip("torch")


def from_torch(t):
    return ditto.from_numpy(t.numpy().copy())


def same(a, b):
    a, b = np.atleast_1d(a.numpy()), np.atleast_1d(b.numpy())
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def cases():
    g = real.Generator().manual_seed(7)
    for trial in range(60):
        n = int(real.randint(1, 400, (1,), generator=g))
        distinct = int(real.randint(1, 12, (1,), generator=g))
        dtype = [real.float32, real.float64, real.int64][trial % 3]
        x = real.randint(0, distinct, (3, n), generator=g).to(dtype)
        if dtype.is_floating_point and trial % 2 == 0:
            x[x == 1] = float("nan")
        dim = trial % 2
        if dim == 0:
            x = x.t().contiguous()
        k = int(real.randint(1, n + 1, (1,), generator=g))
        if trial % 4 == 0:
            k = max(1, n // 64)  # topk's partial_sort path
        yield x, dim, k


@pytest.mark.parametrize("threads", [1, 3])
def test_index_choices_among_ties_are_pytorchs(threads):
    saved = ditto.get_num_threads()
    ditto.set_num_threads(threads)
    try:
        for x, dim, k in cases():
            dx = from_torch(x)
            for descending in (False, True):
                for stable in (False, True):
                    want = real.sort(x, dim=dim, descending=descending, stable=stable)
                    got = ditto.sort(dx, dim=dim, descending=descending, stable=stable)
                    assert same(got.values, want.values) and same(got.indices, want.indices), (x.shape, dim, descending, stable)
            for largest in (True, False):
                for sorted_ in (True, False):
                    want, got = real.topk(x, k, dim, largest, sorted_), ditto.topk(dx, k, dim, largest, sorted_)
                    assert same(got.values, want.values) and same(got.indices, want.indices), (x.shape, k, largest, sorted_)
            want, got = real.kthvalue(x, k, dim), ditto.kthvalue(dx, k, dim)
            assert same(got.values, want.values) and same(got.indices, want.indices), (x.shape, k)
            for name in ("median", "nanmedian"):
                want, got = getattr(real, name)(x, dim), getattr(ditto, name)(dx, dim)
                assert same(got.values, want.values) and same(got.indices, want.indices), (name, x.shape)
                assert same(getattr(ditto, name)(dx), getattr(real, name)(x)), name
    finally:
        ditto.set_num_threads(saved)


def test_a_line_of_nans_gives_pytorchs_nanmedian_index():
    x = real.full((100,), float("nan"))
    want, got = real.nanmedian(x, 0), ditto.nanmedian(from_torch(x), 0)
    assert got.indices.item() == want.indices.item()  # std::nth_element's pick, not 0


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_and_bucketize_are_pytorchs(right):
    g = real.Generator().manual_seed(11)
    for trial in range(30):
        dtype = [real.float32, real.float64, real.int64][trial % 3]
        seq = real.randint(0, 20, (3, int(real.randint(0, 50, (1,), generator=g))), generator=g).to(dtype)
        seq = real.sort(seq).values
        vals = real.randint(-2, 22, (3, 17), generator=g).to(dtype)
        if dtype.is_floating_point:
            vals[0, 0] = float("nan")
        for s, v in ((seq, vals), (seq[0], vals), (seq[1], vals[1, 3])):
            want = real.searchsorted(s, v, right=right)
            got = ditto.searchsorted(from_torch(s), from_torch(v), right=right)
            assert same(got, want), (s.shape, v.shape)
        want = real.bucketize(vals, seq[2], right=right, out_int32=True)
        assert same(ditto.bucketize(from_torch(vals), from_torch(seq[2]), right=right, out_int32=True), want)
        perm = real.randperm(seq.shape[1], generator=g)
        shuffled, sorter = seq[:, perm], real.argsort(perm).expand(3, -1).contiguous()
        want = real.searchsorted(shuffled, vals, sorter=sorter, right=right)
        got = ditto.searchsorted(from_torch(shuffled), from_torch(vals), sorter=from_torch(sorter), right=right)
        assert same(got, want)


def test_mode_and_unique_are_pytorchs():
    # mode: PyTorch's sort of (value, index) pairs, so its index among ties; unique: sorted, PyTorch
    # 1.13's hash-set order (sorted=False), along a dim, consecutive; every output bit for bit
    g = real.Generator().manual_seed(3)
    for trial in range(150):
        n = int(real.randint(1, 60, (1,), generator=g))
        distinct = int(real.randint(1, 8, (1,), generator=g))
        dtype = [real.float32, real.float64, real.int64, real.int32, real.bool][trial % 5]
        x = real.randint(0, distinct, (3, n), generator=g).to(dtype)
        if trial % 2:
            x = x.t().contiguous()
        dx = from_torch(x)
        for dim in (0, 1):
            want, got = real.mode(x, dim), ditto.mode(dx, dim)
            assert same(got.values, want.values) and same(got.indices, want.indices), (x.shape, dim)
        for sorted_ in (True, False):
            want = real.unique(x, sorted=sorted_, return_inverse=True, return_counts=True)
            got = ditto.unique(dx, sorted=sorted_, return_inverse=True, return_counts=True)
            assert all(same(a, b) for a, b in zip(got, want)), (x, sorted_)
        for dim in (None, 0, 1):
            want = real.unique_consecutive(x, return_inverse=True, return_counts=True, dim=dim)
            got = ditto.unique_consecutive(dx, return_inverse=True, return_counts=True, dim=dim)
            assert all(same(a, b) for a, b in zip(got, want)), (x, dim)
            if dim is not None:
                want = real.unique(x, return_inverse=True, return_counts=True, dim=dim)
                got = ditto.unique(dx, return_inverse=True, return_counts=True, dim=dim)
                assert all(same(a, b) for a, b in zip(got, want)), (x, dim)
    assert isinstance(ditto.unique(ditto.tensor([2, 1, 2])), ditto.Tensor)
    assert len(ditto.unique(ditto.tensor([2, 1, 2]), return_counts=True)) == 2
