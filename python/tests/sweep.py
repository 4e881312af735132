"""The OpInfo sweep: PyTorch's own sample inputs (torch.testing._internal's op_db, Debian's
python3-torch 1.13) run through ditto and through torch, forward and, where differentiable,
backward, and compared.

SWEEP below is the whole configuration: one line per op, its OpInfo name, ditto's function for
it, and how results compare. Adding an op to the sweep is one line. Comparisons:
  EXACT   the same bits (NaN where PyTorch has NaN); shapes, dtypes, indices, integer results
  CLOSE   float results within torch.testing.assert_close's defaults for the dtype (float32: rtol
          1.3e-6, atol 1e-5; float64: rtol 1e-7, atol 1e-7): for ops whose rounding depends on
          a summation order or on the elementary functions' implementation
  SUMMED  within rtol 1e-5 (float32) / 1e-11 (float64): results that are sums of many rounded
          terms, as a broadcast operand's gradient, whose order differs from PyTorch's
  LOGSPACE within rtol 1e-4 (float32) / 1e-11 (float64): exp of a difference of log-space sums
          near 100-1000 (CTC's gradient), which carries their absolute rounding (float32: ulp(256)
          = 3e-5) into the result's relative error, in PyTorch as in ditto
  NEAR64  CLOSE, or, for float32, ditto's largest distance from PyTorch's own float64 result at
          most twice PyTorch's float32 one: sums of many products whose cancelling elements carry
          the terms' absolute rounding (transposed convolutions), which oneDNN and ditto round
          differently on some CPUs
Gradients (of a fixed upstream gradient) are compared CLOSE unless the entry says otherwise.

A sample passes when both libraries give the same result, or when both raise. Run by
test_opinfo_sweep.py; tools/gen_coverage.py writes docs/coverage.md from the same run.
"""
import os
import sys

_STUBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubs")
try:
    import expecttest  # noqa: F401
except ImportError:
    sys.path.append(_STUBS)

import torch  # noqa: E402
from torch.testing._internal.common_methods_invocations import op_db  # noqa: E402

import ditto  # noqa: E402

EXACT, CLOSE, SUMMED, LOGSPACE, NEAR64 = "exact", "close", "summed", "logspace", "near64"
TOLERANCES = {SUMMED: {torch.float32: 1e-5, torch.float64: 1e-11}, LOGSPACE: {torch.float32: 1e-4, torch.float64: 1e-11}}

# The dtypes swept (ditto's five); each op runs those OpInfo lists for the CPU.
DTYPES = [torch.float32, torch.float64, torch.int64, torch.int32, torch.bool]
# At most this many samples per op and dtype (OpInfo's generators put the simple cases first and
# the edge cases, empty and 0-dim tensors, early too); keeps CI within a few minutes.
MAX_SAMPLES = 24


def F(name):
    return getattr(ditto.nn.functional, name)


def D(name):
    return getattr(ditto, name)


class Entry:
    def __init__(self, opinfo, fn, compare=EXACT, grad=CLOSE, dtypes=None, note=""):
        self.opinfo = opinfo  # "name" or "name.variant"
        self.fn = fn  # callable(input, *args, **kwargs) in ditto
        self.compare = compare
        self.grad = grad
        self.dtypes = dtypes  # None: every dtype of DTYPES that OpInfo lists
        self.note = note


def seeded(fn, seed=42):
    """fn after ditto.manual_seed(seed): OpInfo runs PyTorch's random ops after torch.manual_seed(42)."""

    def run(*a, **k):
        ditto.manual_seed(seed)
        return fn(*a, **k)

    return run


def method(name):
    return lambda input, *a, **k: getattr(input, name)(*a, **k)


# PyTorch's CPU kernels at the level they run here ("DEFAULT", "AVX2" or "AVX512"; ATEN_CPU_CAPABILITY
# sets it): a few of its results depend on it.
_CAP = torch.__config__.show().split("CPU capability usage:")[1].split("\n")[0].strip()  # "AVX2", "NO AVX", ...
TORCH_CAPABILITY = "DEFAULT" if _CAP.startswith("NO") else _CAP
# ditto's upsampling has the bits of PyTorch's vector-level kernels (whose multiply-adds its build
# fuses, Note [Upsampling arithmetic]); its DEFAULT kernel rounds each product, within an ulp or so.
VECTOR_BITS = EXACT if TORCH_CAPABILITY != "DEFAULT" else CLOSE

SWEEP = [
    # elementwise: IEEE-exact operations, so the same bits
    Entry("add", D("add")),
    Entry("sub", D("sub")),
    Entry("mul", D("mul")),
    Entry("div.no_rounding_mode", D("div")),
    Entry("true_divide", D("true_divide")),
    Entry("neg", D("neg")),
    Entry("abs", D("abs")),
    Entry("sign", D("sign")),
    Entry("sqrt", D("sqrt")),
    Entry("clamp", D("clamp")),
    Entry("eq", D("eq")),
    Entry("ne", D("ne")),
    Entry("lt", D("lt")),
    Entry("le", D("le")),
    Entry("gt", D("gt")),
    Entry("ge", D("ge")),
    Entry("where", lambda input, cond, other: ditto.where(cond, input, other)),
    Entry("masked_fill", D("masked_fill")),
    Entry("nn.functional.relu", F("relu")),
    # PyTorch's lerp kernel for a tensor weight rounds one way vectorised (an fma) and another on
    # its scalar path (broadcast operands): ditto gives the vectorised bits, so CLOSE
    Entry("lerp", D("lerp"), CLOSE),
    Entry("addcmul", D("addcmul")),
    Entry("addcdiv", D("addcdiv")),
    Entry("isnan", D("isnan")),
    Entry("isinf", D("isinf")),
    Entry("isfinite", D("isfinite")),
    Entry("logical_not", D("logical_not")),
    Entry("logical_and", D("logical_and")),
    Entry("logical_or", D("logical_or")),
    Entry("__radd__", lambda input, other: other + input),
    Entry("__rsub__", lambda input, other: other - input),
    Entry("__rmul__", lambda input, other: other * input),
    Entry("__rdiv__", lambda input, other: other / input, CLOSE),
    Entry("__rmatmul__", lambda input, other: input.__rmatmul__(other), SUMMED),
    Entry("__rand__", lambda input, other: input.__rand__(other), dtypes=[torch.bool], note="bool: ditto has no bitwise integer ops"),
    Entry("__ror__", lambda input, other: input.__ror__(other), dtypes=[torch.bool], note="bool: ditto has no bitwise integer ops"),
    Entry("__rxor__", lambda input, other: input.__rxor__(other), dtypes=[torch.bool], note="bool: ditto has no bitwise integer ops"),
    Entry("clamp_min", D("clamp_min")),
    Entry("clamp_max", D("clamp_max")),
    Entry("floor", D("floor")),
    Entry("ceil", D("ceil")),
    Entry("round", D("round")),
    Entry("round.decimals_0", D("round")),
    Entry("trunc", D("trunc")),
    Entry("maximum", D("maximum")),
    Entry("minimum", D("minimum")),
    Entry("fmod", D("fmod")),
    Entry("remainder", D("remainder")),
    Entry("nn.functional.leaky_relu", F("leaky_relu")),
    Entry("nn.functional.hardtanh", F("hardtanh")),
    Entry("nn.functional.relu6", F("relu6")),
    Entry("nn.functional.hardswish", F("hardswish")),
    # ditto's own elementary functions: within a few ulp of PyTorch's
    Entry("pow", D("pow"), CLOSE, grad=SUMMED),
    Entry("__rpow__", lambda input, other: input.__rpow__(other), CLOSE),
    Entry("exp", D("exp"), CLOSE),
    Entry("log", D("log"), CLOSE),
    Entry("rsqrt", D("rsqrt"), CLOSE),
    Entry("sigmoid", D("sigmoid"), CLOSE),
    Entry("tanh", D("tanh"), CLOSE),
    Entry("nn.functional.gelu", F("gelu"), CLOSE),
    Entry("sin", D("sin"), CLOSE),
    Entry("cos", D("cos"), CLOSE),
    Entry("erf", D("erf"), CLOSE),
    Entry("log1p", D("log1p"), CLOSE),
    Entry("expm1", D("expm1"), CLOSE),
    Entry("nn.functional.silu", F("silu"), CLOSE),
    Entry("nn.functional.mish", F("mish"), CLOSE),
    Entry("nn.functional.softplus", F("softplus"), CLOSE),
    Entry("nn.functional.elu", F("elu"), CLOSE),
    # reductions: ditto's canonical order, so within rounding of PyTorch's sums; max/min exact
    Entry("sum", D("sum"), CLOSE),
    Entry("mean", D("mean"), CLOSE),
    Entry("prod", D("prod"), CLOSE),
    Entry("var", D("var"), CLOSE),
    Entry("logsumexp", D("logsumexp"), CLOSE),
    Entry("norm", D("norm"), CLOSE),
    Entry("norm.fro", D("norm"), CLOSE),
    Entry("norm.inf", D("norm"), CLOSE),
    Entry("linalg.vector_norm", ditto.linalg.vector_norm, CLOSE),
    Entry("nn.functional.normalize", F("normalize"), CLOSE),
    Entry("std", D("std"), CLOSE),
    Entry("amax", D("amax")),
    Entry("amin", D("amin")),
    Entry("max.reduction_with_dim", D("max")),
    Entry("max.reduction_no_dim", D("max")),
    Entry("min.reduction_with_dim", D("min")),
    Entry("min.reduction_no_dim", D("min")),
    Entry("argmax", D("argmax")),
    Entry("argmin", D("argmin")),
    Entry("all", D("all")),
    Entry("any", D("any")),
    Entry("softmax", D("softmax"), CLOSE),
    Entry("log_softmax", D("log_softmax"), CLOSE),
    Entry("cumsum", D("cumsum"), EXACT, grad=EXACT),
    Entry("cumprod", D("cumprod"), EXACT),
    # exp and log1p are ditto's own (dmath), PyTorch's the libm's: within their rounding
    Entry("logcumsumexp", D("logcumsumexp"), CLOSE),
    Entry("cummax", D("cummax"), EXACT, grad=EXACT),
    Entry("cummin", D("cummin"), EXACT, grad=EXACT),
    # counting: exact integer counts (Note [Counting order]); weighted bincount in input order
    Entry("histc", D("histc"), EXACT),
    Entry("bincount", D("bincount"), EXACT),
    # ordering: PyTorch's tie choices (Note [Ordering ties]), exact, forward and backward
    Entry("searchsorted", D("searchsorted"), EXACT),
    Entry("sort", D("sort"), EXACT, grad=EXACT),
    Entry("argsort", D("argsort"), EXACT),
    Entry("msort", lambda input: ditto.sort(input, 0).values, EXACT, grad=EXACT),
    Entry("topk", D("topk"), EXACT, grad=EXACT),
    Entry("kthvalue", D("kthvalue"), EXACT, grad=EXACT),
    Entry("median", D("median"), EXACT, grad=EXACT),
    Entry("mode", D("mode"), EXACT, grad=EXACT),
    Entry("nonzero", D("nonzero"), EXACT),
    Entry("argwhere", D("argwhere"), EXACT),
    Entry("masked_select", D("masked_select"), EXACT, grad=EXACT),
    Entry("masked_scatter", D("masked_scatter"), EXACT, grad=EXACT),
    Entry("take", D("take"), EXACT, grad=EXACT),
    Entry("take_along_dim", D("take_along_dim"), EXACT, grad=EXACT),
    Entry("repeat_interleave", D("repeat_interleave"), EXACT, grad=EXACT),
    Entry("index_fill", D("index_fill"), EXACT, grad=EXACT),
    Entry("unique", D("unique"), EXACT),
    Entry("unique_consecutive", D("unique_consecutive"), EXACT),
    Entry("nanmedian", D("nanmedian"), EXACT, grad=EXACT),
    Entry("scatter", D("scatter"), EXACT, grad=EXACT),
    # linear algebra: each element one fma chain over k; PyTorch's BLAS blocks k its own way, and
    # which way depends on the CPU OpenBLAS finds (on an AVX-512 Xeon a k=10 dot product of terms
    # near 80 that cancels to 0.57 differed by 1.2e-5, past CLOSE's atol): SUMMED
    Entry("mm", D("mm"), SUMMED),
    Entry("bmm", D("bmm"), SUMMED),
    Entry("matmul", D("matmul"), SUMMED),
    Entry("addmm", D("addmm"), SUMMED),
    Entry("nn.functional.linear", F("linear"), SUMMED),
    Entry("baddbmm", D("baddbmm"), SUMMED),
    Entry("outer", D("outer")),
    Entry("einsum", lambda tensors, equation: ditto.einsum(equation, tensors), SUMMED),
    # views, joins, indexing: exact
    Entry("cat", lambda tensors, *a, **k: ditto.cat(tensors, *a, **k)),
    Entry("stack", lambda tensors, *a, **k: ditto.stack(tensors, *a, **k)),
    Entry("transpose", D("transpose")),
    Entry("permute", D("permute")),
    Entry("squeeze", D("squeeze")),
    Entry("unsqueeze", D("unsqueeze")),
    Entry("flatten", D("flatten")),
    Entry("reshape", D("reshape")),
    Entry("view", method("view")),
    Entry("expand", method("expand")),
    Entry("narrow", D("narrow")),
    Entry("split", D("split")),
    Entry("split.list_args", D("split")),
    Entry("split_with_sizes", D("split_with_sizes")),
    Entry("chunk", D("chunk")),
    Entry("unbind", D("unbind")),
    Entry("repeat", method("repeat")),
    Entry("tile", D("tile")),
    Entry("flip", D("flip")),
    Entry("roll", D("roll")),
    Entry("movedim", D("movedim")),
    Entry("select", D("select")),
    Entry("t", D("t")),
    Entry("T", lambda input: input.T),
    Entry("clone", D("clone")),
    Entry("index_select", D("index_select")),
    Entry("gather", D("gather")),
    Entry("index_add", D("index_add"), CLOSE),
    Entry("scatter_add", D("scatter_add"), CLOSE),
    Entry("index_copy", D("index_copy")),
    Entry("index_put", D("index_put")),
    Entry("put", D("put")),
    Entry("scatter_reduce.sum", D("scatter_reduce"), CLOSE),
    Entry("scatter_reduce.prod", D("scatter_reduce"), CLOSE),
    Entry("scatter_reduce.mean", D("scatter_reduce"), CLOSE),
    Entry("scatter_reduce.amax", D("scatter_reduce")),
    Entry("scatter_reduce.amin", D("scatter_reduce")),
    Entry("__getitem__", lambda input, idx: input[idx]),
    Entry("slice", lambda input, dim=0, start=None, end=None, step=1: input[(slice(None),) * (dim % max(input.dim(), 1))
                                                                             + (slice(start, end, step),)]),
    Entry("fill", D("fill")),
    Entry("arange", D("arange")),
    Entry("linspace", D("linspace"), CLOSE, dtypes=[torch.float32, torch.float64],
          note="floating dtypes: PyTorch 1.13's integer linspace is not even monotonic (4.3 to -3 in 50 steps "
               "goes ..., 1, 1, 1, 2, 1, ...), which ditto does not copy"),
    Entry("zeros_like", D("zeros_like")),
    Entry("ones_like", D("ones_like")),
    Entry("full_like", D("full_like")),
    # nn
    Entry("nn.functional.conv1d", F("conv1d"), CLOSE, dtypes=[torch.float32, torch.float64], note="floating input only: ditto has no integer convolution or pooling averages"),
    Entry("nn.functional.conv2d", F("conv2d"), CLOSE, dtypes=[torch.float32, torch.float64], note="floating input only: ditto has no integer convolution or pooling averages"),
    Entry("nn.functional.conv_transpose1d", F("conv_transpose1d"), CLOSE, dtypes=[torch.float32, torch.float64], note="floating input only: ditto has no integer convolution or pooling averages"),
    # NEAR64: on an AMD EPYC PyTorch's transposed convolution of float32 sample 10 is 6.4e-5 from its
    # float64 result and ditto's 3.3e-5, so the two differ by 6.1e-5, past CLOSE's atol
    Entry("nn.functional.conv_transpose2d", F("conv_transpose2d"), NEAR64, dtypes=[torch.float32, torch.float64], note="floating input only: ditto has no integer convolution or pooling averages"),
    Entry("nn.functional.conv_transpose3d", F("conv_transpose3d"), NEAR64, dtypes=[torch.float32, torch.float64], note="floating input only: ditto has no integer convolution or pooling averages"),
    Entry("nn.functional.grid_sample", F("grid_sample"), grad=EXACT, note="bits of PyTorch's AVX2 kernel, gradients included (Note [Grid sampling arithmetic])"),
    Entry("nn.functional.max_pool1d", F("max_pool1d")),
    Entry("nn.functional.max_pool2d", F("max_pool2d")),
    Entry("nn.functional.avg_pool2d", F("avg_pool2d"), CLOSE, dtypes=[torch.float32, torch.float64], note="floating input only: ditto has no integer convolution or pooling averages"),
    Entry("nn.functional.adaptive_avg_pool2d", F("adaptive_avg_pool2d"), CLOSE),
    Entry("nn.functional.avg_pool1d", F("avg_pool1d"), CLOSE, dtypes=[torch.float32, torch.float64], note="floating input only: ditto has no integer convolution or pooling averages"),
    Entry("nn.functional.adaptive_avg_pool1d", F("adaptive_avg_pool1d"), CLOSE),
    Entry("tril", D("tril")),
    Entry("triu", D("triu")),
    Entry("nn.functional.max_pool3d", F("max_pool3d")),
    Entry("nn.functional.avg_pool3d", F("avg_pool3d"), EXACT, grad=EXACT, dtypes=[torch.float32, torch.float64], note="floating input only: ditto has no integer convolution or pooling averages"),
    Entry("nn.functional.adaptive_avg_pool3d", F("adaptive_avg_pool3d"), CLOSE),
    Entry("nn.functional.adaptive_max_pool1d", F("adaptive_max_pool1d")),
    Entry("nn.functional.adaptive_max_pool2d", F("adaptive_max_pool2d")),
    Entry("nn.functional.adaptive_max_pool3d", F("adaptive_max_pool3d")),
    Entry("nn.functional.fractional_max_pool2d", seeded(F("fractional_max_pool2d")), note="both draw their samples after manual_seed(42), as OpInfo's wrapper_set_seed"),
    Entry("uniform", seeded(lambda t, a, b: t.uniform_(a, b)), note="after manual_seed(42), as OpInfo's wrapper_set_seed"),
    Entry("multinomial", seeded(D("multinomial")), note="after manual_seed(42), as OpInfo's wrapper_set_seed"),
    Entry("bernoulli", seeded(D("bernoulli")), note="after manual_seed(42), as OpInfo's wrapper_set_seed"),
    Entry("normal", seeded(D("normal")), note="after manual_seed(42), as OpInfo's wrapper_set_seed"),
    Entry("nn.functional.fractional_max_pool3d", seeded(F("fractional_max_pool3d")), note="both draw their samples after manual_seed(42), as OpInfo's wrapper_set_seed"),
    Entry("constant_pad_nd", D("constant_pad_nd"), EXACT, grad=EXACT),
    Entry("nn.functional.pad.constant", F("pad"), EXACT, grad=EXACT),
    Entry("nn.functional.pad.reflect", F("pad"), EXACT, grad=EXACT),
    Entry("nn.functional.pad.replicate", F("pad"), EXACT, grad=EXACT),
    Entry("nn.functional.pad.circular", F("pad"), grad=SUMMED, note="gradient: PyTorch composes circular padding of copies, whose gradients autograd adds in its own order"),
    Entry("nn.functional.interpolate.nearest", F("interpolate"), EXACT, grad=EXACT),
    Entry("nn.functional.interpolate.linear", F("interpolate"), VECTOR_BITS, grad=VECTOR_BITS),
    Entry("nn.functional.interpolate.bilinear", F("interpolate"), VECTOR_BITS, grad=VECTOR_BITS),
    Entry("nn.functional.interpolate.bicubic", F("interpolate"), VECTOR_BITS, grad=VECTOR_BITS),
    Entry("nn.functional.interpolate.trilinear", F("interpolate"), VECTOR_BITS, grad=VECTOR_BITS),
    Entry("nn.functional.interpolate.area", F("interpolate"), CLOSE),
    Entry("nn.functional.upsample_bilinear", F("upsample_bilinear"), VECTOR_BITS, grad=VECTOR_BITS),
    Entry("nn.functional.upsample_nearest", F("upsample_nearest"), EXACT, grad=EXACT),
    Entry("nn.functional.embedding", lambda weight, idx, **k: F("embedding")(idx, weight, **k)),
    Entry("nn.functional.layer_norm", F("layer_norm"), CLOSE),
    Entry("nn.functional.batch_norm", F("batch_norm"), CLOSE),
    Entry("native_layer_norm", D("native_layer_norm"), CLOSE),
    Entry("native_batch_norm", D("native_batch_norm"), CLOSE),
    Entry("nn.functional.group_norm", F("group_norm"), CLOSE),
    Entry("nn.functional.instance_norm", F("instance_norm"), CLOSE),
    Entry("nn.functional.mse_loss", F("mse_loss"), CLOSE),
    Entry("nn.functional.l1_loss", F("l1_loss"), CLOSE),
    Entry("nn.functional.nll_loss", F("nll_loss"), CLOSE),
    Entry("nn.functional.cross_entropy", F("cross_entropy"), CLOSE),
    Entry("nn.functional.binary_cross_entropy_with_logits", F("binary_cross_entropy_with_logits"), CLOSE),
    # sums in index order; PyTorch (fbgemm) fuses per_sample_weights and sorts indices in the backward
    Entry("nn.functional.embedding_bag", lambda weight, idx, **k: F("embedding_bag")(idx, weight, **k), CLOSE),
    Entry("nn.functional.smooth_l1_loss", F("smooth_l1_loss"), CLOSE),
    Entry("nn.functional.huber_loss", F("huber_loss"), CLOSE),
    Entry("nn.functional.binary_cross_entropy", F("binary_cross_entropy"), CLOSE),
    Entry("nn.functional.ctc_loss", F("ctc_loss"), CLOSE, grad=LOGSPACE),
    Entry("nn.functional.kl_div", F("kl_div"), CLOSE),
    Entry("nn.functional.margin_ranking_loss", F("margin_ranking_loss"), CLOSE),
    Entry("nn.functional.cosine_embedding_loss", F("cosine_embedding_loss"), CLOSE),
]

BY_NAME = {e.opinfo: e for e in SWEEP}


# Samples that fail today, per entry: at most this many, each for the reason given. The sweep
# test fails when an entry fails more, or no longer fails at all (then its line goes).
KNOWN_FAILURES = {
    "normal": (
        10,
        "ditto has normal(mean, std, size) with float mean and std; PyTorch's normal(Tensor mean, Tensor std) and "
        "its (Tensor, float) and (float, Tensor) forms (normal_(0, 1), then mul_(std), add_(mean); zero gradients) "
        "are not there yet",
    ),
    "native_layer_norm": (
        1 if TORCH_CAPABILITY == "DEFAULT" else 5,
        "a float32 row of two close values (rstd 12): the input's gradient cancels to 0.016 from terms of 0.8, and "
        "ditto's (0.0163) is nearer the float64 value (0.0162) than PyTorch's (0.0165), its formula working from "
        "(x - mean) * rstd rather than x; under PyTorch's AVX2/AVX-512 kernels also the four rows of one element "
        "of nn.functional.layer_norm's note",
    ),
}
# Samples where PyTorch's vector kernels (not its DEFAULT one) give other bits than ditto, and
# ditto's are PyTorch's DEFAULT kernel's: test_opinfo_sweep.py checks that under
# ATEN_CPU_CAPABILITY=default these entries pass whole.
KERNEL_LEVEL_DIFFERENCES = {
    "nn.functional.layer_norm": (1, "a row of one element: ditto gives exactly the bias, as PyTorch's DEFAULT kernel "
                                    "does; its AVX2/AVX-512 kernels compile x*rstd + (-mean*rstd) into an FMA, which "
                                    "leaves x*rstd's rounding error (times 1/sqrt(eps))"),
}
if TORCH_CAPABILITY != "DEFAULT":
    KNOWN_FAILURES.update(KERNEL_LEVEL_DIFFERENCES)


def opinfo_name(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


OPS = {opinfo_name(op): op for op in op_db}

# Every DITTO_UNARY row (src/ops/op_table.def) that OpInfo covers and no entry above sweeps:
# within a few ulp of PyTorch, so a new row is swept without a line here.
_SWEPT = {e.opinfo.split(".")[0] for e in SWEEP}
SWEEP += [
    Entry(r["id"], D(r["id"]), CLOSE)
    for r in ditto._C._op_table()
    if r["unary"] and r["id"] not in _SWEPT and r["id"] in OPS
]
BY_NAME = {e.opinfo: e for e in SWEEP}

_DT = {
    torch.float32: ditto.float32,
    torch.float64: ditto.float64,
    torch.int64: ditto.int64,
    torch.int32: ditto.int32,
    torch.bool: ditto.bool,
}


class Unsupported(Exception):
    """A sample uses something ditto has no type for (another dtype, a torch-only object)."""


def to_ditto(v, leaves):
    if isinstance(v, torch.Tensor):
        if v.dtype not in _DT:
            raise Unsupported(f"dtype {v.dtype}")
        d = ditto.from_numpy(v.detach().clone(memory_format=torch.preserve_format).numpy())
        if v.requires_grad:
            d = d.detach().requires_grad_()
            leaves.append((v, d))
        return d
    if isinstance(v, torch.dtype):
        if v not in _DT:
            raise Unsupported(f"dtype {v}")
        return _DT[v]
    if isinstance(v, torch.Size):
        return tuple(v)
    if isinstance(v, (list, tuple)):
        return type(v)(to_ditto(x, leaves) for x in v) if not hasattr(v, "_fields") else tuple(to_ditto(x, leaves) for x in v)
    if isinstance(v, dict):
        return {k: to_ditto(x, leaves) for k, x in v.items()}
    if isinstance(v, (torch.device, torch.memory_format, torch.layout, torch.Generator)):
        raise Unsupported(type(v).__name__)
    return v


def as_torch(v):
    """ditto results as torch tensors (copies), for comparison."""
    if isinstance(v, ditto.Tensor):
        return torch.from_numpy(v.detach().contiguous().numpy().copy()).reshape(tuple(v.shape))
    if isinstance(v, (list, tuple)):
        return [as_torch(x) for x in v]
    return v


def flat(v):
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            out.extend(flat(x))
        return out
    return [v]


def same(got, want, compare, want64=None):
    """None when got (a torch copy of ditto's result) matches want (torch's), else why not; want64:
    PyTorch's result for float64 copies of the inputs (NEAR64)."""
    g, w = flat(got), flat(want)
    r64 = flat(want64) if want64 is not None else [None] * len(w)
    if len(g) != len(w):
        return f"{len(g)} results, PyTorch gives {len(w)}"
    for a, b, c in zip(g, w, r64):
        if isinstance(b, torch.Tensor):
            if not isinstance(a, torch.Tensor):
                return f"got {type(a).__name__}, PyTorch gives a tensor"
            if a.dtype != b.dtype:
                return f"dtype {a.dtype}, PyTorch {b.dtype}"
            if a.shape != b.shape:
                return f"shape {tuple(a.shape)}, PyTorch {tuple(b.shape)}"
            if compare == EXACT or not b.is_floating_point():
                if b.is_floating_point():
                    bits = {torch.float32: torch.int32, torch.float64: torch.int64}[b.dtype]
                    an, bn = a.isnan(), b.isnan()
                    if not torch.equal(an, bn):
                        return "NaN in other places"
                    a0, b0 = a.masked_fill(an, 0), b.masked_fill(bn, 0)
                    if not torch.equal(a0.view(bits), b0.view(bits)):
                        d = (a0.view(bits) != b0.view(bits)).nonzero()[0].tolist()
                        return f"bits differ at {d}: {a0[tuple(d)].item()!r} vs {b0[tuple(d)].item()!r}"
                elif not torch.equal(a, b):
                    return "values differ"
            else:
                try:
                    if compare in (SUMMED, LOGSPACE):
                        tol = TOLERANCES[compare][b.dtype]
                        torch.testing.assert_close(a, b, equal_nan=True, rtol=tol, atol=tol)
                    else:
                        torch.testing.assert_close(a, b, equal_nan=True)
                except AssertionError as e:
                    if compare == NEAR64 and b.dtype == torch.float32 and isinstance(c, torch.Tensor):
                        ours = (a.double() - c.detach()).abs().max().item()
                        theirs = (b.detach().double() - c.detach()).abs().max().item()
                        if ours <= 2 * theirs:
                            continue
                        return (f"{ours:.3g} from PyTorch's float64 result, more than twice PyTorch's float32 "
                                f"({theirs:.3g})")
                    return str(e).split("\n")[0] + " " + " ".join(str(e).split("\n")[1:3])
        elif isinstance(b, (bool, int, float)):
            if a != b and not (isinstance(b, float) and b != b and a != a):
                return f"{a!r}, PyTorch {b!r}"
    return None


def upstream(t):
    """A fixed upstream gradient shaped like t: (i % 7 - 3) / 4."""
    n = t.numel()
    return ((torch.arange(n, dtype=torch.float64) % 7 - 3) / 4).to(t.dtype).reshape(t.shape)


def run_sample(entry, op, sample, dtype, perturb=None):
    """'pass', 'both raised', 'skipped: ...' or 'FAIL: ...'."""
    leaves = []
    try:
        d_input = to_ditto(sample.input, leaves)
        d_args = to_ditto(list(sample.args), leaves)
        d_kwargs = to_ditto(dict(sample.kwargs), leaves)
    except Unsupported as e:
        return f"skipped: {e}"
    t_err = d_err = None
    try:
        want = op.op(sample.input, *sample.args, **sample.kwargs)
    except Exception as e:  # noqa: BLE001
        t_err = e
    try:
        got = entry.fn(d_input, *d_args, **d_kwargs)
        if perturb:
            got = perturb(got)
    except Exception as e:  # noqa: BLE001
        d_err = e
    if t_err is not None and d_err is not None:
        return "both raised"
    if t_err is not None:
        return f"FAIL: PyTorch raised {type(t_err).__name__}: {str(t_err)[:120]}; ditto did not"
    if d_err is not None:
        return f"FAIL: ditto raised {type(d_err).__name__}: {str(d_err)[:160]}"
    want64 = None
    if entry.compare == NEAR64 and dtype == torch.float32:
        def wide(v):
            if isinstance(v, torch.Tensor) and v.is_floating_point():
                return v.detach().double()
            if isinstance(v, (list, tuple)):
                return type(v)(wide(x) for x in v)
            if isinstance(v, dict):
                return {k: wide(x) for k, x in v.items()}
            return v

        want64 = op.op(wide(sample.input), *wide(list(sample.args)), **wide(dict(sample.kwargs)))
    why = same(as_torch(got), want, entry.compare, want64)
    if why:
        return "FAIL: forward: " + why
    # backward: the gradient of sum(out * upstream) for every input that requires grad
    t_leaves = [t for t, _ in leaves]
    outs = [o for o in flat(want) if isinstance(o, torch.Tensor) and o.requires_grad]
    if not t_leaves or not outs:
        return "pass"
    d_outs = [o for o in flat(got) if isinstance(o, ditto.Tensor) and o.requires_grad]
    if len(d_outs) != len(outs):
        return f"FAIL: backward: {len(d_outs)} differentiable outputs, PyTorch {len(outs)}"
    grads = [upstream(o) for o in outs]
    t_grads = torch.autograd.grad(outs, t_leaves, grads, allow_unused=True)
    try:
        d_root = None
        for o, g in zip(d_outs, grads):
            term = (o * to_ditto(g, [])).sum()
            d_root = term if d_root is None else d_root + term
        d_root.backward()
    except Exception as e:  # noqa: BLE001
        return f"FAIL: backward raised {type(e).__name__}: {str(e)[:160]}"
    for (t, d), tg in zip(leaves, t_grads):
        dg = d.grad
        if tg is None:
            if dg is not None and bool((as_torch(dg) != 0).any()):
                return "FAIL: backward: a gradient where PyTorch has none"
            continue
        if dg is None:
            if bool((tg != 0).any()):
                return "FAIL: backward: no gradient where PyTorch has one"
            continue
        why = same(as_torch(dg), tg, entry.grad)
        if why:
            return "FAIL: backward: " + why
    return "pass"


def dtypes_for(entry, op):
    supported = op.supported_dtypes("cpu")
    return [d for d in (entry.dtypes or DTYPES) if d in supported]


def run_entry(entry, perturb=None, max_samples=MAX_SAMPLES):
    """{'samples': n, 'passed': n, 'both_raised': n, 'skipped': n, 'failures': [...]}"""
    op = OPS[entry.opinfo]
    r = {"samples": 0, "passed": 0, "both_raised": 0, "skipped": 0, "failures": []}
    for dtype in dtypes_for(entry, op):
        grad = op.supports_autograd and dtype in (torch.float32, torch.float64)
        torch.manual_seed(0)
        samples = op.sample_inputs("cpu", dtype, requires_grad=grad)
        for i, sample in enumerate(samples):
            if i >= max_samples:
                break
            outcome = run_sample(entry, op, sample, dtype, perturb)
            if outcome.startswith("skipped"):
                r["skipped"] += 1
                continue
            r["samples"] += 1
            if outcome == "pass":
                r["passed"] += 1
            elif outcome == "both raised":
                r["passed"] += 1
                r["both_raised"] += 1
            else:
                r["failures"].append(f"{str(dtype)[6:]} sample {i}: {outcome}")
    return r


def run_all(max_samples=MAX_SAMPLES):
    """{opinfo name: run_entry result} for every entry of SWEEP."""
    return {e.opinfo: run_entry(e, max_samples=max_samples) for e in SWEEP}


def coverage_markdown(results):
    """docs/coverage.md: every OpInfo entry of PyTorch 1.13, whether ditto has it, how it did."""
    total = sum(r["samples"] for r in results.values())
    passed = sum(r["passed"] for r in results.values())
    lines = [
        "<!-- Generated by tools/gen_coverage.py from python/tests/sweep.py; do not edit. -->",
        "# PyTorch's OpInfo ops in ditto",
        "",
        f"PyTorch {torch.__version__}'s OpInfo database (`torch.testing._internal.common_methods_invocations.op_db`) "
        f"has {len(OPS)} entries. The sweep (`python/tests/sweep.py`, run by `python/tests/test_opinfo_sweep.py`) "
        f"runs {len(results)} of them through ditto and PyTorch: {total} samples (at most {MAX_SAMPLES} per op and "
        f"dtype, dtypes float32, float64, int64, int32 and bool where OpInfo lists them), forward and, for "
        f"floating dtypes, backward; {passed} passed (both libraries agree, or both refuse).",
        "",
        "Compare: exact = the same bits; close = within torch.testing.assert_close's defaults; summed, "
        "logspace = within wider tolerances; near64 = close, or no further than twice PyTorch's own "
        "distance from its float64 result (sweep.py says why per op). Ops ditto does not have are listed with a dash; the op issues add them.",
        "",
        "| OpInfo entry | ditto | compare | samples | passed | note |",
        "|---|---|---|---|---|---|",
    ]
    for name in sorted(OPS):
        e = BY_NAME.get(name)
        if e is None:
            lines.append(f"| `{name}` | - | | | | |")
            continue
        r = results[name]
        note = e.note
        if name in KERNEL_LEVEL_DIFFERENCES:
            note = (note + "; " if note else "") + "passes whole against PyTorch's DEFAULT kernel; " + \
                KERNEL_LEVEL_DIFFERENCES[name][1]
        elif name in KNOWN_FAILURES:
            note = (note + "; " if note else "") + "known failures: " + KNOWN_FAILURES[name][1]
        lines.append(f"| `{name}` | yes | {e.compare} | {r['samples']} | {r['passed']} | {note} |")
    return "\n".join(lines) + "\n"
