"""ditto: tensors and autograd whose results are the same bits on every run.

PyTorch's Python API over ditto's C++ library, so that `import ditto as torch` runs PyTorch
programs: tensors, ops, autograd, deterministic mode, nn, optim, NumPy and DLPack interop.
"""
import functools as _functools

from ditto import _C
from ditto._C import (  # noqa: F401  (re-exported names)
    Generator,
    NondeterministicError,
    Tensor,
    abs,
    add,
    addcdiv,
    addcmul,
    addmm,
    amax,
    amin,
    arange,
    argmax,
    argmin,
    argsort,
    argwhere,
    baddbmm,
    bernoulli,
    bincount,
    bmm,
    bool,
    bucketize,
    cat,
    ceil,
    chunk,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    clone,
    concat,
    cos,
    cummax,
    cummin,
    cumprod,
    cumsum,
    default_generator,
    div,
    divide,
    dtype,
    einsum,
    empty,
    empty_like,
    empty_strided,
    eq,
    equal,
    erf,
    exp,
    expm1,
    eye,
    fix,
    flatten,
    flip,
    float32,
    float64,
    floor,
    fmod,
    from_dlpack,
    from_numpy,
    full,
    full_like,
    gather,
    ge,
    ger,
    get_num_threads,
    gt,
    histc,
    index_add,
    index_copy,
    index_fill,
    index_put,
    index_select,
    int32,
    int64,
    is_floating_point,
    is_grad_enabled,
    is_tensor,
    kthvalue,
    le,
    lerp,
    linspace,
    log,
    log1p,
    log_softmax,
    logcumsumexp,
    logsumexp,
    lt,
    masked_fill,
    masked_scatter,
    masked_select,
    matmul,
    max,
    maximum,
    mean,
    median,
    min,
    minimum,
    mm,
    mode,
    moveaxis,
    movedim,
    multinomial,
    mul,
    multiply,
    nanmedian,
    narrow,
    native_batch_norm,
    native_group_norm,
    native_layer_norm,
    ne,
    neg,
    negative,
    nonzero,
    norm,
    normal,
    numel,
    ones,
    ones_like,
    outer,
    permute,
    pow,
    prod,
    promote_types,
    put,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    relu,
    remainder,
    repeat_interleave,
    reshape,
    result_type,
    roll,
    round,
    rsqrt,
    scalar_tensor,
    scatter,
    scatter_add,
    scatter_reduce,
    searchsorted,
    select,
    set_num_threads,
    sigmoid,
    sign,
    sin,
    softmax,
    sort,
    split,
    split_with_sizes,
    sqrt,
    squeeze,
    stack,
    std,
    sub,
    subtract,
    sum,
    swapaxes,
    swapdims,
    t,
    take,
    take_along_dim,
    tanh,
    tensor,
    tile,
    topk,
    transpose,
    tril,
    triu,
    true_divide,
    trunc,
    unbind,
    unique,
    unique_consecutive,
    unsqueeze,
    var,
    where,
    zeros,
    zeros_like,
)
# Every DITTO_UNARY row of the op table (src/ops/op_table.def): the extension binds its function
# and method from the table, and so does this module, so a new row needs no name above.
for _row in _C._op_table():
    if _row["unary"]:
        globals()[_row["id"]] = getattr(_C, _row["id"])
del _row

# PyTorch's aliases. They shadow the builtins bool, int and float in this file: its code uses
# _bool and _int (defined below) instead.
float = float32  # noqa: A001
double = float64
long = int64
int = int32  # noqa: A001
__version__ = "0.1.0"


class Size(tuple):
    """A tensor's shape: a tuple of ints, printed as ditto.Size([2, 3])."""

    def __repr__(self):
        return "ditto.Size([" + ", ".join(str(d) for d in self) + "])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r


_C._set_size_class(Size)


class device:
    """ditto runs on the CPU: device('cpu') is the only device."""

    def __init__(self, type="cpu", index=None):  # noqa: A002
        if isinstance(type, device):
            type = type.type
        if type != "cpu":
            raise RuntimeError(f"ditto runs on the CPU only, got device '{type}'")
        self.type = "cpu"
        self.index = index

    def __repr__(self):
        return "device(type='cpu')"

    def __str__(self):
        return "cpu"

    def __eq__(self, other):
        return str(other) == "cpu"

    def __hash__(self):
        return hash("cpu")


# ---------------------------------------------------------------- deterministic mode
def use_deterministic_algorithms(mode, *, warn_only=False):
    """As torch.use_deterministic_algorithms: ops with a nondeterministic kernel switch to a
    deterministic one, and ops that have none raise (or, with warn_only, warn)."""
    if type(mode) is not _bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not {type(mode).__name__}")
    if type(warn_only) is not _bool:
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not {type(warn_only).__name__}")
    _C._set_deterministic_algorithms(mode, warn_only=warn_only)


def are_deterministic_algorithms_enabled():
    return _C._get_deterministic_algorithms()


def is_deterministic_algorithms_warn_only_enabled():
    return _C._get_deterministic_algorithms_warn_only()


def set_deterministic_debug_mode(debug_mode):
    """0 / "default": off; 1 / "warn": on with warn_only; 2 / "error": on."""
    if isinstance(debug_mode, str):
        modes = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in modes:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, " f"but got {debug_mode}"
            )
        debug_mode = modes[debug_mode]
    elif not isinstance(debug_mode, _int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode == 0:
        _C._set_deterministic_algorithms(False)
    elif debug_mode == 1:
        _C._set_deterministic_algorithms(True, warn_only=True)
    elif debug_mode == 2:
        _C._set_deterministic_algorithms(True)
    else:
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")


def get_deterministic_debug_mode():
    if are_deterministic_algorithms_enabled():
        return 1 if is_deterministic_algorithms_warn_only_enabled() else 2
    return 0


class allow_nondeterministic:
    """Lets the named ops (ditto-ops lists them) run their nondeterministic kernel silently, in
    this scope and on this thread only: `with ditto.allow_nondeterministic("put_"): ...`."""

    def __init__(self, *ops):
        self._guard = _C._AllowNondeterministic(list(ops))

    def __enter__(self):
        self._guard.__enter__()
        return self

    def __exit__(self, *exc):
        self._guard.__exit__(*exc)
        return False


# ---------------------------------------------------------------- random
def manual_seed(seed):
    """Seeds the default generator, as torch.manual_seed; returns it."""
    return default_generator.manual_seed(_int(seed))


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state: PyTorch's 5056 bytes (a bytes object; ditto has no uint8)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


# ---------------------------------------------------------------- autograd switches
class _GradMode:
    def __init__(self, enabled):
        self._enabled = enabled

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C.set_grad_enabled(self._enabled)

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradMode):
    """Context manager and decorator: ops inside record no gradient (this thread)."""

    def __init__(self):
        super().__init__(False)


class enable_grad(_GradMode):
    def __init__(self):
        super().__init__(True)


class set_grad_enabled(_GradMode):
    def __init__(self, mode):
        super().__init__(mode)
        self._prev = _C.is_grad_enabled()
        _C.set_grad_enabled(mode)  # also works as a plain call, as in PyTorch

    def __enter__(self):
        pass

    def __call__(self, fn):
        _C.set_grad_enabled(self._prev)
        mode = self._enabled

        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper


inference_mode = no_grad


_bool = type(True)
_int = type(1)

from ditto import audit, autograd, backends, cuda, distributed, linalg, nn, optim, return_types, utils  # noqa: E402,F401
from ditto.serialization import (  # noqa: E402,F401
    load_checkpoint,
    load_safetensors,
    safetensors_metadata,
    save_checkpoint,
    save_safetensors,
)
from ditto._composites import (  # noqa: E402,F401
    all,
    allclose,
    any,
    fill,
    isfinite,
    isinf,
    isnan,
    logical_and,
    logical_not,
    logical_or,
)


def constant_pad_nd(input, pad, value=0):
    return nn.functional.pad(input, pad, "constant", value)
