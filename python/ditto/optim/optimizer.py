"""The optimizers: param groups in Python, one C++ optimizer per group."""
from ditto import _C, enable_grad  # ditto/__init__.py defines enable_grad before it imports optim

_o = _C._optim


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.param_groups = []
        self._impls = []  # per group: (C++ optimizer, the options it was built with)
        if isinstance(params, _C.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, but got "
                + type(params).__name__
            )
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError("param group must be a dict")
        params = param_group["params"]
        param_group["params"] = [params] if isinstance(params, _C.Tensor) else list(params)
        for p in param_group["params"]:
            if not isinstance(p, _C.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + type(p).__name__)
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
        self._impls.append(None)

    # What schedulers write into a group: set on the C++ optimizer each step, not rebuilt for.
    _scheduled = ("params", "lr", "initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum")

    def _options(self, group):
        return {k: v for k, v in group.items() if k not in self._scheduled}

    def _impl(self, i):
        group = self.param_groups[i]
        options = self._options(group)
        held = self._impls[i]
        if held is None or held[1] != options or held[2] != [id(p) for p in group["params"]]:
            impl = self._make(group)
            if held is not None:
                impl.load_state_dict(held[0].state_dict())  # options changed: keep the state
            held = (impl, options, [id(p) for p in group["params"]])
            self._impls[i] = held
        held[0].lr = float(group["lr"])
        held[0].momentum = float(self._momentum(group))
        return held[0]

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for i in range(len(self.param_groups)):
            self._impl(i).step()
        return loss

    # PyTorch's format: {"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}
    def state_dict(self):
        state, groups, offset = {}, [], 0
        for i, group in enumerate(self.param_groups):
            s = self._impl(i).state_dict()
            for j, entries in s["state"].items():
                if entries:
                    state[offset + j] = dict(entries)
            g = {k: v for k, v in group.items() if k != "params"}
            g["params"] = list(range(offset, offset + len(group["params"])))
            g["_step"] = s["step"]
            groups.append(g)
            offset += len(group["params"])
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for i, (group, saved) in enumerate(zip(self.param_groups, groups)):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
                )
            for k, v in saved.items():
                if k not in ("params", "_step"):
                    group[k] = v
            per = {j: state_dict["state"].get(idx, {}) for j, idx in enumerate(saved["params"])}
            self._impl(i).load_state_dict({"step": saved.get("_step", 0), "state": per})

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"\n    {key}: {group[key]}"
        return s + "\n)"


class SGD(Optimizer):
    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):  # fmt: skip
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize)  # fmt: skip
        super().__init__(params, defaults)

    def _options(self, group):  # momentum is set each step (OneCycleLR cycles it)
        return {k: v for k, v in super()._options(group).items() if k != "momentum"}

    def _momentum(self, group):
        return group["momentum"]

    def _make(self, g):
        return _o.SGD(g["params"], float(g["lr"]), float(g["momentum"]), float(g["dampening"]),
                      float(g["weight_decay"]), bool(g["nesterov"]), bool(g["maximize"]))  # fmt: skip


class Adam(Optimizer):
    _cls = _o.Adam

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None):  # fmt: skip
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize)  # fmt: skip
        super().__init__(params, defaults)

    def _options(self, group):  # beta1 is set each step (OneCycleLR cycles it)
        o = super()._options(group)
        o["betas"] = tuple(o["betas"])[1:]
        return o

    def _momentum(self, group):
        return group["betas"][0]

    def _make(self, g):
        b = g["betas"]
        return type(self)._cls(g["params"], float(g["lr"]), (float(b[0]), float(b[1])), float(g["eps"]),
                               float(g["weight_decay"]), bool(g["amsgrad"]), bool(g["maximize"]))  # fmt: skip


class AdamW(Adam):
    _cls = _o.AdamW

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):  # fmt: skip
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
