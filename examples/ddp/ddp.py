"""The Python twin of ddp.cpp: a PyTorch-style data-parallel training (ditto.distributed,
nn.parallel.DistributedDataParallel, utils.data.LeafSampler) that prints the C++ example's bits,
alone or under mpirun with any number of processes:

    python3 examples/ddp/ddp.py --model cnn --optim sgd
    mpirun -np 3 python3 examples/ddp/ddp.py --model cnn --optim sgd
"""
import argparse
import sys

import ditto as torch
import ditto.distributed as dist
from ditto import nn


def hexf(v):
    """A float as C's printf("%a") prints it."""
    h = float(v).hex()
    mant, exp = h.split("p")
    mant = mant.rstrip("0").rstrip(".")
    return f"{mant}p{exp}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    ap.add_argument("--optim", choices=["sgd", "adam"], default="adam")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--leaves", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--stop-at", type=int, default=-1)
    ap.add_argument("--save", default="")
    ap.add_argument("--resume", default="")
    ap.add_argument("--traffic", action="store_true")
    a = ap.parse_args()

    dist.init_process_group("mpi")
    rank = dist.get_rank()
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    samples, classes = 512, 5
    g = torch.Generator()
    g.manual_seed(2024)
    cnn = a.model == "cnn"
    x = torch.randn(samples, 1, 12, 12, generator=g) if cnn else torch.randn(samples, 20, generator=g)
    teacher = torch.randn(x.numel() // samples, classes, generator=g)
    y = torch.mm(x.reshape(samples, -1), teacher).argmax(1)
    if cnn:
        model = nn.Sequential(nn.Conv2d(1, 6, 3, 1, 1), nn.BatchNorm2d(6), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(6 * 6 * 6, classes))
    else:
        model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, classes))
    if a.optim == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    ddp = nn.parallel.DistributedDataParallel(model, num_leaves=a.leaves)
    sampler = torch.utils.data.LeafSampler(samples, a.batch, a.leaves, shuffle=True, seed=0)
    loss_fn = nn.CrossEntropyLoss()

    step = 0
    if a.resume:
        step = torch.load_checkpoint(a.resume, model, optimizer)[0]
        if rank == 0:
            print(f"resumed at step {step}")
    while step < a.steps:
        if step == a.stop_at:
            if rank == 0:
                torch.save_checkpoint(a.save, model, optimizer, step=step, metadata={"example": "ddp_example"})
                print(f"saved at step {step}")
            dist.barrier()
            return 0
        per_epoch = sampler.batches_per_epoch
        batch = step % per_epoch
        if sampler.epoch != step // per_epoch:
            sampler.set_epoch(step // per_epoch)
        optimizer.zero_grad()

        def leaf_loss(leaf):
            idx = torch.tensor(sampler.leaf(batch, leaf))
            return loss_fn(model(x.index_select(0, idx)), y.index_select(0, idx))

        loss = ddp.forward_backward(leaf_loss)
        optimizer.step()
        if rank == 0:
            print(f"step {step} loss {hexf(loss.item())}", flush=True)
            if a.traffic:
                sent, ring = ddp.last_traffic()
                print(f"  rank 0 sent {sent} bytes (a ring all-reduce: {ring})")
        step += 1
    params = list(model.parameters())
    buffers = [b for _, b in model.named_buffers()]
    fp = torch._C._fingerprint(params)
    everyone = [torch.zeros(1, dtype=torch.int64) for _ in range(dist.get_world_size())]
    dist.all_gather(everyone, torch.tensor([int(fp, 16) - (1 << 64) if int(fp, 16) >= 1 << 63 else int(fp, 16)]))
    if any(int(e.item()) != int(everyone[rank].item()) for e in everyone):
        print(f"rank {rank}: the ranks' parameters differ", file=sys.stderr)
        return 1
    if rank == 0:
        print(f"parameters fingerprint: {fp}")
        print(f"buffers fingerprint: {torch._C._fingerprint(buffers) if buffers else '-'}")
        rng = torch.tensor(list(torch.get_rng_state()), dtype=torch.int64)
        print(f"rng fingerprint: {torch._C._fingerprint([rng])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
