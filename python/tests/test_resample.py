"""Padding and upsampling modules and functions against PyTorch 1.13 (Debian's python3-torch): the
same bits forward and backward for every padding module and Upsample mode (ditto has the bits of
PyTorch's AVX2/AVX-512 kernels; against its DEFAULT kernel the interpolating modes differ within
an ulp or so, so those compare close there)."""
import numpy as np
import pytest

import ditto

real = pytest.importorskip("torch")
CAP = real.__config__.show().split("CPU capability usage:")[1].split("\n")[0].strip()


def D(t):
    return ditto.from_numpy(t.detach().numpy().copy())


def same(d, t, exact=True):
    a, b = d.detach().numpy(), t.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    if exact:
        assert np.array_equal(a.view(np.uint8), b.view(np.uint8))
    else:
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def run_both(make, shape, dtype=real.float32, exact=True, seed=None):
    """make(torch.nn) and make(ditto.nn) on one input (after manual_seed(seed) in each when
    given): outputs (all of a tuple) and the input's gradient of the first output compared."""
    g = real.Generator().manual_seed(7)
    x = real.randn(*shape, dtype=dtype, generator=g)
    xt, xd = x.clone().requires_grad_(), D(x).requires_grad_()
    mt, md = make(real.nn), make(ditto.nn)
    if seed is not None:
        real.manual_seed(seed)
    yt = mt(xt)
    if seed is not None:
        ditto.manual_seed(seed)
    yd = md(xd)
    if isinstance(yt, tuple):
        for a, b in zip(yd[1:], yt[1:]):
            same(a, b)
        yt, yd = yt[0], yd[0]
    same(yd, yt, exact)
    gout = real.randn(*yt.shape, dtype=dtype, generator=g)
    yt.backward(gout)
    yd.backward(D(gout))
    same(xd.grad, xt.grad, exact)


PADS = [
    ("ReflectionPad1d", (2, 1), (2, 3, 7)), ("ReflectionPad2d", (1, 2, 3, 0), (2, 3, 5, 6)),
    ("ReflectionPad3d", 1, (1, 2, 3, 4, 5)), ("ReplicationPad1d", 3, (3, 9)),
    ("ReplicationPad2d", (4, 0, 1, 2), (2, 3, 5, 6)), ("ReplicationPad3d", (1, 2, 0, 1, 2, 0), (1, 2, 3, 4, 5)),
    ("ZeroPad2d", (1, -1, 2, 0), (2, 3, 5, 6)),
]  # fmt: skip


@pytest.mark.parametrize("name,padding,shape", PADS)
def test_padding_modules(name, padding, shape):
    run_both(lambda nn: getattr(nn, name)(padding), shape)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_constant_pad_modules(dims):
    shape = (2, 3, 4, 5, 6)[: dims + 2]
    run_both(lambda nn: getattr(nn, "ConstantPad%dd" % dims)(2, -1.5), shape, real.float64)


@pytest.mark.parametrize("kw,shape", [
    (dict(scale_factor=2, mode="nearest"), (2, 3, 5, 6)),
    (dict(size=(7, 3), mode="nearest-exact"), (2, 3, 5, 6)),
    (dict(scale_factor=1.5, mode="linear", align_corners=True), (2, 3, 9)),
    (dict(scale_factor=2, mode="bilinear"), (2, 3, 5, 6)),
    (dict(size=(11, 4), mode="bicubic", align_corners=False), (2, 3, 5, 6)),
    (dict(scale_factor=(1.3, 2, 0.7), mode="trilinear"), (1, 2, 4, 5, 6)),
])  # fmt: skip
def test_upsample_module(kw, shape):
    interpolating = kw["mode"] in ("linear", "bilinear", "bicubic", "trilinear")
    run_both(lambda nn: nn.Upsample(**kw), shape, exact=not interpolating or CAP in ("AVX2", "AVX512"))


def test_upsampling_aliases():
    run_both(lambda nn: nn.UpsamplingBilinear2d(scale_factor=2), (1, 2, 4, 5), exact=CAP in ("AVX2", "AVX512"))
    run_both(lambda nn: nn.UpsamplingNearest2d(size=(6, 9)), (1, 2, 4, 5))


def test_bad_arguments_raise():
    x = ditto.randn(2, 3, 4, 5)
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        ditto.nn.functional.pad(x, (5, 0, 0, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="only one of size or scale_factor"):
        ditto.nn.functional.interpolate(x, size=3, scale_factor=2.0)
    with pytest.raises(NotImplementedError):
        ditto.nn.functional.interpolate(x, size=3, mode="bilinear", antialias=True)
