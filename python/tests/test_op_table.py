"""Every row of the op table is reachable from Python: each op is called here through its
PyTorch name (function and Tensor method where PyTorch has both), and the dispatcher's counts
show that the row's kernel ran. A new row without a Python spelling fails this test."""
import pytest

import ditto
import ditto.nn.functional as F

x = ditto.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
idx = ditto.tensor([1, 0, 1])


def leaf(t):
    return t.detach().clone().requires_grad_()


def conv():
    w = leaf(ditto.ones(2, 1, 2, 2))
    F.conv2d(leaf(ditto.ones(1, 1, 3, 3)), w, padding=1).sum().backward()


def grids():
    x = ditto.randn(1, 2, 3, 4, requires_grad=True)
    x3 = ditto.randn(1, 2, 3, 4, 2, requires_grad=True)
    theta = ditto.randn(1, 2, 3, requires_grad=True)
    g3 = F.affine_grid(ditto.randn(1, 3, 4, requires_grad=True), (1, 2, 2, 3, 2), align_corners=False)
    (F.grid_sample(x, F.affine_grid(theta, (1, 2, 3, 3), align_corners=False), align_corners=False).sum()
     + F.grid_sample(x3, g3, align_corners=False).sum()).backward()


def convs3d():
    x = ditto.randn(1, 2, 3, 4, 4, requires_grad=True)
    w = ditto.randn(2, 2, 2, 2, 2, requires_grad=True)
    (F.conv3d(x, w).sum() + F.conv_transpose3d(x, w).sum()).backward()
    F.conv_transpose2d(ditto.randn(1, 2, 3, 3), ditto.randn(2, 3, 2, 2))


def pools3d():
    a = ditto.randn(1, 2, 4, 6, 6, requires_grad=True)
    b = ditto.randn(1, 2, 6, 6, requires_grad=True)
    s = F.max_pool3d(a, 2).sum() + F.avg_pool3d(a, 2).sum() + F.adaptive_avg_pool3d(a, 3).sum()
    s = s + F.adaptive_max_pool2d(b, 3).sum() + F.adaptive_max_pool3d(a, 2).sum()
    s = s + F.fractional_max_pool2d(b, 2, output_size=3).sum() + F.fractional_max_pool3d(a, 2, output_ratio=0.5).sum()
    s.backward()


def pools():
    a = leaf(ditto.arange(16.0).reshape(1, 1, 4, 4))
    out, ind = F.max_pool2d(a, 2, return_indices=True)
    (out.sum() + F.avg_pool2d(a, 2).sum() + F.adaptive_avg_pool2d(a, 3).sum()).backward()
    F.max_unpool2d(out.detach(), ind, 2)
    F.max_unpool3d(ditto.ones(1, 1, 1, 1, 1), ditto.zeros(1, 1, 1, 1, 1, dtype=ditto.int64), 1)


def pads():
    a, b, c = leaf(ditto.ones(1, 2, 3)), leaf(ditto.ones(1, 2, 3, 3)), leaf(ditto.ones(1, 1, 2, 2, 3))
    total = F.pad(a, (1, 2)).sum()
    for mode in ("reflect", "replicate", "circular"):
        total = total + F.pad(a, (1, 1), mode).sum() + F.pad(b, (1, 1, 1, 1), mode).sum()
        total = total + F.pad(c, (1, 1, 1, 1, 1, 1), mode).sum()
    total.backward()


def upsamples():
    a, b, c = leaf(ditto.ones(1, 2, 3)), leaf(ditto.ones(1, 2, 3, 3)), leaf(ditto.ones(1, 1, 2, 2, 3))
    total = F.interpolate(a, scale_factor=2, mode="linear").sum()
    total = total + F.interpolate(b, size=5, mode="bilinear").sum() + F.interpolate(b, size=5, mode="bicubic").sum()
    total = total + F.interpolate(c, scale_factor=2, mode="trilinear").sum()
    for mode in ("nearest", "nearest-exact"):
        total = total + sum(F.interpolate(t, scale_factor=1.5, mode=mode).sum() for t in (a, b, c))
    total.backward()


def activations():
    a = leaf(x)
    (F.gelu(a).sum() + ditto.relu(a).sum()).backward()


def embedding():
    w = leaf(ditto.ones(3, 2))
    F.embedding(idx, w).sum().backward()


def embedding_bag():
    w = leaf(ditto.ones(3, 2))
    F.embedding_bag(idx, w, ditto.tensor([0])).sum().backward()


# One call (or a few) per row, by the row's name; backward rows run through their forward's backward.
def attention():
    q = ditto.randn(2, 3, 4, requires_grad=True)
    F.scaled_dot_product_attention(q, q, q, is_causal=True).sum().backward()


def group_norm():
    w = leaf(ditto.ones(4))
    F.group_norm(leaf(ditto.randn(3, 4, 2)), 2, w, None).sum().backward()
    ditto.native_group_norm(x, None, None, 2, 3, 1, 3, 1e-5)


def batch_norm():
    w = leaf(ditto.ones(3))
    F.batch_norm(leaf(ditto.randn(4, 3, 2)), None, None, w, None, training=True).sum().backward()
    ditto.native_batch_norm(x, None, None, ditto.zeros(3), ditto.ones(3), False, 0.1, 1e-5)


def layer_norm():
    w = leaf(ditto.ones(2))
    F.layer_norm(leaf(ditto.randn(3, 2)), (2,), w, None).sum().backward()
    ditto.native_layer_norm(x, [3], None, None, 1e-5)


CALLS = {
    "view": lambda: x.view(3, 2),
    "transpose": lambda: ditto.transpose(x, 0, 1),
    "permute": lambda: x.permute(1, 0),
    "select": lambda: x[0],
    "slice": lambda: x[:, 1:],
    "expand": lambda: ditto.ones(1, 3).expand(2, 3),
    "squeeze": lambda: ditto.ones(1, 3).squeeze(0),
    "unsqueeze": lambda: x.unsqueeze(0),
    "copy_": lambda: ditto.zeros(2, 3).copy_(x),
    "fill_": lambda: ditto.empty(2).fill_(1),
    "arange": lambda: ditto.arange(3),
    "linspace": lambda: ditto.linspace(0, 1, 3),
    "neg": lambda: -x,
    "abs": lambda: x.abs(),
    "sign": lambda: ditto.sign(x),
    "exp": lambda: x.exp(),
    "log": lambda: ditto.log(x.abs()),
    "sqrt": lambda: x.abs().sqrt(),
    "rsqrt": lambda: ditto.rsqrt(x.abs()),
    "sigmoid": lambda: x.sigmoid(),
    "tanh": lambda: ditto.tanh(x),
    "relu": lambda: x.relu(),
    "sin": lambda: x.sin(),
    "cos": lambda: ditto.cos(x),
    "erf": lambda: x.erf(),
    "log1p": lambda: ditto.log1p(x.abs()),
    "expm1": lambda: x.expm1(),
    "floor": lambda: x.floor(),
    "ceil": lambda: ditto.ceil(x),
    "round": lambda: x.round(),
    "trunc": lambda: ditto.trunc(x),
    "maximum": lambda: ditto.maximum(x, x * 2),
    "minimum": lambda: x.minimum(x * 2),
    "fmod": lambda: x.fmod(0.7),
    "remainder": lambda: ditto.remainder(x, x + 10),
    "silu": lambda: F.silu(x),
    "mish": lambda: F.mish(x),
    "hardswish": lambda: F.hardswish(x),
    "leaky_relu": lambda: F.leaky_relu(x, 0.2),
    "softplus": lambda: F.softplus(x, beta=2),
    "hardtanh": lambda: F.relu6(x),
    "elu": lambda: F.elu(x),
    "logsumexp": lambda: x.logsumexp(1),
    "_scaled_dot_product_flash_attention": attention,
    "_scaled_dot_product_flash_attention_backward": attention,
    "native_group_norm": group_norm,
    "native_group_norm_backward": group_norm,
    "native_batch_norm": batch_norm,
    "native_batch_norm_backward": batch_norm,
    "native_layer_norm": layer_norm,
    "native_layer_norm_backward": layer_norm,
    "linalg_vector_norm": lambda: ditto.linalg.vector_norm(x) + x.norm(dim=1).sum(),
    "pow": lambda: x**2,
    "pow.Tensor": lambda: x.pow(x),
    "clamp": lambda: x.clamp(min=0),
    "add": lambda: x + 1,
    "add.alpha": lambda: ditto.add(x, x, alpha=2),
    "sub": lambda: x - x,
    "mul": lambda: x * x,
    "div": lambda: x / 2,
    "eq": lambda: x == 1,
    "ne": lambda: x != x,
    "lt": lambda: x < 0,
    "le": lambda: x.le(0),
    "gt": lambda: ditto.gt(x, 0),
    "ge": lambda: x >= x,
    "where": lambda: ditto.where(x > 0, x, 0.0),
    "masked_fill": lambda: x.masked_fill(x > 0, 0),
    "sum": lambda: x.sum(),
    "mean": lambda: ditto.mean(x, 1),
    "prod": lambda: x.prod(),
    "amax": lambda: x.amax(0),
    "amin": lambda: ditto.amin(x),
    "max.dim": lambda: x.max(1),
    "min.dim": lambda: ditto.min(x, 0),
    "argmax": lambda: x.argmax(),
    "argmin": lambda: ditto.argmin(x, 1),
    "var": lambda: x.var(),
    "softmax": lambda: x.softmax(1),
    "log_softmax": lambda: F.log_softmax(x, 1),
    "_softmax_backward_data": lambda: x.detach().requires_grad_().softmax(0).sum().backward(),
    "_log_softmax_backward_data": lambda: F.log_softmax(x.detach().requires_grad_(), 0).sum().backward(),
    "cumsum": lambda: x.cumsum(1),
    "cumprod": lambda: ditto.cumprod(x, 0, dtype=ditto.float64),
    "cumprod_backward": lambda: ditto.cumprod(x.detach().requires_grad_(), 1).sum().backward(),
    "logcumsumexp": lambda: x.logcumsumexp(0),
    "cummax": lambda: ditto.cummax(x, 1),
    "cummin": lambda: x.cummin(0),
    "histc": lambda: x.histc(4),
    "bincount": lambda: ditto.bincount(ditto.tensor([0, 2, 2]), minlength=4),
    "searchsorted": lambda: ditto.searchsorted(ditto.tensor([1.0, 2.0]), ditto.tensor([1.5])),
    "sort": lambda: x.sort(),
    "nonzero": lambda: ditto.where(x > 0),
    "mode": lambda: x.mode(1),
    "_unique2": lambda: x.unique(sorted=False),
    "unique_dim": lambda: ditto.unique(x, dim=0),
    "unique_consecutive": lambda: x.unique_consecutive(return_counts=True),
    "_ctc_loss": lambda: F.ctc_loss(x.log_softmax(1)[:, None], ditto.tensor([[1]]), [2], [1]),
    "_ctc_loss_backward": lambda: F.ctc_loss(x.detach().requires_grad_().log_softmax(1)[:, None], ditto.tensor([1]),
                                             [2], [1]).backward(),
    "topk": lambda: ditto.topk(x, 1),
    "kthvalue": lambda: x.kthvalue(1, 0),
    "median.dim": lambda: x.median(1),
    "nanmedian.dim": lambda: ditto.nanmedian(x, 0),
    "median": lambda: ditto.median(x),
    "nanmedian": lambda: x.nanmedian(),
    "scatter_": lambda: ditto.zeros(3).scatter_(0, ditto.tensor([2]), 1.0),
    "bmm": lambda: ditto.bmm(x[None], x.t()[None]),
    "mm": lambda: x @ x.t(),
    "addmm": lambda: ditto.addmm(ditto.zeros(2, 2), x, x.t()),
    "cat": lambda: ditto.cat([x, x]),
    "index_select": lambda: x.index_select(1, idx),
    "gather": lambda: ditto.gather(x, 1, ditto.zeros(2, 1, dtype=ditto.int64)),
    "index_add_": lambda: ditto.zeros(2, 2).index_add_(1, idx[:2], x[:, :2]),
    "scatter_add_": lambda: ditto.zeros(2, 3).scatter_add_(1, ditto.zeros(2, 3, dtype=ditto.int64), x),
    "index_copy_": lambda: ditto.zeros(2, 3).index_copy_(0, ditto.tensor([1, 0]), x),
    "index_put_": lambda: ditto.zeros(3).index_put_([ditto.tensor([0, 2])], ditto.ones(2)),
    "index_put_.accumulate": lambda: ditto.zeros(3).index_put_([ditto.tensor([0, 0])], ditto.ones(2), True),
    "put_": lambda: ditto.zeros(3).put_(ditto.tensor([2]), ditto.ones(1)),
    "put_.accumulate": lambda: ditto.zeros(3).put_(ditto.tensor([2, 2]), ditto.ones(2), accumulate=True),
    "scatter_reduce": lambda: x.scatter_reduce(1, ditto.zeros(2, 3, dtype=ditto.int64), x, "amax"),
    "conv2d": conv,
    "conv2d_backward_input": conv,
    "conv2d_backward_weight": conv,
    "max_pool2d_with_indices": pools,
    "max_pool2d_with_indices_backward": pools,
    "avg_pool2d": pools,
    "avg_pool2d_backward": pools,
    "adaptive_avg_pool2d": pools,
    "adaptive_avg_pool2d_backward": pools,
    "max_unpooling2d_forward_out": pools,
    "max_pool3d_with_indices": pools3d,
    "grid_sampler_2d": grids,
    "grid_sampler_2d_backward": grids,
    "grid_sampler_3d": grids,
    "grid_sampler_3d_backward": grids,
    "conv3d": convs3d,
    "conv3d_backward_input": convs3d,
    "conv3d_backward_weight": convs3d,
    "conv_transpose2d": convs3d,
    "conv_transpose3d": convs3d,
    "max_pool3d_with_indices_backward": pools3d,
    "avg_pool3d": pools3d,
    "avg_pool3d_backward": pools3d,
    "adaptive_avg_pool3d": pools3d,
    "adaptive_avg_pool3d_backward": pools3d,
    "adaptive_max_pool2d": pools3d,
    "adaptive_max_pool2d_backward": pools3d,
    "adaptive_max_pool3d": pools3d,
    "adaptive_max_pool3d_backward": pools3d,
    "fractional_max_pool2d": pools3d,
    "fractional_max_pool2d_backward": pools3d,
    "fractional_max_pool3d": pools3d,
    "fractional_max_pool3d_backward": pools3d,
    "max_unpooling3d_forward_out": pools,
    "constant_pad_nd": pads,
    "reflection_pad1d": pads,
    "reflection_pad1d_backward": pads,
    "reflection_pad2d": pads,
    "reflection_pad2d_backward": pads,
    "reflection_pad3d": pads,
    "reflection_pad3d_backward": pads,
    "replication_pad1d": pads,
    "replication_pad1d_backward": pads,
    "replication_pad2d": pads,
    "replication_pad2d_backward": pads,
    "replication_pad3d": pads,
    "replication_pad3d_backward": pads,
    "_pad_circular": pads,
    "_pad_circular_backward": pads,
    "upsample_nearest1d": upsamples,
    "upsample_nearest1d_backward": upsamples,
    "upsample_nearest2d": upsamples,
    "upsample_nearest2d_backward": upsamples,
    "upsample_nearest3d": upsamples,
    "upsample_nearest3d_backward": upsamples,
    "_upsample_nearest_exact1d": upsamples,
    "_upsample_nearest_exact1d_backward": upsamples,
    "_upsample_nearest_exact2d": upsamples,
    "_upsample_nearest_exact2d_backward": upsamples,
    "_upsample_nearest_exact3d": upsamples,
    "_upsample_nearest_exact3d_backward": upsamples,
    "upsample_linear1d": upsamples,
    "upsample_linear1d_backward": upsamples,
    "upsample_bilinear2d": upsamples,
    "upsample_bilinear2d_backward": upsamples,
    "upsample_trilinear3d": upsamples,
    "upsample_trilinear3d_backward": upsamples,
    "upsample_bicubic2d": upsamples,
    "upsample_bicubic2d_backward": upsamples,
    "lerp.Scalar": lambda: x.lerp(x * 2, 0.5),
    "addcmul": lambda: ditto.addcmul(x, x, x, value=0.5),
    "addcdiv": lambda: x.addcdiv(x, x + 10),
    "gelu": activations,
    "gelu_backward": activations,
    "threshold_backward": activations,
    "embedding": embedding,
    "embedding_dense_backward": embedding,
    "cross_entropy_loss": lambda: F.cross_entropy(x, ditto.tensor([1, 0])),
    "cross_entropy_loss_backward": lambda: F.cross_entropy(x.detach().requires_grad_(), ditto.tensor([1, 0])).backward(),
    "_embedding_bag": embedding_bag,
    "_embedding_bag_dense_backward": embedding_bag,
    "uniform_": lambda: ditto.empty(3, 4).uniform_(-1, 1),
    "normal_": lambda: ditto.randn(5),
    "random_": lambda: ditto.randint(0, 10, (6,)),
    "bernoulli_": lambda: ditto.zeros(7).bernoulli_(0.5),
    "bernoulli": lambda: ditto.bernoulli(ditto.full((4,), 0.5)),
    "exponential_": lambda: ditto.multinomial(ditto.tensor([0.2, 0.3, 0.5]), 2),
    "randperm": lambda: ditto.randperm(9),
    "multinomial": lambda: ditto.multinomial(ditto.tensor([0.2, 0.3, 0.5]), 4, replacement=True),
}

ROWS = ditto._C._op_table()


def _unary_call(name):
    p = x.abs() + 0.5  # positive: inside the domain of every DITTO_UNARY op
    return lambda: (getattr(ditto, name)(p), getattr(p, name)())


# A DITTO_UNARY row is bound from the table (function and method), so it needs no line above.
for _r in ROWS:
    if _r["unary"] and _r["name"] not in CALLS:
        CALLS[_r["name"]] = _unary_call(_r["id"])


def count(name):
    return next(r["dispatch_count"] for r in ditto._C._op_table() if r["name"] == name)


def test_every_row_has_a_python_call():
    assert sorted(CALLS) == sorted(r["name"] for r in ROWS)


@pytest.mark.parametrize("name", [r["name"] for r in ROWS])
def test_the_python_call_runs_the_rows_kernel(name):
    before = count(name)
    CALLS[name]()
    assert count(name) > before


# PyTorch spells these both ways: ditto.op(input, ...) and Tensor.op(...)
BOTH = ["neg", "abs", "sign", "exp", "log", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "pow", "clamp", "add",
        "sub", "mul", "div", "eq", "ne", "lt", "le", "gt", "ge", "masked_fill", "sum", "mean", "prod", "amax", "amin",
        "max", "min", "argmax", "argmin", "var", "std", "softmax", "log_softmax", "cumsum", "cumprod",
        "logcumsumexp", "cummax", "cummin", "histc", "bincount", "sort", "argsort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique",
        "unique_consecutive", "nonzero", "argwhere", "masked_select", "masked_scatter", "take", "take_along_dim",
        "repeat_interleave", "index_fill", "bmm", "mm", "matmul", "addmm",
        "index_select", "gather", "index_add", "scatter", "scatter_add", "index_copy", "index_put", "put", "scatter_reduce",
        "lerp", "addcmul", "addcdiv", "transpose", "permute", "squeeze", "unsqueeze", "flatten", "reshape",
        "clone", "narrow", "select", "t", "equal", "sin", "cos", "erf", "log1p", "expm1", "floor", "ceil", "round",
        "trunc", "maximum", "minimum", "fmod", "remainder", "clamp_min", "clamp_max", "logsumexp", "norm", "baddbmm",
        "outer", "split", "split_with_sizes", "chunk", "unbind", "tile", "flip", "roll", "movedim", "swapaxes"]  # fmt: skip


BOTH += [r["id"] for r in ROWS if r["unary"] and r["id"] not in BOTH]


@pytest.mark.parametrize("name", BOTH)
def test_function_and_method(name):
    assert callable(getattr(ditto, name)) and callable(getattr(ditto.Tensor, name))
