"""ctc_loss and nn.CTCLoss against PyTorch 1.13 (Debian's python3-torch): random batches with ragged
input and target lengths, every blank position, padded and concatenated targets, every reduction,
with and without zero_infinity, losses and gradients, float32 and float64; and the same bits at 1 and
3 threads. Tolerances: what ditto's exp and log (dmath) and PyTorch's (libm) differ by, measured
over these cases (float64 losses 2.3e-16 relative, float32 2.1e-7; gradients 8.2e-14 and 7.3e-5
absolute, as exp(sum + nll - lp) magnifies the rounding of sums near 100)."""
import numpy as np
import pytest

import ditto

real = pytest.importorskip("torch")

LOSS_RTOL = {real.float32: 1e-6, real.float64: 1e-14}
GRAD_ATOL = {real.float32: 3e-4, real.float64: 1e-12}


def D(t):
    return ditto.from_numpy(t.detach().numpy().copy())


def cases():
    g = real.Generator().manual_seed(1)
    for trial in range(24):
        T = int(real.randint(1, 120, (1,), generator=g))
        N = int(real.randint(1, 6, (1,), generator=g))
        C = int(real.randint(2, 30, (1,), generator=g))
        dtype = [real.float32, real.float64][trial % 2]
        S = int(real.randint(0, max(1, T // 2), (1,), generator=g))
        blank = int(real.randint(0, C, (1,), generator=g))
        x = real.randn(T, N, C, dtype=dtype, generator=g)
        targets = real.randint(0, C - 1, (N, max(S, 1)), generator=g)
        targets[targets >= blank] += 1  # labels other than the blank
        # at least one step each: PyTorch 1.13 reads outside log_alpha for an empty input
        il = real.randint(1, T + 1, (N,), generator=g)
        il[0] = T
        tl = real.randint(0, S + 1, (N,), generator=g)
        if trial % 3 == 1:  # concatenated targets
            targets = real.cat([targets[b, : tl[b]] for b in range(N)])
        yield trial, x, targets, il, tl, blank


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_losses_and_gradients_are_pytorchs(reduction, zero_infinity):
    g = real.Generator().manual_seed(2)
    for trial, x, targets, il, tl, blank in cases():
        xt = x.clone().requires_grad_()
        want = real.nn.functional.ctc_loss(xt.log_softmax(2), targets, il, tl, blank, reduction, zero_infinity)
        xd = D(x).requires_grad_()
        lengths = (D(il), D(tl)) if trial % 2 else (il.tolist(), tl.tolist())
        got = ditto.nn.functional.ctc_loss(xd.log_softmax(2), D(targets), *lengths, blank, reduction, zero_infinity)
        a, b = got.detach().numpy(), want.detach().numpy()
        assert a.shape == b.shape and a.dtype == b.dtype
        assert (np.isinf(a) == np.isinf(b)).all(), (trial, a, b)
        np.testing.assert_allclose(a[np.isfinite(b)], b[np.isfinite(b)], rtol=LOSS_RTOL[x.dtype], atol=0)
        if np.isfinite(b).all():
            up = real.randn(want.shape, dtype=x.dtype, generator=g)
            want.backward(up)
            got.backward(D(up))
            np.testing.assert_allclose(xd.grad.numpy(), xt.grad.numpy(), rtol=0, atol=GRAD_ATOL[x.dtype])


def test_module_unbatched_and_int32_targets():
    x = real.randn(20, 7, dtype=real.float64).log_softmax(1)
    targets = real.tensor([3, 1, 1, 4], dtype=real.int32)
    want = real.nn.CTCLoss(blank=6)(x, targets, real.tensor(20), real.tensor(4))
    got = ditto.nn.CTCLoss(blank=6)(D(x), D(targets), ditto.tensor(20), ditto.tensor(4))
    assert got.shape == () and got.item() == pytest.approx(want.item(), rel=1e-14)


def test_an_empty_input_gives_pytorch_2s_defined_loss():
    # PyTorch 1.13 reads the step before the first for an item with input length 0; 2.x (and ditto)
    # define it: 0 for the empty target, inf for any other
    x = ditto.randn(4, 2, 5).log_softmax(2)
    loss = ditto.nn.functional.ctc_loss(x, ditto.tensor([[1, 2], [0, 0]]), [0, 0], [2, 0], reduction="none")
    assert loss.tolist() == [float("inf"), 0.0]


@pytest.mark.parametrize("threads", [1, 3])
def test_same_bits_at_every_thread_count(threads):
    saved = ditto.get_num_threads()
    try:
        results = []
        for n in (1, threads):
            ditto.set_num_threads(n)
            ditto.manual_seed(0)
            x = ditto.randn(80, 9, 16, requires_grad=True)
            targets = ditto.randint(1, 16, (9, 30))
            loss = ditto.nn.functional.ctc_loss(x.log_softmax(2), targets, [80, 70, 80, 5, 80, 60, 80, 80, 33],
                                                [30, 20, 0, 2, 30, 29, 1, 11, 10])
            loss.backward()
            results.append((loss.detach().numpy().tobytes(), x.grad.numpy().tobytes()))
        assert results[0] == results[1]
    finally:
        ditto.set_num_threads(saved)
