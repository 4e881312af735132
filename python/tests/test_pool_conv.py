"""Pooling and convolution modules against PyTorch 1.13 (Debian's python3-torch): 3-D, adaptive, fractional (its
samples drawn after one seed in each library) and power-average pooling, the same bits forward,
indices and backward (lp pooling to a power other than 2 within an ulp: ditto's pow is its own)."""
import numpy as np
import pytest

import ditto
from test_resample import D, real, run_both, same

MODULES = [
    ("MaxPool3d", dict(kernel_size=3, stride=2, padding=1), (2, 3, 5, 7, 6)),
    ("MaxPool3d", dict(kernel_size=(2, 2, 3), dilation=(1, 2, 1), ceil_mode=True, return_indices=True),
     (1, 2, 5, 8, 9)),
    ("AvgPool3d", dict(kernel_size=3, stride=2, padding=1, count_include_pad=False), (2, 3, 5, 7, 6)),
    ("AvgPool3d", dict(kernel_size=(1, 2, 3), ceil_mode=True, divisor_override=4), (3, 5, 7, 6)),
    ("AdaptiveAvgPool3d", dict(output_size=(2, None, 4)), (2, 3, 5, 7, 6)),
    ("AdaptiveMaxPool1d", dict(output_size=4, return_indices=True), (2, 3, 11)),
    ("AdaptiveMaxPool2d", dict(output_size=(None, 3)), (2, 3, 5, 7)),
    ("AdaptiveMaxPool3d", dict(output_size=(2, 3, 4), return_indices=True), (2, 3, 5, 7, 6)),
    ("FractionalMaxPool2d", dict(kernel_size=2, output_size=(4, 5)), (2, 3, 9, 10)),
    ("FractionalMaxPool2d", dict(kernel_size=3, output_ratio=0.5, return_indices=True), (3, 11, 12)),
    ("FractionalMaxPool3d", dict(kernel_size=2, output_size=(3, 4, 3), return_indices=True), (2, 2, 6, 7, 8)),
    ("LPPool1d", dict(norm_type=2, kernel_size=3, stride=2), (2, 3, 11)),
    ("LPPool2d", dict(norm_type=2, kernel_size=(2, 3)), (2, 3, 6, 7)),
]  # fmt: skip


@pytest.mark.parametrize("name,kw,shape", MODULES)
def test_pooling_modules(name, kw, shape):
    run_both(lambda nn: getattr(nn, name)(**kw), shape, seed=11)


def test_lp_pool_other_powers():
    run_both(lambda nn: nn.LPPool2d(3, 2, ceil_mode=True), (2, 3, 7, 7), exact=False)


def test_float64():
    run_both(lambda nn: nn.MaxPool3d(2), (1, 2, 4, 6, 6), real.float64)
    run_both(lambda nn: nn.AdaptiveAvgPool3d(3), (1, 2, 5, 6, 7), real.float64)


def test_bad_arguments_raise():
    x = ditto.randn(1, 2, 6, 6)
    with pytest.raises(ValueError, match="requires specifying either"):
        ditto.nn.FractionalMaxPool2d(2)
    with pytest.raises(RuntimeError, match="too large relative to input size"):
        ditto.nn.functional.fractional_max_pool2d(x, 4, output_size=4)
    with pytest.raises(RuntimeError, match="output_size > 0"):
        ditto.nn.functional.adaptive_max_pool2d(x, (0, 2))


@pytest.mark.parametrize("name,args,kw,shape", [
    ("Conv3d", (2, 4, 3), dict(stride=(1, 2, 1), padding=1), (2, 2, 5, 6, 5)),
    ("Conv3d", (4, 4, 2), dict(groups=2, padding="same"), (1, 4, 4, 5, 6)),
    ("ConvTranspose1d", (3, 4, 3), dict(stride=2, output_padding=1), (2, 3, 7)),
    ("ConvTranspose2d", (4, 6, 4), dict(stride=2, padding=1, groups=2), (2, 4, 5, 5)),
    ("ConvTranspose3d", (2, 3, 2), dict(stride=2, dilation=(1, 2, 1), bias=False), (1, 2, 3, 3, 4)),
])  # fmt: skip
def test_convolution_modules(name, args, kw, shape):
    """Initial weights bit for bit after one seed; outputs and gradients within the convolution
    tolerance (PyTorch sums in its BLAS's order)."""
    real.manual_seed(5)
    mt = getattr(real.nn, name)(*args, **kw)
    ditto.manual_seed(5)
    md = getattr(ditto.nn, name)(*args, **kw)
    same(md.weight, mt.weight)
    g = real.Generator().manual_seed(3)
    x = real.randn(*shape, generator=g)
    xt, xd = x.clone().requires_grad_(), D(x).requires_grad_()
    yt, yd = mt(xt), md(xd)
    close = dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(yd.detach().numpy(), yt.detach().numpy(), **close)
    yt.sum().backward()
    yd.sum().backward()
    np.testing.assert_allclose(xd.grad.numpy(), xt.grad.numpy(), **close)
    np.testing.assert_allclose(md.weight.grad.numpy(), mt.weight.grad.numpy(), **close)


def test_conv_transpose_output_size():
    real.manual_seed(1)
    mt = real.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    ditto.manual_seed(1)
    md = ditto.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
    x = real.randn(1, 3, 4, 5)
    for size in [(7, 9), (8, 10), (1, 2, 8, 9)]:
        yt, yd = mt(x, output_size=size), md(D(x), output_size=size)
        assert tuple(yd.shape) == tuple(yt.shape)
        np.testing.assert_allclose(yd.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="valid sizes range"):
        md(D(x), output_size=(9, 9))
