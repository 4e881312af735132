#!/usr/bin/env python3
"""Known answers for the Python package's tests (python/tests/data/pytorch-python.json).

Runs each case below with real PyTorch (Debian's python3-torch 1.13: /usr/bin/python3
tools/gen_golden_python.py) and records what it printed and computed. The tests run the very same
code with `torch` bound to ditto and compare: reprs as text (with "ditto." read as "torch."),
numbers bit for bit (floats as hex).

  cases     one Python expression each, after optional setup statements: the result's repr,
            dtype, shape and values (a tensor), or its repr (anything else); a case marked
            "repr" is compared by its printed form only
  errors    bad calls: the class of the exception PyTorch raised
  programs  short training programs (seeded init, losses, optimizers with param groups,
            schedulers); each prints lines, compared exactly. They print losses rounded to 4
            decimals as the seed does: reductions over many elements follow ditto's canonical
            order, not PyTorch's vectorised one, and may differ from it in the last bits.
"""
import os
import sys

import torch

# The code that runs a case or a program and describes its result is the tests' own (ditto runs it
# there), so both sides run and describe it the same way.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
from golden import describe, run_case, run_program  # noqa: E402

CASES = [
    # factories and printing
    ("", "torch.tensor([[1.5, 2.0], [3.0, 4.0]])"),
    ("", "torch.tensor([1, 2, 3])"),
    ("", "torch.tensor([True, False])"),
    ("", "torch.tensor([1, 2.5])"),
    ("", "torch.tensor(3.25)"),
    ("", "torch.tensor([[1e-5, 1e5]])"),
    ("", "torch.tensor([1.0, float('nan'), float('inf')])"),
    ("", "torch.tensor([1, 2], dtype=torch.float64)"),
    ("", "torch.tensor([1, 2], dtype=torch.int32)"),
    ("", "torch.zeros(2, 3)"),
    ("", "torch.ones((2, 2), dtype=torch.int64)"),
    ("", "torch.full((2,), 7)"),
    ("", "torch.full((2,), 7.5)"),
    ("", "torch.arange(5)"),
    ("", "torch.arange(1, 2, 0.25)"),
    ("", "torch.linspace(0, 1, 5)"),
    ("", "torch.eye(3)"),
    ("", "torch.zeros(0)"),
    ("", "torch.zeros(2, 0)"),
    ("", "torch.arange(12).reshape(3, 4).shape"),
    ("", "torch.arange(12).reshape(3, 4).size(1)"),
    ("", "torch.arange(12).reshape(3, 4).stride()"),
    ("", "torch.float32"),
    ("", "torch.arange(6.).reshape(2, 3).dtype"),
    ("x = torch.arange(6.).reshape(2, 3)", "x.t().is_contiguous()"),
    ("x = torch.arange(6.).reshape(2, 3)", "x.tolist()"),
    ("x = torch.arange(6).reshape(2, 3)", "x.tolist()"),
    ("", "torch.tensor(2.5).item()"),
    ("", "torch.tensor(7).item()"),
    ("", "len(torch.zeros(4, 2))"),
    ("", "[t.tolist() for t in torch.arange(4).reshape(2, 2)]"),
    ("", "f'{torch.tensor(1.23456):.3f}'"),
    ("", "float(torch.tensor([2.5]))"),
    ("", "int(torch.tensor(3))"),
    ("", "bool(torch.tensor([0.0]))"),
    # random streams
    ("torch.manual_seed(0)", "torch.randn(2, 3)"),
    ("torch.manual_seed(0)", "torch.rand(4)"),
    ("torch.manual_seed(3)", "torch.randint(0, 10, (5,))"),
    ("torch.manual_seed(3)", "torch.randint(10, (5,))"),
    ("torch.manual_seed(1)", "torch.randperm(6)"),
    ("g = torch.Generator().manual_seed(42)", "torch.randn(3, generator=g)"),
    ("g = torch.Generator().manual_seed(42)", "g.initial_seed()"),
    ("torch.manual_seed(0)", "torch.randn(2).normal_(1.0, 2.0)"),
    ("torch.manual_seed(0)", "torch.empty(3).uniform_(-1, 1)"),
    # arithmetic, promotion, operators
    ("x = torch.tensor([1, 2, 3])", "x + 1.5"),
    ("x = torch.tensor([1, 2, 3])", "x / 2"),
    ("x = torch.tensor([1, 2, 3])", "x * True"),
    ("x = torch.tensor([1., 2., 3.])", "2 ** x"),
    ("x = torch.tensor([1., 2., 3.])", "x ** 2"),
    ("x = torch.tensor([1., 2., 3.])", "1 - x"),
    ("x = torch.tensor([1., 2., 3.])", "3 / x"),
    ("x = torch.tensor([1., 2., 3.])", "-x"),
    ("x = torch.tensor([1., -2., 3.])", "abs(x)"),
    ("x = torch.tensor([1., 2., 3.])", "x == 2"),
    ("x = torch.tensor([1., 2., 3.])", "x >= torch.tensor([3., 2., 1.])"),
    ("x = torch.tensor([1., 2., 3.]); x += 1; x *= 2", "x"),
    ("x = torch.tensor([1., 2., 3.]); x -= torch.tensor([1., 1., 1.]); x /= 4", "x"),
    ("x = torch.arange(6.).reshape(2, 3)", "x @ x.t()"),
    ("x = torch.arange(6.).reshape(2, 3)", "torch.add(x, 1, alpha=2)"),
    ("x = torch.arange(6.).reshape(2, 3)", "x.sub(torch.ones(3), alpha=0.5)"),
    ("x = torch.arange(6.).reshape(2, 3)", "torch.clamp(x, min=1, max=4)"),
    ("x = torch.arange(6.).reshape(2, 3)", "x.clamp(max=2)"),
    ("x = torch.arange(6.).reshape(2, 3)", "torch.where(x > 2, x, 0.0)"),
    ("x = torch.arange(6.).reshape(2, 3)", "x.masked_fill(x < 2, -1)"),
    ("x = torch.tensor([0.5, -1.0, 2.0])", "torch.sigmoid(x)"),
    ("x = torch.tensor([0.5, -1.0, 2.0])", "x.exp().log().tanh()"),
    ("x = torch.tensor([0.5, 1.0, 2.0])", "x.sqrt().rsqrt()"),
    ("x = torch.tensor([0.5, -1.0, 0.0])", "x.sign()"),
    # reductions
    ("x = torch.arange(12.).reshape(3, 4)", "x.sum()"),
    ("x = torch.arange(12.).reshape(3, 4)", "x.sum(1)"),
    ("x = torch.arange(12.).reshape(3, 4)", "x.sum(dim=(0, 1), keepdim=True)"),
    ("x = torch.arange(12).reshape(3, 4)", "x.sum(0, dtype=torch.float64)"),
    ("x = torch.arange(12.).reshape(3, 4)", "x.mean(0)"),
    ("x = torch.arange(12.).reshape(3, 4)", "torch.mean(x, dim=1, keepdim=True)"),
    ("x = torch.arange(1., 7.).reshape(2, 3)", "x.prod(1)"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "torch.max(x, 1)"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.min(dim=0)"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "torch.max(x, 1).indices"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.max()"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.argmax()"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.argmin(1)"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.amax(1)"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.var()"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.var(1, unbiased=False)"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.std(0)"),
    # softmax's sums run in another order than PyTorch's vectorised one: the same to 4 decimals
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "torch.softmax(x, 1)", "repr"),
    ("x = torch.tensor([[1., 5., 3.], [4., 2., 6.]])", "x.log_softmax(dim=0)", "repr"),
    # views
    ("x = torch.arange(24).reshape(2, 3, 4)", "x.permute(2, 0, 1).shape"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x.transpose(0, 2)[1]"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x.view(6, 4)[5]"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x.view(-1, 8).shape"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x.flatten(1).shape"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x.unsqueeze(1).squeeze().shape"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x.narrow(2, 1, 2)[0]"),
    ("x = torch.arange(4)", "x.expand(2, 4)"),
    ("", "torch.cat([torch.zeros(2), torch.ones(3)])"),
    ("", "torch.stack([torch.zeros(2), torch.ones(2)], dim=1)"),
    # indexing
    ("x = torch.arange(12).reshape(3, 4)", "x[1]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[-1, -2]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[:, 1:3]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[::2, ::3]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[1:]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[5:]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[..., None].shape"),
    ("x = torch.arange(12).reshape(3, 4)", "x[None, :, None].shape"),
    ("x = torch.arange(12).reshape(3, 4)", "x[..., 0]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[x > 6]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[torch.tensor([True, False, True])]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[torch.tensor([2, 0, 2])]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[torch.tensor([[0, 1], [2, 0]])]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[[0, 2]]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[:, [3, 0]]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[[0, 2], [1, 3]]"),
    ("x = torch.arange(12).reshape(3, 4)", "x[torch.arange(3), torch.tensor([0, 1, -1])]"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x[:, [0, 2], 1:3]"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x[[0, 1], :, [1, 2]]"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x[1, [0, 2]]"),
    ("x = torch.arange(24).reshape(2, 3, 4)", "x[x.sum(2) > 20]"),
    ("x = torch.arange(12.).reshape(3, 4); x[1] = 0", "x"),
    ("x = torch.arange(12.).reshape(3, 4); x[:, 2] = torch.tensor([7., 8., 9.])", "x"),
    ("x = torch.arange(12.).reshape(3, 4); x[0, 1:3] = -1", "x"),
    ("x = torch.arange(12.).reshape(3, 4); x[x > 5] = 0", "x"),
    ("x = torch.arange(12.).reshape(3, 4); x[torch.tensor([2, 0])] = 1.5", "x"),
    ("x = torch.arange(12.).reshape(3, 4); x[:, torch.tensor([1, 3])] = torch.tensor([[10., 11.]])", "x"),
    ("x = torch.arange(12.).reshape(3, 4); x[..., 0] = 5", "x"),
    ("x = torch.zeros(5); x[[1, 3]] = torch.tensor([2., 4.])", "x"),
    # logical operators and predicates (composites of table ops in ditto)
    ("a = torch.tensor([True, False, True]); b = torch.tensor([True, True, False])", "(a & b, a | b, a ^ b, ~a)"),
    ("x = torch.arange(6.).reshape(2, 3)", "x[(x > 1) & (x < 5)]"),
    ("", "torch.isnan(torch.tensor([1., float('nan')]))"),
    ("", "torch.tensor([1., float('inf'), float('nan')]).isfinite()"),
    ("", "torch.tensor([1., float('inf'), -float('inf')]).isinf()"),
    ("", "torch.allclose(torch.ones(3), torch.ones(3) + 1e-9)"),
    ("", "torch.allclose(torch.ones(3), torch.ones(3) + 1e-3)"),
    ("", "torch.ones(2, 3).all()"),
    ("", "torch.tensor([[0, 1], [0, 0]]).any(1)"),
    ("", "torch.logical_not(torch.tensor([0., 2.]))"),
    ("", "torch.cuda.is_available()"),
    ("torch.backends.cudnn.deterministic = True", "torch.are_deterministic_algorithms_enabled()"),
    # autograd
    ("a = torch.arange(6., requires_grad=True)", "a"),
    ("a = torch.arange(6., requires_grad=True); b = (a * 2).sum()", "b"),
    ("a = torch.arange(6., requires_grad=True); b = (a * a).sum(); b.backward()", "a.grad"),
    ("a = torch.arange(6., requires_grad=True); (a[torch.tensor([0, 2, 2])].sum() + a[1:].sum()).backward()",
     "a.grad"),
    ("a = torch.arange(6., requires_grad=True); a[a > 2].sum().backward()", "a.grad"),
    ("a = torch.arange(6., requires_grad=True).reshape(2, 3).detach().requires_grad_(); "
     "a[[0, 1], [2, 0]].sum().backward()", "a.grad"),
    ("a = torch.ones(2, 2, requires_grad=True); (a @ torch.arange(4.).reshape(2, 2)).sum().backward()", "a.grad"),
    ("a = torch.arange(6., requires_grad=True)", "(a * 2).grad_fn.name()"),
    ("a = torch.arange(6., requires_grad=True)", "a[1:].grad_fn.name()"),
    ("a = torch.arange(6., requires_grad=True)", "a.is_leaf and not (a + 1).is_leaf"),
    ("a = torch.arange(6., requires_grad=True)\nwith torch.no_grad():\n    b = a * 2", "b.requires_grad"),
    ("a = torch.arange(3., requires_grad=True); b = a.detach()", "b.requires_grad"),
    ("a = torch.ones(3, requires_grad=True); (a * 3).backward(torch.tensor([1., 2., 3.]))", "a.grad"),
]

# Bad calls: the exception's class must be PyTorch's (messages may differ).
ERRORS = [
    "torch.tensor([[1, 2], [3]])", "torch.zeros(2, 3)[5]", "torch.zeros(2, 3)[0, 0, 0]", "torch.ones(2) @ torch.ones(3)",
    "torch.tensor('a')", "len(torch.tensor(1.))", "torch.tensor([1., 2.]).item()", "float(torch.ones(2))",
    "bool(torch.ones(2))", "torch.zeros(2)[::-1]", "torch.zeros(2)[1.5]", "torch.zeros(3)[torch.tensor([0.5])]",
    "torch.zeros(3)[torch.tensor([True, False])]", "torch.zeros(2, 3).view(4)",
    "torch.ones(2, requires_grad=True).numpy()", "torch.zeros(-1)", "torch.ones(2).sum(5)", "torch.ones(2) + 'a'",
    "torch.ones(2).reshape(3)", "iter(torch.tensor(1.))", "torch.ones(2, 2).max(2)", "torch.arange(3)[[0, 5]]",
    "torch.cat([torch.ones(2), torch.ones(2, 2)])", "torch.zeros(2).backward()", "torch.nn.Linear(2, 2)(torch.ones(3))",
    "torch.nn.functional.dropout(torch.ones(2), p=1.5)", "torch.ones(2).requires_grad_().add_(1)",
    "torch.optim.SGD([], lr=0.1)", "torch.randn(2, 3, generator=1)", "torch.ones(2, 3).transpose(0, 2)",
    "torch.ones(2).unsqueeze(3)", "torch.ones(2, 3).softmax(2)", "torch.ones(3).index_select(0, torch.tensor([3]))",
    "torch.use_deterministic_algorithms(1)", "torch.set_deterministic_debug_mode(1.5)",
]  # fmt: skip

PROGRAMS = {
    "linear_init": """
torch.manual_seed(0)
m = torch.nn.Linear(3, 2)
print(m)
print([n for n, _ in m.named_parameters()])
print(m.weight)
print(m.bias)
""",
    "conv_init": """
torch.manual_seed(1)
c = torch.nn.Conv2d(2, 3, 3, padding=1)
print(c)
print(round(c.weight.sum().item(), 4), c.bias)
e = torch.nn.Embedding(4, 3, padding_idx=1)
print(e.weight)
""",
    "module_tree": """
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 3)
        self.bn = torch.nn.BatchNorm2d(2)
        self.head = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(8, 3), torch.nn.ReLU())
        self.scale = torch.nn.Parameter(torch.ones(1))
    def forward(self, x):
        return self.head(self.bn(self.conv(x))) * self.scale
torch.manual_seed(0)
net = Net()
print(net)
print(list(net.state_dict().keys()))
print([n for n, _ in net.named_parameters()])
print([n for n, _ in net.named_children()])
print(len(list(net.modules())))
x = torch.randn(2, 1, 4, 4)
y = net(x)
print(y)
y.sum().backward()
print(net.conv.weight.grad.sum().item(), net.scale.grad)
net.eval()
print(net(x))
print(net.bn.running_mean, net.bn.num_batches_tracked)
""",
    "sgd_groups": """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
opt = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.01}],
                      lr=0.1, momentum=0.9, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
x = torch.randn(16, 4)
y = torch.randn(16, 1)
for step in range(5):
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print(step, round(loss.item(), 4), [g["lr"] for g in opt.param_groups], sched.get_last_lr())
print(model[2].weight)
""",
    "cosine": """
w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.5)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01)
for step in range(10):
    opt.step()
    sched.step()
    print(step, repr(opt.param_groups[0]["lr"]))
""",
    "classifier": """
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
loss_fn = torch.nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 6)
target = torch.randint(0, 3, (32,))
for step in range(4):
    logits = model(x)
    loss = loss_fn(logits, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == target).sum().item() / 32
    print(step, round(loss.item(), 4), acc)
""",
}


def case(setup, expr, compare="bits"):
    d = describe(run_case(setup, expr, torch), torch)
    if compare == "repr":
        d = {"repr": d["repr"]}
    return {"setup": setup, "expr": expr, **d}


def raised(expr, lib):
    try:
        eval(expr, {"torch": lib})
    except Exception as e:  # noqa: BLE001
        return type(e).__name__
    raise SystemExit(f"{expr}: PyTorch raised nothing")


def main():
    torch.set_num_threads(1)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from golden_json import document, write

    data = {
        "cases": [case(*c) for c in CASES],
        "programs": {name: {"code": code, "output": run_program(code, torch)} for name, code in PROGRAMS.items()},
        "errors": [{"expr": e, "raises": raised(e, torch)} for e in ERRORS],
    }
    path = os.path.join(os.path.dirname(__file__), "..", "python", "tests", "data", "pytorch-python.json")
    write(path, document("tools/gen_golden_python.py", data), indent=1)
    print(f"wrote {len(data['cases'])} cases and {len(data['programs'])} programs to {os.path.normpath(path)}")


if __name__ == "__main__":
    sys.exit(main())
