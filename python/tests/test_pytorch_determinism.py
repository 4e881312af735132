"""PyTorch's own tests of deterministic mode (test/test_torch.py and test_scatter_gather_ops.py, as
docs/spec/pytorch-determinism.md section 4 describes them), written again against ditto, for the
CPU and for the ops ditto has. Where ditto deliberately differs (put_ without accumulate has a
deterministic kernel, so it is not refused) the test says so."""
import contextlib
import math
import random
import re
import warnings

import numpy as np
import pytest

import ditto as torch
from ditto import nn

DTYPES = [torch.float32, torch.float64, torch.int64, torch.int32, torch.bool]


@contextlib.contextmanager
def DeterministicGuard(deterministic, *, warn_only=False, fill_uninitialized_memory=True):  # noqa: N802
    """Sets the mode, warn_only and fill_uninitialized_memory; restores all three."""
    d = torch.utils.deterministic
    saved = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled(),
             d.fill_uninitialized_memory)  # fmt: skip
    torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
    d.fill_uninitialized_memory = fill_uninitialized_memory
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(saved[0], warn_only=saved[1])
        d.fill_uninitialized_memory = saved[2]


def check_nondeterministic_alert(fn, caller_name, should_alert=True):
    pattern = "^" + re.escape(caller_name) + " does not have a deterministic implementation, but you set"
    with DeterministicGuard(True):
        if should_alert:
            with pytest.raises(RuntimeError, match=pattern):
                fn()
        else:
            try:
                fn()
            except RuntimeError as e:
                assert "does not have a deterministic implementation" not in str(e)
    with DeterministicGuard(True, warn_only=True):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn()
        matching = [r for r in w if r.category is UserWarning and re.search(pattern, str(r.message))]
        assert bool(matching) == should_alert, [str(r.message) for r in w]


def test_deterministic_flag():
    with DeterministicGuard(False):
        for mode in (True, False):
            torch.use_deterministic_algorithms(mode)
            assert torch.are_deterministic_algorithms_enabled() is mode
        with pytest.raises(TypeError, match=r"_set_deterministic_algorithms\(\): argument 'mode' \(position 1\)"):
            torch.use_deterministic_algorithms(1)
        for value, mode, warn_only in [(0, False, False), (1, True, True), (2, True, False),
                                       ("default", False, False), ("warn", True, True), ("error", True, False)]:  # fmt: skip
            torch.set_deterministic_debug_mode(value)
            assert torch.are_deterministic_algorithms_enabled() is mode
            assert torch.is_deterministic_algorithms_warn_only_enabled() is warn_only


def filled(values, dtype):
    if dtype.is_floating_point:
        return all(v != v for v in values)
    if dtype is torch.bool:
        return all(v is True for v in values)
    return all(v == (2**31 - 1 if dtype is torch.int32 else 2**63 - 1) for v in values)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_deterministic_empty(dtype):
    with DeterministicGuard(True, fill_uninitialized_memory=True):
        made = [torch.empty(10, 9, dtype=dtype), torch.empty_like(torch.zeros(10, 9, dtype=dtype)),
                torch.empty_strided((10, 9), (1, 5), dtype=dtype)]  # fmt: skip
    for t in made:
        assert filled(t.reshape(-1).tolist(), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("size, new", [((0,), (10,)), ((5,), (10,)), ((10,), (5,)), ((2, 3), (4, 3)), ((4,), (4,))])
def test_deterministic_resize(dtype, size, new):
    t = torch.zeros(*size, dtype=dtype)
    old = t.reshape(-1).tolist()
    with DeterministicGuard(True, fill_uninitialized_memory=True):
        t.resize_(*new)
    got = t.reshape(-1).tolist()
    assert got[: min(len(old), len(got))] == old[: len(got)]
    assert filled(got[len(old):], dtype)


@pytest.mark.parametrize("cls, shape, name", [(nn.MaxUnpool1d, (1, 1, 7), "max_unpooling2d_forward_out"),
                                              (nn.MaxUnpool2d, (1, 1, 7, 7), "max_unpooling2d_forward_out"),
                                              (nn.MaxUnpool3d, (1, 1, 7, 7, 7), "max_unpooling3d_forward_out")])  # fmt: skip
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_nondeterministic_alert_MaxUnpool(cls, shape, name, dtype):  # noqa: N802
    module = cls(3, 1)
    x = torch.randn(*shape, dtype=dtype)
    idx = torch.zeros(*shape, dtype=torch.int64)
    check_nondeterministic_alert(lambda: module(x, idx), name)


def test_no_alert_AdaptiveAvgPool2d_backward():  # noqa: N802
    # PyTorch alerts for it on CUDA only; ditto's backward is deterministic everywhere.
    module = nn.AdaptiveAvgPool2d(3)
    x = torch.randn(2, 3, 3, requires_grad=True)

    def fn():
        module(x).sum().backward()

    check_nondeterministic_alert(fn, "adaptive_avg_pool2d_backward_cuda", should_alert=False)


def test_no_alert_NLLLoss_2d():  # noqa: N802
    x = torch.randn(2, 3, 5, 5)
    target = torch.randint(0, 3, (2, 5, 5))
    check_nondeterministic_alert(lambda: nn.NLLLoss()(x, target), "nll_loss2d_forward_out_cuda_template",
                                 should_alert=False)  # fmt: skip


def test_put_is_not_refused():
    # PyTorch refuses put_(accumulate=False) on every device. ditto's kernel is deterministic
    # (the last write of a duplicate index wins, in index order), so deterministic mode runs it.
    a = torch.randn(10)
    indices = torch.tensor([0, 0])
    values = torch.tensor([0.0, 1.0])
    check_nondeterministic_alert(lambda: a.put_(indices, values, accumulate=False), "put_", should_alert=False)
    check_nondeterministic_alert(lambda: a.put(indices, values, accumulate=False), "put_", should_alert=False)
    with DeterministicGuard(True):
        assert a.put(indices, values)[0].item() == 1.0


def test_no_alert_put_accumulate():
    a = torch.randn(10)
    check_nondeterministic_alert(lambda: a.put_(torch.tensor([0, 0]), torch.tensor([0.0, 1.0]), accumulate=True),
                                 "put_", should_alert=False)  # fmt: skip


@pytest.mark.parametrize("mode", [False, True])
def test_gather_backward_deterministic_path(mode):
    rng = random.Random(0)
    m = rng.randint(2000, 3000)
    elems = rng.randint(10 * m, 20 * m)
    idx_list = [rng.randrange(m) for _ in range(elems)]
    w_list = [rng.random() * 1e6 for _ in range(elems)]
    src = torch.zeros(m, requires_grad=True)
    weights = torch.tensor(w_list)
    with DeterministicGuard(mode):
        src.gather(0, torch.tensor(idx_list)).backward(weights)
    # a sequential accumulation in index order, in float32 as the gradient is
    acc = np.zeros(m, dtype=np.float32)
    for i, w in zip(idx_list, np.asarray(w_list, dtype=np.float32)):
        acc[i] = np.float32(acc[i] + w)
    assert torch.equal(src.grad, torch.from_numpy(acc))


def test_scatter_add_one_dim_deterministic():
    rng = random.Random(1)
    m = rng.randint(20, 30)
    elems = rng.randint(2000 * m, 3000 * m)
    idx = torch.tensor([rng.randrange(m) for _ in range(elems)])
    src = torch.rand(elems)
    with DeterministicGuard(True):
        first = torch.zeros(m).scatter_add(0, idx, src)
        for _ in range(4):
            assert torch.equal(torch.zeros(m).scatter_add(0, idx, src), first)
    seq = [0.0] * m
    for i, v in zip(idx.tolist(), src.tolist()):
        seq[i] += v
    assert all(math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-4) for a, b in zip(first.tolist(), seq))


@pytest.mark.parametrize("mode", [False, True])
def test_scatter_add_mult_index_base(mode):
    with DeterministicGuard(mode):
        for dim, n in ((0, 30), (1, 40)):
            out = torch.zeros(30, 40).scatter_add(dim, torch.zeros(30, 40, dtype=torch.int64), torch.ones(30, 40))
            row = out[0] if dim == 0 else out[:, 0]
            assert row.tolist() == [float(n)] * (40 if dim == 0 else 30)


def test_scatter_add_broadcasted_index_deterministic():
    idx = torch.tensor([0, 1, 1, 0]).reshape(4, 1).expand(4, 5)
    src = torch.rand(4, 5)
    with DeterministicGuard(False):
        off = torch.zeros(2, 5).scatter_add(0, idx, src)
    with DeterministicGuard(True):
        on = torch.zeros(2, 5).scatter_add(0, idx, src)
    assert torch.equal(on, off)


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin"])
def test_scatter_reduce_same_with_the_mode_on_and_off(reduce):
    torch.manual_seed(2)
    idx = torch.randint(0, 7, (500,))
    src = torch.randn(500)
    with DeterministicGuard(False):
        off = torch.zeros(7).scatter_reduce(0, idx, src, reduce)
    with DeterministicGuard(True):
        on = torch.zeros(7).scatter_reduce(0, idx, src, reduce)
    assert torch.equal(on, off)


def test_no_alert_cumsum():
    # test_nondeterministic_alert_cumsum: PyTorch alerts for cumsum on CUDA only; ditto's scans are
    # deterministic everywhere, forward and backward, with the mode on or off.
    x = torch.randn(10, 20, requires_grad=True)

    def fn():
        torch.cumsum(x, 1).sum().backward()
        torch.cumprod(x, 0).sum().backward()

    check_nondeterministic_alert(fn, "cumsum_cuda_kernel", should_alert=False)


def test_no_alert_histc():
    # test_nondeterministic_alert_histc: PyTorch alerts on CUDA only ("_histc_cuda_with_counts")
    x = torch.tensor([1.0, 2.0, 2.5, 7.0])
    check_nondeterministic_alert(lambda: torch.histc(x, 4), "_histc_cuda", should_alert=False)


def test_no_alert_bincount():
    # test_nondeterministic_alert_bincount: PyTorch alerts on CUDA when weights are given
    x = torch.tensor([0, 1, 1, 3])
    w = torch.tensor([0.5, 1.0, 2.0, 4.0])
    check_nondeterministic_alert(lambda: torch.bincount(x, w), "_bincount_cuda", should_alert=False)


def test_no_alert_median_kthvalue():
    # test_nondeterministic_alert_{median,kthvalue}: CUDA-only alerts, forward and backward
    x = torch.randn(6, 7, requires_grad=True)

    def fn():
        torch.median(x, 1).values.sum().backward()
        torch.kthvalue(x, 3, 0).values.sum().backward()

    check_nondeterministic_alert(fn, "median CUDA with indices output", should_alert=False)
    check_nondeterministic_alert(fn, "kthvalue CUDA", should_alert=False)


def test_no_alert_CTCLoss():  # noqa: N802
    # test_nondeterministic_alert_CTCLoss: PyTorch alerts for the CUDA backward only
    # ("ctc_loss_backward_gpu"); ditto's backward is one task per item, forward and backward
    x = torch.randn(50, 3, 15).log_softmax(2).detach().requires_grad_()
    targets = torch.randint(1, 15, (3, 30))
    loss = nn.CTCLoss(reduction="none")(x, targets, torch.tensor([50, 50, 40]), torch.tensor([30, 25, 20]))
    grad = torch.ones_like(loss)
    check_nondeterministic_alert(lambda: loss.backward(grad, retain_graph=True), "ctc_loss_backward_gpu",
                                 should_alert=False)


def test_no_alert_EmbeddingBag_max():  # noqa: N802
    # test_nondeterministic_alert_EmbeddingBag_max: CUDA only ("embedding_bag_backward_cuda_max");
    # ditto's max bags gather each bag's first maximum and sum the rows in index order
    module = nn.EmbeddingBag(4, 3, None, 2.0, False, "max", _weight=torch.randn(4, 3, requires_grad=True))
    res = module(torch.randint(0, 4, (3, 3)))
    grad = torch.randn_like(res)
    check_nondeterministic_alert(lambda: res.backward(grad, retain_graph=True), "embedding_bag_backward_cuda_max",
                                 should_alert=False)


@pytest.mark.parametrize("op", ["histc", "bincount"])
def test_counts_repeat_bit_for_bit_at_every_thread_count_and_match_pytorch(op):
    real = pytest.importorskip("torch")
    g = real.Generator().manual_seed(5)
    x = real.randn(1 << 18, generator=g)
    ints = real.randint(0, 1000, (1 << 18,), generator=g)
    w = real.rand(1 << 18, generator=g)
    saved = torch.get_num_threads()
    results = []
    for threads in (1, 2, 3):
        torch.set_num_threads(threads)
        with DeterministicGuard(True):
            if op == "histc":
                y = torch.histc(torch.from_numpy(x.numpy().copy()), 77, -2.5, 3.0)
            else:
                y = torch.bincount(torch.from_numpy(ints.numpy().copy()), torch.from_numpy(w.numpy().copy()))
        results.append(y.numpy().tobytes())
    torch.set_num_threads(saved)
    assert all(r == results[0] for r in results)
    want = real.histc(x, 77, -2.5, 3.0) if op == "histc" else real.bincount(ints, w)
    assert results[0] == want.numpy().tobytes()


@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"])
def test_scans_repeat_bit_for_bit_at_every_thread_count_and_match_pytorch(op):
    real = pytest.importorskip("torch")  # Debian's python3-torch, installed by scripts/test.sh
    torch.manual_seed(3)
    x = torch.rand(64, 3000) + 0.5
    g = torch.randn(64, 3000)
    first = op in ("cummax", "cummin")  # these return (values, indices)
    saved = torch.get_num_threads()
    results = []
    for threads in (1, 2, 3):
        torch.set_num_threads(threads)
        with DeterministicGuard(True):
            leaf = x.detach().requires_grad_()
            y = getattr(torch, op)(leaf, 1)
            (y[0] if first else y).backward(g)
        results.append(((y[0] if first else y).detach().numpy().tobytes(), leaf.grad.numpy().tobytes()))
    torch.set_num_threads(saved)
    assert all(r == results[0] for r in results)
    rx = real.from_numpy(x.numpy().copy()).requires_grad_()
    ry = getattr(real, op)(rx, 1)
    (ry[0] if first else ry).backward(real.from_numpy(g.numpy().copy()))
    want = (ry[0] if first else ry).detach()
    got_grad = real.from_numpy(np.frombuffer(results[0][1], dtype=np.float32).reshape(64, 3000).copy())
    if op == "logcumsumexp":  # ditto's own exp and log1p, PyTorch's the libm's: within their rounding
        got = real.from_numpy(np.frombuffer(results[0][0], dtype=np.float32).reshape(64, 3000).copy())
        real.testing.assert_close(got, want)
        real.testing.assert_close(got_grad, rx.grad)
        return
    assert results[0][0] == want.numpy().tobytes()  # the forward: PyTorch's bits
    if op != "cumprod":
        assert results[0][1] == rx.grad.numpy().tobytes()  # and the backward too
    else:
        real.testing.assert_close(got_grad, rx.grad)


# test_torch.py's alert tests for padding and upsampling: PyTorch alerts for their backward on CUDA
# only; ditto's is deterministic everywhere, so none alerts, and the result repeats bit for bit.
def _backward_twice(fn, x):
    grads = []
    for _ in range(2):
        x.grad = None
        fn(x).sum().backward()
        grads.append(x.grad.clone())
    assert torch.equal(grads[0], grads[1])


@pytest.mark.parametrize("module,shape,name", [
    (nn.ReflectionPad1d((1, 2)), (2, 3, 8), "reflection_pad1d_backward_cuda"),
    (nn.ReflectionPad2d((1, 2, 3, 4)), (2, 3, 8, 8), "reflection_pad2d_backward_cuda"),
    (nn.ReflectionPad3d((1, 2, 3, 4, 5, 6)), (2, 3, 8, 8, 8), "reflection_pad3d_backward_out_cuda"),
    (nn.ReplicationPad1d((1, 2)), (2, 3, 4), "replication_pad1d_backward_cuda"),
    (nn.ReplicationPad2d((1, 2, 3, 4)), (2, 3, 4, 4), "replication_pad2d_backward_cuda"),
    (nn.ReplicationPad3d((1, 2, 3, 4, 5, 6)), (2, 3, 4, 4, 4), "replication_pad3d_backward_cuda"),
])  # fmt: skip
def test_no_alert_padding_backward(module, shape, name):
    x = torch.randn(*shape, requires_grad=True)
    check_nondeterministic_alert(lambda: module(x).sum().backward(), name, should_alert=False)
    with DeterministicGuard(True):
        _backward_twice(module, x)


@pytest.mark.parametrize("mode,shape,name", [
    ("linear", (2, 3, 4), "upsample_linear1d_backward_out_cuda"),
    ("bilinear", (2, 3, 4, 4), "upsample_bilinear2d_backward_out_cuda"),
    ("bicubic", (2, 3, 4, 4), "upsample_bicubic2d_backward_out_cuda"),
    ("trilinear", (2, 3, 4, 4, 4), "upsample_trilinear3d_backward_out_cuda"),
])  # fmt: skip
def test_no_alert_interpolate_backward(mode, shape, name):
    x = torch.randn(*shape, requires_grad=True)

    def fn(t):
        return nn.functional.interpolate(t, scale_factor=1.7, mode=mode, align_corners=False)

    check_nondeterministic_alert(lambda: fn(x).sum().backward(), name, should_alert=False)
    with DeterministicGuard(True):
        _backward_twice(fn, x)


# test_torch.py's alert tests for pooling: PyTorch alerts for (or switches) these backwards on CUDA
# only; ditto's are deterministic everywhere, so none alerts, and the gradient repeats bit for bit.
@pytest.mark.parametrize("make,shape,name", [
    (lambda: nn.AvgPool3d(3), (2, 3, 3, 3, 3), "avg_pool3d_backward_cuda"),
    (lambda: nn.AdaptiveAvgPool3d(3), (2, 3, 3, 3, 3), "adaptive_avg_pool3d_backward_cuda"),
    (lambda: nn.MaxPool3d(3), (2, 3, 3, 3, 3), "max_pool3d_with_indices_backward_cuda"),
    (lambda: nn.AdaptiveMaxPool2d(3), (2, 3, 3), "adaptive_max_pool2d_backward_cuda"),
    (lambda: nn.FractionalMaxPool2d(2, output_ratio=0.5), (2, 3, 3, 3), "fractional_max_pool2d_backward_cuda"),
    (lambda: nn.FractionalMaxPool3d(2, output_ratio=0.5), (2, 3, 2, 2, 2), "fractional_max_pool3d_backward_cuda"),
])  # fmt: skip
def test_no_alert_pooling_backward(make, shape, name):
    module = make()
    x = torch.randn(*shape, requires_grad=True)
    check_nondeterministic_alert(lambda: module(x).sum().backward(), name, should_alert=False)
    with DeterministicGuard(True):
        grads = []
        for _ in range(2):
            torch.manual_seed(3)  # fractional pooling draws its windows: the same draw each time
            x.grad = None
            module(x).sum().backward()
            grads.append(x.grad.clone())
        assert torch.equal(grads[0], grads[1])


# test_torch.py's grid_sample alert tests: PyTorch alerts for its CUDA backward; ditto's adds each
# input-gradient plane on one thread, so none alerts and the gradients repeat bit for bit.
@pytest.mark.parametrize("dims,name", [(2, "grid_sampler_2d_backward_cuda"), (3, "grid_sampler_3d_backward_cuda")])
def test_no_alert_grid_sample_backward(dims, name):
    shape = (2, 3) + (4,) * dims
    x = torch.randn(*shape, requires_grad=True)
    grid = torch.randn(2, *((5,) * dims), dims, requires_grad=True)

    def fn():
        torch.nn.functional.grid_sample(x, grid, align_corners=False).sum().backward()

    check_nondeterministic_alert(fn, name, should_alert=False)
    with DeterministicGuard(True):
        grads = []
        for _ in range(2):
            x.grad = None
            grid.grad = None
            fn()
            grads.append((x.grad.clone(), grid.grad.clone()))
        assert torch.equal(grads[0][0], grads[1][0]) and torch.equal(grads[0][1], grads[1][1])
