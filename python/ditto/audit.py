"""ditto.audit: a log of every op ditto's dispatcher runs (forward and backward), with hashes of
each tensor argument's bits before and after, to find where two runs first differ with the
`ditto-audit diff a.log b.log` tool (docs/audit.md). DITTO_AUDIT=path records a whole program."""
import contextlib

from ditto import _C


def start(path, values=""):
    """Records to path; values: "" (none), "all" or "step:N" (the written tensors' bits)."""
    _C._audit_start(str(path), values)


def stop():
    _C._audit_stop()


def enabled():
    return _C._audit_enabled()


def mark(name, value):
    """A mark in the log; mark("step", n) makes the records after it step n's."""
    _C._audit_mark(name, int(value))


@contextlib.contextmanager
def recording(path, values=""):
    start(path, values)
    try:
        yield
    finally:
        stop()


# --- PyTorch programs: the same log, recorded from torch's dispatcher -----------------------------

# PyTorch's names for ops whose ditto name differs (the rest keep their aten name; the records of
# two libraries are compared by values, `ditto-audit diff`, so a name only labels a record).
_TORCH_NAMES = {
    "_log_softmax": "log_softmax",
    "_softmax": "softmax",
    "convolution": "conv2d",
    "nll_loss_forward": "nll_loss",
    "native_dropout": "dropout",
    "_scaled_dot_product_attention": "scaled_dot_product_attention",
}
_SKIPPED = {"aten::empty", "aten::empty_like", "aten::empty_strided", "aten::new_empty", "aten::new_empty_strided"}
# ops that read only their argument's shape and dtype: recorded with their results alone
_SHAPE_ONLY = {"aten::ones_like", "aten::zeros_like", "aten::full_like", "aten::rand_like", "aten::randn_like",
               "aten::randint_like", "aten::new_ones", "aten::new_zeros", "aten::new_full"}

def _torch_op_name(func):
    name = func._schema.name.split("::", 1)[-1]
    return _TORCH_NAMES.get(name, name)


class _TorchRecorder:
    """Records a PyTorch program's ops into a ditto.audit log: a TorchDispatchMode sees every op
    PyTorch's dispatcher runs (forward and backward, random draws included), hashes its tensor
    arguments as ditto's recorder does (ditto.audit's XXH3 of the bits in logical order, through
    DLPack without copies) before and after, and writes ditto's record; views are left out, as in
    ditto. Module forward hooks give the module paths; backward() and autograd.grad() mark the
    records they run as backward."""

    def __init__(self, path, values=""):
        import torch
        from torch.utils._python_dispatch import TorchDispatchMode

        # torch dtypes that ditto has (others are left out of a record)
        self.hashable = {torch.bool, torch.int32, torch.int64, torch.float32, torch.float64}
        self.torch = torch
        self.path = str(path)
        self.values = values
        self.backward = 0
        self.modules = []  # (module, pushed)
        recorder = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return recorder._dispatch(func, args, kwargs or {})

        self.mode = Mode()

    # tensors of an op's arguments (nested in lists too), in order
    def _tensors(self, values, out):
        for v in values:
            if isinstance(v, self.torch.Tensor):
                out.append(v)
            elif isinstance(v, (list, tuple)):
                self._tensors(v, out)
        return out

    def _ditto(self, t):
        if t.dtype not in self.hashable or t.device.type != "cpu" or t.is_sparse:
            return None
        from ditto import from_dlpack

        return from_dlpack(self.torch.utils.dlpack.to_dlpack(t.detach()))

    def _dispatch(self, func, args, kwargs):
        schema = func._schema
        rets = schema.returns
        is_view = bool(rets) and all(r.alias_info is not None and not r.alias_info.is_write for r in rets)
        # views compute nothing; empty*'s results are whatever memory held
        if is_view or schema.name in _SKIPPED or schema.name.startswith("profiler::") or not _C._audit_enabled():
            return func(*args, **kwargs)
        ins = [] if schema.name in _SHAPE_ONLY else self._tensors(list(args) + list(kwargs.values()), [])
        dins = [self._ditto(t) for t in ins]
        before = [_C._audit_hash(d) if d is not None else 0 for d in dins]
        out = func(*args, **kwargs)
        # results that are new tensors (an in-place op's result is its argument, already listed)
        outs = [t for t in self._tensors([out], []) if not any(t is i for i in ins)]
        keep = [(d, h) for d, h in zip(dins, before) if d is not None]
        for t in outs:
            d = self._ditto(t)
            if d is not None:
                keep.append((d, 0))
        _C._audit_record(_torch_op_name(func), "torch", self.backward > 0, [d for d, _ in keep],
                         [h for _, h in keep])
        return out

    def _pre(self, module, inputs):
        name = ""
        if self.modules:
            parent = self.modules[-1][0]
            name = next((n for n, c in parent._modules.items() if c is module), "")
        self.modules.append((module, _C._audit_push_module(name)))

    def _post(self, module, inputs, output):
        if self.modules:
            _, pushed = self.modules.pop()
            if pushed:
                _C._audit_pop_module()

    def _wrap_backward(self, fn):
        recorder = self

        def wrapped(*a, **k):
            recorder.backward += 1
            try:
                return fn(*a, **k)
            finally:
                recorder.backward -= 1

        return wrapped

    def __enter__(self):
        torch = self.torch
        from torch.nn.modules import module as tmodule

        _C._audit_start(self.path, self.values, "pytorch " + torch.__version__)
        self.hooks = [tmodule.register_module_forward_pre_hook(self._pre),
                      tmodule.register_module_forward_hook(self._post)]
        self.saved = (torch.autograd.backward, torch.autograd.grad, torch.autograd.profiler.record_function)
        torch.autograd.backward = self._wrap_backward(self.saved[0])
        torch.autograd.grad = self._wrap_backward(self.saved[1])
        # the profiler's ranges (the optimizers' step and zero_grad) make a tensor of their own
        torch.autograd.profiler.record_function = _NoRange
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        self.mode.__exit__(*exc)
        self.torch.autograd.backward, self.torch.autograd.grad, self.torch.autograd.profiler.record_function = self.saved
        for h in self.hooks:
            h.remove()
        stop()
        return False


class _NoRange:
    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def torch_recording(path, values=""):
    """Records the PyTorch ops run inside it into a ditto.audit log at path, for
    `ditto-audit diff torch.log ditto.log`: where a ditto port of a PyTorch program first computes
    other values (docs/audit.md). values as in start(); mark() splits it into steps as in ditto."""
    return _TorchRecorder(path, values)
