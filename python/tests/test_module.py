"""nn.Module subclassed in Python as in PyTorch, and optimizers over param groups."""
import math

import pytest

import ditto
from ditto import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.register_buffer("steps", ditto.zeros(1))
        self.gain = nn.Parameter(ditto.ones(3))

    def forward(self, x):
        return self.fc(x) * self.gain


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Block()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.head = nn.Linear(3, 1, bias=False)
        self.not_a_param = ditto.ones(2)  # a plain tensor attribute: not registered

    def forward(self, x):
        x = self.first(x)
        for b in self.blocks:
            x = ditto.relu(b(x))
        return self.head(x)


def test_attributes_register_in_assignment_order():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == [
        "first.gain", "first.fc.weight", "first.fc.bias",
        "blocks.0.gain", "blocks.0.fc.weight", "blocks.0.fc.bias",
        "blocks.1.gain", "blocks.1.fc.weight", "blocks.1.fc.bias", "head.weight",
    ]  # fmt: skip
    assert [n for n, _ in net.named_children()] == ["first", "blocks", "head"]
    assert len(list(net.modules())) == 9  # Net, first, first.fc, blocks, 2 x (block, fc), head
    assert [n for n, _ in net.named_buffers()] == ["first.steps", "blocks.0.steps", "blocks.1.steps"]
    assert "not_a_param" not in dict(net.named_parameters())
    assert list(net.state_dict())[:4] == ["first.gain", "first.steps", "first.fc.weight", "first.fc.bias"]


def test_reassignment_and_errors():
    b = Block()
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'gain'"):
        b.gain = ditto.ones(3)
    b.gain = None
    assert "gain" not in dict(b.named_parameters())
    with pytest.raises(AttributeError, match="'Block' object has no attribute 'missing'"):
        b.missing

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(ditto.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_call_runs_forward_and_gradients_reach_every_parameter():
    ditto.manual_seed(0)
    net = Net()
    net(ditto.randn(4, 3)).sum().backward()
    assert all(p.grad is not None and tuple(p.grad.shape) == tuple(p.shape) for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_train_eval_propagate():
    net = Net()
    net.eval()
    assert not net.training and not net.blocks[1].training
    net.train()
    assert net.first.fc.training


def test_state_dict_round_trip_and_strict_errors():
    ditto.manual_seed(1)
    a, b = Net(), Net()
    assert not ditto.equal(a.head.weight, b.head.weight)
    r = b.load_state_dict(a.state_dict())
    assert r.missing_keys == [] and r.unexpected_keys == []
    assert all(ditto.equal(x, y) for x, y in zip(a.state_dict().values(), b.state_dict().values()))
    sd = a.state_dict()
    del sd["head.weight"]
    sd["extra"] = ditto.ones(1)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "head.weight"'):
        b.load_state_dict(sd)
    r = b.load_state_dict(sd, strict=False)
    assert r.missing_keys == ["head.weight"] and r.unexpected_keys == ["extra"]
    sd = a.state_dict()
    sd["head.weight"] = ditto.ones(2, 3)
    with pytest.raises(RuntimeError, match="size mismatch for head.weight"):
        b.load_state_dict(sd)


def test_batchnorm_buffers_and_momentum_none():
    bn = nn.BatchNorm1d(2, momentum=None)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    x = ditto.tensor([[1.0, 2.0], [3.0, 6.0]])
    bn(x)
    bn(x * 3)
    assert bn.num_batches_tracked.item() == 2
    # cumulative average of the two batch means: (2 + 6) / 2 and (4 + 12) / 2
    assert bn.running_mean.tolist() == [4.0, 8.0]


def test_parameter_is_a_leaf_tensor_that_shares_memory():
    t = ditto.zeros(3)
    p = nn.Parameter(t)
    assert isinstance(p, ditto.Tensor) and p.requires_grad and p.is_leaf
    with ditto.no_grad():
        p += 1
    assert t.tolist() == [1.0, 1.0, 1.0]
    assert repr(p).startswith("Parameter containing:\ntensor([1., 1., 1.], requires_grad=True)")
    assert not nn.Parameter(ditto.ones(1), requires_grad=False).requires_grad


def train(opt_factory, steps=3):
    ditto.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
    opt = opt_factory(model)
    x, y = ditto.randn(8, 4), ditto.randn(8, 2)
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return [p.detach().clone() for p in model.parameters()], opt


@pytest.mark.parametrize("cls, kw", [(ditto.optim.SGD, {"momentum": 0.9}), (ditto.optim.Adam, {}),
                                     (ditto.optim.AdamW, {"weight_decay": 0.1})])  # fmt: skip
def test_param_groups_equal_separate_optimizers(cls, kw):
    # one optimizer over two groups with their own lr gives the bits of one optimizer per group
    grouped, _ = train(lambda m: cls([{"params": m[0].parameters()}, {"params": m[2].parameters(), "lr": 0.003}],
                                     lr=0.01, **kw))  # fmt: skip

    class Two:
        def __init__(self, m):
            self.a = cls(m[0].parameters(), lr=0.01, **kw)
            self.b = cls(m[2].parameters(), lr=0.003, **kw)

        def zero_grad(self):
            self.a.zero_grad()
            self.b.zero_grad()

        def step(self):
            self.a.step()
            self.b.step()

    separate, _ = train(Two)
    assert all(ditto.equal(x, y) for x, y in zip(grouped, separate))
    single, _ = train(lambda m: cls(m.parameters(), lr=0.01, **kw))
    assert not ditto.equal(grouped[-1], single[-1])  # the second group's lr did matter


def test_optimizer_state_dict_resumes_bit_for_bit():
    straight, _ = train(lambda m: ditto.optim.Adam(m.parameters(), lr=0.01), steps=4)
    ditto.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
    opt = ditto.optim.Adam(model.parameters(), lr=0.01)
    x, y = ditto.randn(8, 4), ditto.randn(8, 2)

    def step(m, o):
        loss = nn.functional.mse_loss(m(x), y)
        o.zero_grad()
        loss.backward()
        o.step()

    for _ in range(2):
        step(model, opt)
    saved_model, saved_opt = model.state_dict(), opt.state_dict()
    assert set(saved_opt["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    model2 = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
    model2.load_state_dict(saved_model)
    opt2 = ditto.optim.Adam(model2.parameters(), lr=0.01)
    opt2.load_state_dict(saved_opt)
    for _ in range(2):
        step(model2, opt2)
    assert all(ditto.equal(a, b) for a, b in zip(straight, model2.parameters()))


def test_optimizer_argument_checks():
    with pytest.raises(ValueError, match="empty parameter list"):
        ditto.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        ditto.optim.Adam([nn.Parameter(ditto.ones(1))], lr=-1)
    p = nn.Parameter(ditto.ones(1))
    with pytest.raises(ValueError, match="more than one parameter group"):
        ditto.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def test_lambda_and_exponential_schedulers():
    p = nn.Parameter(ditto.ones(1))
    opt = ditto.optim.SGD([p], lr=1.0)
    s = ditto.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5**e)
    lrs = []
    for _ in range(3):
        opt.step()
        s.step()
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == [0.5, 0.25, 0.125]
    opt = ditto.optim.SGD([p], lr=1.0)
    s = ditto.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    opt.step()
    s.step()
    assert s.get_last_lr() == [0.9] and math.isclose(opt.param_groups[0]["lr"], 0.9)


@pytest.mark.parametrize(
    "name, kwargs",
    [("SiLU", {}), ("Mish", {}), ("Hardswish", {}), ("ReLU6", {}), ("LeakyReLU", {"negative_slope": 0.2}),
     ("Softplus", {"beta": 2, "threshold": 1}), ("ELU", {"alpha": 0.5}), ("Hardtanh", {"min_val": -0.5, "max_val": 2.0})],
)
def test_activation_modules_match_pytorchs(name, kwargs):
    torch = pytest.importorskip("torch")
    values = [i / 4 for i in range(-24, 25)]
    ours = getattr(nn, name)(**kwargs)(ditto.tensor(values, dtype=ditto.float64)).tolist()
    theirs = getattr(torch.nn, name)(**kwargs)(torch.tensor(values, dtype=torch.float64)).tolist()
    assert ours == pytest.approx(theirs, rel=1e-15, abs=1e-15)
    assert repr(getattr(nn, name)(**kwargs)) == repr(getattr(torch.nn, name)(**kwargs))


def test_a_gpt_block_in_pytorchs_words():
    """split of one projection into q, k, v; einsum attention with a tril mask; a norm for clipping."""
    ditto.manual_seed(0)
    x = ditto.randn(2, 5, 12, requires_grad=True)
    qkv = nn.Linear(12, 36)(x)
    q, k, v = qkv.split(12, dim=2)
    scores = ditto.einsum("btd,bsd->bts", q, k) / math.sqrt(12)
    causal = ditto.tril(ditto.ones(5, 5, dtype=ditto.bool))
    att = scores.masked_fill(causal.logical_not(), float("-inf")).softmax(-1)
    y = ditto.einsum("bts,bsd->btd", att, v)
    assert y.shape == (2, 5, 12)
    assert ditto.equal(att[:, 0, 1:], ditto.zeros(2, 4))  # the first position sees only itself
    y.sum().backward()
    total = ditto.linalg.vector_norm(ditto.stack([ditto.linalg.vector_norm(x.grad)]))
    assert total.item() == pytest.approx(x.grad.norm().item(), rel=1e-6)
    assert [t.shape for t in ditto.chunk(qkv, 3, -1)] == [(2, 5, 12)] * 3
    assert len(x.unbind(1)) == 5


def test_clip_grad_norm_and_value_match_pytorch_bit_for_bit():
    torch = pytest.importorskip("torch")
    import numpy as np

    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) * 3 for s in ((4, 5), (7,), (2, 3, 2))]
    for norm_type, max_norm in ((2.0, 1.0), (1.0, 0.5), (float("inf"), 0.1), (3.0, 100.0)):
        ours = [ditto.zeros(a.shape, requires_grad=True) for a in arrays]
        theirs = [torch.zeros(a.shape, requires_grad=True) for a in arrays]
        for p, q, a in zip(ours, theirs, arrays):
            p.grad = ditto.from_numpy(a.copy())
            q.grad = torch.from_numpy(a.copy())
        total = nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
        expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
        assert total.item() == pytest.approx(expected.item(), rel=1e-6)
        for p, q in zip(ours, theirs):
            assert np.allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=0)
    p = ditto.zeros(3, requires_grad=True)
    p.grad = ditto.tensor([-2.0, 0.5, 3.0])
    nn.utils.clip_grad_value_([p], 1.0)
    assert p.grad.tolist() == [-1.0, 0.5, 1.0]
    p.grad = ditto.tensor([float("inf"), 1.0, 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def test_warmup_then_cosine_schedules_give_pytorchs_lrs():
    torch = pytest.importorskip("torch")
    ours = ditto.optim.SGD([ditto.zeros(1, requires_grad=True)], lr=0.1)
    theirs = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)

    def chain(optim, mod):
        warm = mod.LinearLR(optim, start_factor=0.01, total_iters=10)
        cos = mod.CosineAnnealingLR(optim, T_max=40, eta_min=1e-4)
        return mod.SequentialLR(optim, [warm, cos], milestones=[10])

    a, b = chain(ours, ditto.optim.lr_scheduler), chain(theirs, torch.optim.lr_scheduler)
    got, want = [], []
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SequentialLR's step(0) is deprecated in PyTorch
        for _ in range(60):
            got.append(ours.param_groups[0]["lr"])
            want.append(theirs.param_groups[0]["lr"])
            a.step()
            b.step()
    assert got == want  # the same floats
    assert a.get_last_lr() == b.get_last_lr()
    lin_ours = ditto.optim.lr_scheduler.LinearLR(ditto.optim.SGD([ditto.zeros(1, requires_grad=True)], lr=1.0), 0.5, 1.0, 4)
    assert lin_ours.get_last_lr() == [0.5]
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        ditto.optim.lr_scheduler.LinearLR(ours, start_factor=0)


def test_rmsnorm_and_from_pretrained_match_pytorch():
    torch = pytest.importorskip("torch")
    x = ditto.randn(2, 3, 8)
    m = nn.RMSNorm(8)
    y = m(x)
    ref = x * (x.pow(2).mean(-1, keepdim=True) + 1.1920928955078125e-07).rsqrt()
    assert ditto.equal(y, ref)
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    w = ditto.randn(5, 3)
    e = nn.Embedding.from_pretrained(w)
    assert not e.weight.requires_grad and ditto.equal(e(ditto.tensor([4, 0])), w[ditto.tensor([4, 0])])
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    del torch


def test_tied_weights_count_once():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(10, 4)
            self.head = nn.Linear(4, 10, bias=False)
            self.head.weight = self.wte.weight

    m = Tied()
    assert [n for n, _ in m.named_parameters()] == ["wte.weight"]
    assert list(m.state_dict()) == ["wte.weight", "head.weight"]


@pytest.mark.parametrize("kind", ["sgd", "adamw"])
@pytest.mark.parametrize("three_phase", [False, True])
def test_one_cycle_gives_pytorchs_lrs_momenta_and_steps(kind, three_phase):
    """Two parameter groups (one without weight decay), OneCycleLR cycling lr and momentum (SGD's
    momentum, AdamW's beta1): the same floats as PyTorch every step, and parameters that move as
    PyTorch's do."""
    torch = pytest.importorskip("torch")
    import numpy as np

    rng = np.random.default_rng(3)
    w0, b0 = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    grads = [(rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32))
             for _ in range(20)]  # fmt: skip

    def run(mod):
        w = mod.tensor(w0.copy(), requires_grad=True)
        b = mod.tensor(b0.copy(), requires_grad=True)
        groups = [{"params": [w]}, {"params": [b], "weight_decay": 0.0}]
        opt = mod.optim.SGD(groups, lr=0.1, momentum=0.9, weight_decay=0.01) if kind == "sgd" else \
            mod.optim.AdamW(groups, lr=1e-3, weight_decay=0.1)  # fmt: skip
        sched = mod.optim.lr_scheduler.OneCycleLR(opt, max_lr=[0.05, 0.02], total_steps=20, three_phase=three_phase,
                                                  anneal_strategy="cos" if kind == "sgd" else "linear")  # fmt: skip
        trace = []
        for gw, gb in grads:
            w.grad, b.grad = mod.tensor(gw.copy()), mod.tensor(gb.copy())
            opt.step()
            sched.step()
            trace.append([(g["lr"], g["momentum"] if kind == "sgd" else g["betas"][0]) for g in opt.param_groups])
        return trace, w.detach().numpy().copy(), b.detach().numpy().copy()

    ours, theirs = run(ditto), run(torch)
    assert ours[0] == theirs[0]
    assert len({m for step in ours[0] for _, m in step}) > 5  # the momentum moved
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5, atol=1e-6)
    if kind == "sgd":  # torch.optim.SGD's step is ditto's, bit for bit
        assert ours[1].tobytes() == theirs[1].tobytes() and ours[2].tobytes() == theirs[2].tobytes()


def test_group_and_instance_norm_match_pytorch_forward_backward_and_running_stats():
    torch = pytest.importorskip("torch")
    import numpy as np

    a = np.random.default_rng(5).standard_normal((3, 6, 4, 5)) * 2 + 0.5
    cases = [
        ("GroupNorm", (3, 6), {}),
        ("GroupNorm", (1, 6), {"affine": False}),
        ("InstanceNorm2d", (6,), {}),
        ("InstanceNorm2d", (6,), {"affine": True, "track_running_stats": True, "momentum": 0.3}),
        ("InstanceNorm1d", (6,), {"affine": True}),
    ]
    for name, args, kwargs in cases:
        arr = a.reshape(3, 6, 20) if name == "InstanceNorm1d" else a
        ours_m = getattr(nn, name)(*args, dtype=ditto.float64, **kwargs)
        theirs_m = getattr(torch.nn, name)(*args, dtype=torch.float64, **kwargs)
        assert sorted(ours_m.state_dict()) == sorted(theirs_m.state_dict()), name
        for train in (True, False):
            ours_m.train(train)
            theirs_m.train(train)
            x, t = ditto.tensor(arr, requires_grad=True), torch.tensor(arr, requires_grad=True)
            yo, yt = ours_m(x), theirs_m(t)
            np.testing.assert_allclose(yo.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
            w = np.cos(np.arange(arr.size)).reshape(arr.shape)
            (yo * ditto.tensor(w)).sum().backward()
            (yt * torch.tensor(w)).sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
            for k, v in theirs_m.state_dict().items():
                np.testing.assert_allclose(ours_m.state_dict()[k].numpy(), v.numpy(), rtol=1e-12, err_msg=k)
    assert repr(nn.GroupNorm(2, 4)) == repr(torch.nn.GroupNorm(2, 4))
    with pytest.raises(ValueError, match="divisible"):
        nn.GroupNorm(4, 6)


@pytest.mark.parametrize("name,shape", [("Dropout2d", (4, 8, 3, 5)), ("Dropout1d", (4, 8, 7)), ("Dropout1d", (8, 7))])
def test_channel_dropout_draws_pytorchs_channels(name, shape):
    torch = pytest.importorskip("torch")
    import numpy as np

    arr = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    ditto.manual_seed(9)
    torch.manual_seed(9)
    x, t = ditto.tensor(arr, requires_grad=True), torch.tensor(arr, requires_grad=True)
    yo, yt = getattr(nn, name)(0.4)(x), getattr(torch.nn, name)(0.4)(t)
    assert yo.detach().numpy().tobytes() == yt.detach().numpy().tobytes()
    yo.sum().backward()
    yt.sum().backward()
    assert x.grad.numpy().tobytes() == t.grad.numpy().tobytes()
    assert (yo.detach().numpy() == 0).sum() > 0
