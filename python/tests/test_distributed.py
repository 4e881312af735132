"""ditto.distributed, nn.parallel.DistributedDataParallel and the samplers: DistributedSampler against
PyTorch's indices (committed known answers from tools/gen_golden_sampler.py, and live PyTorch where
it imports), LeafSampler's batches and leaves, the collectives in a world of one process,
LeafReducer and DistributedDataParallel against a reference of the canonical leaf tree (Note [Leaf
reduction order] in src/distributed/leaf_reduce.cpp) written here in numpy float32, and
examples/ddp/ddp.py under mpirun printing the bits of a run in one process."""
import json
import os
import random
import shutil
import subprocess
import sys

import numpy as np
import pytest

import ditto
import ditto.distributed as dist
from ditto import nn
from ditto.nn.parallel import DistributedDataParallel
from ditto.utils.data import DistributedSampler, LeafSampler

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
SAMPLER_FILE = os.path.join(ROOT, "tests", "data", "pytorch-sampler.json")
DDP_EXAMPLE = os.path.join(ROOT, "examples", "ddp", "ddp.py")


def torch_or_none():
    try:
        import torch  # Debian's python3-torch, installed by scripts/test.sh
    except ImportError:
        return None
    return torch


def bits(t):
    t = t.detach().contiguous()
    return (str(t.dtype), tuple(t.shape), t.numpy().tobytes())


# ------------------------------------------------------------------------------------------------
# The canonical tree, from the Note: node (lo, size) is absent when lo >= L, a leaf when size is 1,
# else left + right, or the left child alone when the right one is absent; the root is (0, P), P
# the power of two at or above L. Values are numpy float32 (or float64) arrays, so + is IEEE addition
# of that type, element by element.
def tree_sum(leaves):
    n = len(leaves)
    root = 1
    while root < n:
        root *= 2

    def node(lo, size):
        if lo >= n:
            return None
        if size == 1:
            return leaves[lo]
        left = node(lo, size // 2)
        right = node(lo + size // 2, size // 2)
        if right is None:
            return left
        return left + right

    return node(0, root)


def sequential_sums(leaves):
    """The sum from the left and from the right: other associations than the tree's (for 3 leaves or
    more, one of them differs from it)."""
    left = leaves[0]
    for v in leaves[1:]:
        left = left + v
    right = leaves[-1]
    for v in leaves[-2::-1]:
        right = v + right
    return left, right


def test_the_reference_tree_is_the_notes_tree():
    # Strings "add" by concatenating with parentheses: the tree's shape, checked by hand.
    class S(str):
        def __add__(self, o):
            return S(f"({self}+{o})")

    shape = {n: tree_sum([S(str(i)) for i in range(n)]) for n in (1, 2, 3, 5, 6, 8)}
    assert shape == {1: "0", 2: "(0+1)", 3: "((0+1)+2)", 5: "(((0+1)+(2+3))+4)",
                     6: "(((0+1)+(2+3))+(4+5))", 8: "(((0+1)+(2+3))+((4+5)+(6+7)))"}


# ------------------------------------------------------------------------------------------------
# DistributedSampler


def sampler_indices(size, num_replicas, rank, shuffle, seed, epoch, drop_last):
    s = DistributedSampler(range(size), num_replicas=num_replicas, rank=rank, shuffle=shuffle, seed=seed,
                           drop_last=drop_last)
    s.set_epoch(epoch)
    got = list(iter(s))
    assert len(s) == len(got)
    assert list(iter(s)) == got  # iterating again gives the same epoch
    return got


def test_distributed_sampler_gives_pytorchs_committed_indices():
    with open(SAMPLER_FILE) as f:
        cases = json.load(f)["sections"]["distributed_sampler"]
    assert len(cases) > 1000
    assert any(c["size"] < c["num_replicas"] for c in cases) and any(c["size"] == 0 for c in cases)
    bad = []
    for c in cases:
        got = sampler_indices(c["size"], c["num_replicas"], c["rank"], c["shuffle"], c["seed"], c["epoch"],
                              c["drop_last"])
        if got != c["indices"]:
            bad.append({k: v for k, v in c.items() if k != "indices"})
    assert not bad, f"{len(bad)} of {len(cases)} cases differ from PyTorch's, the first: {bad[:3]}"


def test_distributed_sampler_gives_live_pytorchs_indices():
    torch = torch_or_none()
    if torch is None:
        pytest.skip("PyTorch is not installed")
    from torch.utils.data import DistributedSampler as TorchSampler

    rng = random.Random(20240)
    for _ in range(40):
        size = rng.choice([rng.randrange(0, 12), rng.randrange(0, 400)])
        n = rng.randrange(1, 10)
        cfg = dict(num_replicas=n, rank=rng.randrange(n), shuffle=rng.random() < 0.7,
                   seed=rng.choice([0, rng.randrange(2**31), rng.randrange(2**62)]), drop_last=rng.random() < 0.5)
        epoch = rng.randrange(0, 20)
        want = TorchSampler(range(size), **cfg)
        want.set_epoch(epoch)
        got = sampler_indices(size, cfg["num_replicas"], cfg["rank"], cfg["shuffle"], cfg["seed"], epoch,
                              cfg["drop_last"])
        assert got == list(iter(want)), (size, epoch, cfg)
        assert len(got) == len(want)


def test_distributed_sampler_takes_the_world_of_one_by_default():
    s = DistributedSampler(list(range(10)), shuffle=False)
    assert (s.num_replicas, s.rank, len(s)) == (1, 0, 10)
    assert list(s) == list(range(10))
    shuffled = DistributedSampler(10, seed=7)  # a size in place of a dataset
    assert sorted(shuffled) == list(range(10)) and list(shuffled) != list(range(10))


@pytest.mark.parametrize("kwargs, size, message", [
    (dict(num_replicas=3, rank=3), 10, r"Invalid rank 3, rank should be in the interval \[0, 2\]"),
    (dict(num_replicas=3, rank=-2), 10, r"Invalid rank -2"),
    (dict(num_replicas=0, rank=0), 10, r"num_replicas must be >= 1, got 0"),
    (dict(num_replicas=2, rank=0), -1, r"dataset size must be >= 0, got -1"),
])
def test_distributed_sampler_refuses_bad_arguments(kwargs, size, message):
    with pytest.raises((RuntimeError, ValueError), match=message):
        DistributedSampler(size, **kwargs)


# ------------------------------------------------------------------------------------------------
# LeafSampler


def epoch_order(size, seed, epoch):
    """The order of an epoch: randperm from a generator seeded with seed + epoch (PyTorch's where it
    imports, checked against ditto's own randperm, else ditto's)."""
    g = ditto.Generator().manual_seed(seed + epoch)
    mine = ditto.randperm(size, generator=g).tolist()
    torch = torch_or_none()
    if torch is not None:
        want = torch.randperm(size, generator=torch.Generator().manual_seed(seed + epoch)).tolist()
        assert mine == want
        return want
    return mine


@pytest.mark.parametrize("size, batch, leaves, seed", [(100, 12, 4, 0), (64, 16, 16, 1234), (7, 3, 1, 5),
                                                       (50, 50, 5, 2**33 + 1)])
def test_leaf_sampler_batches_are_the_epochs_order_cut_into_leaves(size, batch, leaves, seed):
    s = LeafSampler(size, batch, leaves, shuffle=True, seed=seed)
    assert s.batches_per_epoch == size // batch and s.epoch == 0
    orders = set()
    for epoch in (0, 1, 5):
        s.set_epoch(epoch)
        assert s.epoch == epoch
        order = epoch_order(size, seed, epoch)
        orders.add(tuple(order))
        seen = []
        for b in range(s.batches_per_epoch):
            got = s.batch(b)
            assert got == order[b * batch:(b + 1) * batch], (epoch, b)
            per = batch // leaves
            parts = [s.leaf(b, lf) for lf in range(leaves)]
            assert all(len(p) == per for p in parts)
            assert [i for p in parts for i in p] == got
            seen += got
        # the batches partition the epoch's order, the last incomplete batch dropped
        assert seen == order[:s.batches_per_epoch * batch] and len(set(seen)) == len(seen)
    assert len(orders) == 3  # the epochs' orders differ


def test_leaf_sampler_without_shuffle_is_the_dataset_in_order():
    s = LeafSampler(list(range(10)), 4, 2, shuffle=False, seed=99)
    assert s.batches_per_epoch == 2
    assert [s.batch(0), s.batch(1)] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert [s.leaf(1, 0), s.leaf(1, 1)] == [[4, 5], [6, 7]]
    s.set_epoch(3)
    assert s.batch(1) == [4, 5, 6, 7]


def test_leaf_sampler_refuses_bad_arguments():
    with pytest.raises(RuntimeError, match="batch_size must be a positive multiple of num_leaves.*got 10 and 4"):
        LeafSampler(100, 10, 4)
    with pytest.raises(RuntimeError, match="multiple of num_leaves"):
        LeafSampler(100, 8, 0)
    with pytest.raises(RuntimeError, match="dataset size must be >= 0"):
        LeafSampler(-5, 4, 2)
    s = LeafSampler(10, 4, 2)
    for b in (2, -1):
        with pytest.raises(IndexError, match=f"batch {b} out of range: an epoch has 2"):
            s.batch(b)
        with pytest.raises(IndexError, match=f"batch {b} out of range"):
            s.leaf(b, 0)
    for lf in (2, -1):
        with pytest.raises(IndexError, match=f"leaf {lf} out of range: a batch has 2"):
            s.leaf(0, lf)


# ------------------------------------------------------------------------------------------------
# The collectives in a world of one (no mpirun)


def special_floats():
    ditto.manual_seed(4)
    t = ditto.randn(3, 5)
    t[0, 0] = -0.0
    t[0, 1] = float("inf")
    t[0, 2] = float("nan")
    t[0, 3] = 1e-40  # subnormal
    return t


def test_a_world_of_one_process():
    dist.init_process_group("gloo")
    dist.init_process_group("mpi")  # idempotent
    assert dist.is_initialized()
    assert (dist.get_rank(), dist.get_world_size()) == (0, 1)
    dist.barrier()

    t = special_floats()
    want = bits(t)
    dist.broadcast(t, src=0)
    assert bits(t) == want
    with pytest.raises(RuntimeError, match="root 1 is not a rank of a world of 1"):
        dist.broadcast(t, src=1)

    out = [ditto.zeros(3, 5)]
    dist.all_gather(out, t)
    assert bits(out[0]) == want and bits(t) == want
    with pytest.raises(ValueError, match="tensor_list has 2 tensors for a world of 1"):
        dist.all_gather([ditto.zeros(3, 5), ditto.zeros(3, 5)], t)

    dist.all_reduce(t)
    assert bits(t) == want
    d = ditto.randn(4, dtype=ditto.float64)
    want_d = bits(d)
    dist.all_reduce(d, op=dist.ReduceOp.SUM)
    assert bits(d) == want_d

    assert [dist.leaf_range(10, r, 3) for r in range(3)] == [(0, 3), (3, 6), (6, 10)]
    assert dist.leaf_range(10) == (0, 10)  # this rank's, of a world of one
    assert [dist.leaf_range(2, r, 4) for r in range(4)] == [(0, 0), (0, 1), (1, 1), (1, 2)]


def test_backends_other_than_mpi_and_gloo_are_refused():
    with pytest.raises(ValueError, match="backend 'nccl' is not available"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="world_size=2, but mpirun started 1 processes"):
        dist.init_process_group("gloo", world_size=2)


# ------------------------------------------------------------------------------------------------
# LeafReducer


def spread_leaves(num_leaves, numel, seed, dtype=np.float32):
    """Leaf vectors of widely varying magnitudes and both signs, so that another association of the
    sum gives other bits."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(numel) * 10.0 ** rng.integers(-6, 7, numel)).astype(dtype)
            for _ in range(num_leaves)]


def to_ditto(a):
    return ditto.from_numpy(np.ascontiguousarray(a).copy())


def test_leaf_reducer_sums_in_the_canonical_tree():
    differs = 0
    for n in range(1, 18):
        leaves = spread_leaves(n, 257, seed=n)
        r = dist.LeafReducer(n, 257, ditto.float32)
        for i, v in enumerate(leaves):
            r.add(i, to_ditto(v))
        got = r.finish()
        want = tree_sum(leaves)
        assert got.dtype == ditto.float32 and tuple(got.shape) == (257,)
        assert got.numpy().tobytes() == want.tobytes(), f"{n} leaves"
        differs += all(o.tobytes() != want.tobytes() for o in sequential_sums(leaves))
    assert differs >= 12  # the leaves make the association visible


def test_leaf_reducer_sums_float64():
    leaves = spread_leaves(6, 33, seed=99, dtype=np.float64)
    r = dist.LeafReducer(6, 33, ditto.float64)
    for i, v in enumerate(leaves):
        r.add(i, to_ditto(v))
    got = r.finish()
    assert got.dtype == ditto.float64 and got.numpy().tobytes() == tree_sum(leaves).tobytes()
    assert all(o.tobytes() != tree_sum(leaves).tobytes() for o in sequential_sums(leaves))


# A reducer is reused step after step, in a world of one as under mpirun (3c3886b's world-of-one
# finish() did not start the next sum).
def test_leaf_reducer_starts_the_next_sum_after_finish():
    leaves = spread_leaves(6, 33, seed=98)
    r = dist.LeafReducer(6, 33, ditto.float32)
    for _ in range(2):
        for i, v in enumerate(leaves):
            r.add(i, to_ditto(v))
        assert r.finish().numpy().tobytes() == tree_sum(leaves).tobytes()


def test_leaf_reducer_does_not_keep_the_callers_tensors():
    leaves = spread_leaves(3, 8, seed=5)
    r = dist.LeafReducer(3, 8, ditto.float32)
    ts = [to_ditto(v) for v in leaves]
    for i, t in enumerate(ts):
        r.add(i, t)
        t.fill_(0.0)
    assert r.finish().numpy().tobytes() == tree_sum(leaves).tobytes()


def test_leaf_reducer_refuses_leaves_out_of_order_and_wrong_tensors():
    r = dist.LeafReducer(3, 4, ditto.float32)
    with pytest.raises(RuntimeError, match="takes them in order; expected leaf 0, got 1"):
        r.add(1, ditto.zeros(4))
    with pytest.raises(RuntimeError, match="must be a 1-D float32 tensor of 4 elements, got float64"):
        r.add(0, ditto.zeros(4, dtype=ditto.float64))
    with pytest.raises(RuntimeError, match="must be a 1-D float32 tensor of 4 elements.*in 2 dims"):
        r.add(0, ditto.zeros(2, 2))
    with pytest.raises(RuntimeError, match="must be a 1-D float32 tensor of 4 elements, got float32 of 5"):
        r.add(0, ditto.zeros(5))
    r.add(0, ditto.zeros(4))
    with pytest.raises(RuntimeError, match="expected leaf 1, got 0"):
        r.add(0, ditto.zeros(4))  # twice
    with pytest.raises(RuntimeError, match="added 1 of its 3 leaves before finish"):
        r.finish()
    with pytest.raises(RuntimeError, match="float32 or float64"):
        dist.LeafReducer(3, 4, ditto.int64)
    with pytest.raises(RuntimeError, match="between 1 and 2\\^40 leaves, got 0"):
        dist.LeafReducer(0, 4, ditto.float32)


# ------------------------------------------------------------------------------------------------
# DistributedDataParallel in a world of one

LEAF_BATCH = 6
# Each leaf's loss is scaled by its own factor: gradients of widely varying magnitudes, whose sum's
# bits depend on the association.
SCALES = [1e3, 1.0, 3e-3, 7.0, 1e-5, 250.0, 0.5]


def make_data(num_leaves, features=5, seed=31):
    g = ditto.Generator().manual_seed(seed)
    x = ditto.randn(num_leaves * LEAF_BATCH, features, generator=g)
    y = ditto.randn(num_leaves * LEAF_BATCH, 3, generator=g)
    return x, y


def mlp(seed=8):
    ditto.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3))


def bn_model(seed=9):
    ditto.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))


def leaf_loss_of(model, x, y, scales=SCALES):
    def leaf_loss(leaf):
        idx = ditto.tensor(list(range(leaf * LEAF_BATCH, (leaf + 1) * LEAF_BATCH)))
        loss = nn.functional.mse_loss(model(x.index_select(0, idx)), y.index_select(0, idx))
        return loss * scales[leaf % len(scales)]
    return leaf_loss


def per_leaf(model, leaf_loss, num_leaves):
    """Each leaf's gradients (flattened, in parameter order) and loss, from its own backward."""
    params = list(model.parameters())
    grads, losses = [], []
    for leaf in range(num_leaves):
        for p in params:
            p.grad = None
        loss = leaf_loss(leaf)
        loss.backward()
        grads.append([p.grad.numpy().copy().reshape(-1) for p in params])
        losses.append(np.array([loss.item()], dtype=np.float32))
        for p in params:
            p.grad = None
    return grads, losses


def tree_mean(per_leaf_values, num_leaves):
    return tree_sum(per_leaf_values) / np.float32(num_leaves)


def reference_step(num_leaves, make_model, x, y, scales=SCALES):
    """The expected .grad of every parameter and the expected loss of one step, from a separate copy
    of the model."""
    ref = make_model()
    grads, losses = per_leaf(ref, leaf_loss_of(ref, x, y, scales), num_leaves)
    want = [tree_mean([g[i] for g in grads], num_leaves) for i in range(len(grads[0]))]
    assert all(w.dtype == np.float32 for w in want)
    return want, tree_mean(losses, num_leaves), grads


@pytest.mark.parametrize("num_leaves", [4, 3, 7])
def test_ddp_gradients_are_the_tree_mean_of_the_leaves(num_leaves):
    x, y = make_data(num_leaves)
    want, want_loss, leaf_grads = reference_step(num_leaves, mlp, x, y)

    model = mlp()
    ref = mlp()
    assert [bits(p) for p in model.parameters()] == [bits(p) for p in ref.parameters()]
    ddp = DistributedDataParallel(model, num_leaves=num_leaves)
    assert ddp.num_leaves == num_leaves and list(ddp.local_leaves) == list(range(num_leaves))
    loss = ddp.forward_backward(leaf_loss_of(model, x, y))
    assert tuple(loss.shape) == () and loss.dtype == ditto.float32
    assert loss.numpy().tobytes() == want_loss.tobytes()
    for (name, p), w in zip(model.named_parameters(), want):
        assert p.grad is not None, name
        assert tuple(p.grad.shape) == tuple(p.shape), name
        assert p.grad.numpy().tobytes() == w.reshape(p.shape).tobytes(), name
    # the reference discriminates: another association of the sum gives other bits somewhere
    other = [sequential_sums([g[i] for g in leaf_grads])[1] / np.float32(num_leaves) for i in range(len(want))]
    assert any(o.tobytes() != w.tobytes() for o, w in zip(other, want))


def test_ddp_adds_to_gradients_already_there():
    num_leaves = 4
    x, y = make_data(num_leaves)
    other = [2.0, 1e-4, 30.0, 1.0]
    first, loss1, _ = reference_step(num_leaves, mlp, x, y)
    second, loss2, _ = reference_step(num_leaves, mlp, x, y, scales=other)

    model = mlp()
    ddp = DistributedDataParallel(model, num_leaves=num_leaves)
    got1 = ddp.forward_backward(leaf_loss_of(model, x, y))
    got2 = ddp.forward_backward(leaf_loss_of(model, x, y, scales=other))  # no zero_grad in between
    assert got1.numpy().tobytes() == loss1.tobytes() and got2.numpy().tobytes() == loss2.tobytes()
    for (name, p), a, b in zip(model.named_parameters(), first, second):
        assert p.grad.numpy().tobytes() == (a + b).reshape(p.shape).tobytes(), name
    assert any((a + b).tobytes() != b.tobytes() for a, b in zip(first, second))


def test_ddp_gives_every_parameter_a_gradient():
    # A parameter no leaf reaches gets a zero gradient.
    ditto.manual_seed(3)
    model = nn.Sequential(nn.Linear(5, 3), nn.Linear(5, 3))
    x, y = make_data(2)
    ddp = DistributedDataParallel(model, num_leaves=2)

    def leaf_loss(leaf):
        return nn.functional.mse_loss(model[0](x[leaf * LEAF_BATCH:(leaf + 1) * LEAF_BATCH]),
                                      y[leaf * LEAF_BATCH:(leaf + 1) * LEAF_BATCH])

    ddp.forward_backward(leaf_loss)
    for p in model[1].parameters():
        assert p.grad is not None and tuple(p.grad.shape) == tuple(p.shape)
        assert p.grad.numpy().tobytes() == np.zeros(tuple(p.shape), np.float32).tobytes()
    assert float(model[0].weight.grad.abs().sum()) > 0


def test_a_leaf_that_raises_propagates_its_exception():
    num_leaves = 4
    model = mlp()
    x, y = make_data(num_leaves)
    ddp = DistributedDataParallel(model, num_leaves=num_leaves)
    inner = leaf_loss_of(model, x, y)
    ran = []

    def leaf_loss(leaf):
        ran.append(leaf)
        if leaf == 2:
            raise ValueError("leaf two is broken")
        return inner(leaf)

    with pytest.raises(ValueError, match="leaf two is broken"):
        ddp.forward_backward(leaf_loss)
    assert ran == [0, 1, 2]
    with pytest.raises(RuntimeError, match="must return a floating loss of one element"):
        ddp.forward_backward(lambda leaf: ditto.zeros(2))
    # a world of one goes on after a failed step
    want, want_loss, _ = reference_step(num_leaves, mlp, x, y)
    for p in model.parameters():
        p.grad = None
    assert ddp.forward_backward(inner).numpy().tobytes() == want_loss.tobytes()
    assert model[0].weight.grad.numpy().tobytes() == want[0].reshape(model[0].weight.shape).tobytes()


def test_ddp_buffers_after_a_step_are_leaf_zeros():
    num_leaves = 4
    x, y = make_data(num_leaves, seed=77)
    warm = x[:LEAF_BATCH] * 3.0 + 1.0  # a forward before the step, so the buffers are not the defaults

    def start():
        m = bn_model()
        m(warm)
        return m

    model = start()
    buffers_before = [bits(b) for _, b in model.named_buffers()]
    ddp = DistributedDataParallel(model, num_leaves=num_leaves)
    loss = ddp.forward_backward(leaf_loss_of(model, x, y))

    def after_leaf(leaf):
        m = start()
        assert [bits(b) for _, b in m.named_buffers()] == buffers_before
        leaf_loss_of(m, x, y)(leaf)  # the forward only
        return [(n, bits(b)) for n, b in m.named_buffers()]

    want = after_leaf(0)
    assert [(n, bits(b)) for n, b in model.named_buffers()] == want
    assert after_leaf(num_leaves - 1) != want and [b for _, b in want] != buffers_before
    assert int(model[1].num_batches_tracked) == 2  # the warm-up and leaf 0, not one per leaf
    # the leaves' gradients and loss are those of leaves that each started from the step's buffers
    want_grads, want_loss, _ = reference_step(num_leaves, start, x, y)
    assert loss.numpy().tobytes() == want_loss.tobytes()
    for (name, p), w in zip(model.named_parameters(), want_grads):
        assert p.grad.numpy().tobytes() == w.reshape(p.shape).tobytes(), name


def test_ddp_refuses_no_leaves():
    with pytest.raises(RuntimeError, match="num_leaves must be >= 1, got 0"):
        DistributedDataParallel(mlp(), num_leaves=0)


# ------------------------------------------------------------------------------------------------
# Under mpirun: examples/ddp/ddp.py prints the same bits for 1, 2 and 3 processes


def need_mpirun():
    if shutil.which("mpirun") is None:
        pytest.skip("mpirun is not installed")
    if not dist.is_available():
        pytest.skip("this ditto was built without MPI")


def mpirun(np_):
    return ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(np_), "-x", "PYTHONPATH"]


def run(prefix, script, args):
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(ditto.__file__)))
    env = dict(os.environ, PYTHONPATH=pkg, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(prefix + [sys.executable, script] + args, env=env, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, f"{prefix} exited with {p.returncode}:\n{p.stdout}\n{p.stderr}"
    return p.stdout


@pytest.mark.parametrize("np_", [2, 3])
def test_ddp_example_under_mpirun_prints_the_bits_of_one_process(np_):
    need_mpirun()
    args = ["--model", "cnn", "--optim", "sgd", "--steps", "3"]
    alone = run([], DDP_EXAMPLE, args)
    lines = alone.splitlines()
    assert [ln.split(" loss ")[0] for ln in lines[:3]] == ["step 0", "step 1", "step 2"]
    assert lines[3].startswith("parameters fingerprint: ") and len(lines) == 6
    assert run(mpirun(np_), DDP_EXAMPLE, args) == alone


# `python test_distributed.py collectives DIR`, under mpirun: each rank writes DIR/rank<r>.json with
# what it got from the collectives and from LeafReducer; the test checks every rank's against the
# references above.
REDUCER_CASES = [(n, numel) for n in range(1, 18) for numel in (257, 1)] + [(5, 0)]


def _collectives(out_dir):
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    got = {"rank": rank, "world": world, "reducer": [], "again": None}
    for n, numel in REDUCER_CASES:
        leaves = spread_leaves(n, numel, seed=1000 * n + numel)
        r = dist.LeafReducer(n, numel, ditto.float32)
        begin, end = dist.leaf_range(n)
        for i in range(begin, end):
            r.add(i, to_ditto(leaves[i]))
        got["reducer"].append(r.finish().numpy().tobytes().hex())
        if (n, numel) == (6, 257):  # a second sum on the same reducer
            for i in range(begin, end):
                r.add(i, to_ditto(leaves[i] * np.float32(2)))
            got["again"] = r.finish().numpy().tobytes().hex()
    mine = to_ditto(spread_leaves(world, 100, seed=500)[rank])
    dist.all_reduce(mine)
    got["all_reduce"] = mine.numpy().tobytes().hex()
    t = ditto.full((4,), float(rank))
    dist.broadcast(t, src=world - 1)
    got["broadcast"] = t.tolist()
    parts = [ditto.zeros(2, dtype=ditto.int64) for _ in range(world)]
    dist.all_gather(parts, ditto.tensor([rank, 10 * rank]))
    got["all_gather"] = [p.tolist() for p in parts]
    dist.barrier()
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(got, f)


@pytest.mark.parametrize("np_", [2, 3])
def test_collectives_and_leaf_reducer_under_mpirun_give_the_trees_bits_on_every_rank(np_, tmp_path):
    need_mpirun()
    run(mpirun(np_), os.path.abspath(__file__), ["collectives", str(tmp_path)])
    want = [tree_sum(spread_leaves(n, numel, seed=1000 * n + numel)).tobytes().hex() for n, numel in REDUCER_CASES]
    six = [v * np.float32(2) for v in spread_leaves(6, 257, seed=6257)]
    over_ranks = tree_sum(spread_leaves(np_, 100, seed=500)).tobytes().hex()
    for rank in range(np_):
        with open(tmp_path / f"rank{rank}.json") as f:
            got = json.load(f)
        assert (got["rank"], got["world"]) == (rank, np_)
        bad = [case for case, g, w in zip(REDUCER_CASES, got["reducer"], want) if g != w]
        assert not bad, f"rank {rank}: LeafReducer's sum differs from the tree's for (leaves, numel) {bad}"
        assert got["again"] == tree_sum(six).tobytes().hex()
        assert got["all_reduce"] == over_ranks
        assert got["broadcast"] == [float(np_ - 1)] * 4
        assert got["all_gather"] == [[r, 10 * r] for r in range(np_)]


if __name__ == "__main__":
    if sys.argv[1] == "collectives":
        _collectives(sys.argv[2])
