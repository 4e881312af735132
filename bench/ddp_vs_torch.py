"""A data-parallel MLP step (784-512-512-10, ReLU, MSE, SGD; a global batch of 256) at 2
processes, one thread each, in ditto (nn.parallel.DistributedDataParallel over leaves, on MPI) and
in PyTorch 1.13 (DistributedDataParallel, gloo), both launched by mpirun, side by side.

    python3 bench/ddp_vs_torch.py [--processes 3] [--steps 40] [--leaves 2 8]

Each configuration runs in --processes fresh jobs; each job times --steps steps after a warm-up
(rank 0's wall time per step, between barriers) and reports its median; the table gives the
median over jobs, the ratio to PyTorch's, and the bytes each rank sends per step against a ring
all-reduce of the same gradients (ditto counts what it sends; gloo's ring all-reduce sends
2 (W - 1) / W of the gradient bytes). Needs Debian's python3-torch, openmpi-bin and a built
ditto (PYTHONPATH=build/python).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)


def worker(a):
    rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    world = int(os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    per_rank = a.batch // world
    if a.worker == "torch":
        import torch
        import torch.distributed as dist
        torch.set_num_threads(1)
        dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{a.port}", rank=rank, world_size=world)
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                    torch.nn.ReLU(), torch.nn.Linear(512, 10))
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
        x = torch.randn(a.batch, 784)
        y = torch.randn(a.batch, 10)
        xs, ys = x[rank * per_rank:(rank + 1) * per_rank], y[rank * per_rank:(rank + 1) * per_rank]

        def step():
            opt.zero_grad(set_to_none=True)
            torch.nn.functional.mse_loss(ddp(xs), ys).backward()
            opt.step()

        barrier = dist.barrier
        nparams = sum(p.numel() for p in model.parameters())
        sent = lambda: 2 * (world - 1) * nparams * 4 // world  # noqa: E731  (gloo's ring all-reduce)
    else:
        import ditto
        import ditto.distributed as dist
        ditto.set_num_threads(1)
        dist.init_process_group("mpi")
        ditto.manual_seed(0)
        nn = ditto.nn
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        ddp = nn.parallel.DistributedDataParallel(model, num_leaves=a.leaves)
        opt = ditto.optim.SGD(model.parameters(), lr=0.01)
        x = ditto.randn(a.batch, 784)
        y = ditto.randn(a.batch, 10)
        per_leaf = a.batch // a.leaves
        xs = [x[i * per_leaf:(i + 1) * per_leaf] for i in range(a.leaves)]
        ys = [y[i * per_leaf:(i + 1) * per_leaf] for i in range(a.leaves)]

        def step():
            opt.zero_grad(set_to_none=True)
            ddp.forward_backward(lambda leaf: nn.functional.mse_loss(model(xs[leaf]), ys[leaf]))
            opt.step()

        barrier = dist.barrier
        sent = lambda: ddp.last_traffic()[0]  # noqa: E731
    for _ in range(5):
        step()
    times = []
    for _ in range(a.steps):
        barrier()
        t0 = time.perf_counter()
        step()
        barrier()
        times.append(time.perf_counter() - t0)
    if rank == 0:
        print(json.dumps({"median_ms": 1e3 * statistics.median(times), "bytes": sent()}), flush=True)


def launch(args, port):
    cmd = ["mpirun", "--oversubscribe", "--bind-to", "core", "-np", "2", "-x", "PYTHONPATH", "-x", "OMP_NUM_THREADS=1",
           "-x", "DITTO_NUM_THREADS=1", sys.executable, HERE, "--port", str(port)] + args
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", choices=["ditto", "torch"])
    ap.add_argument("--leaves", type=int, nargs="+", default=[2, 8])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--port", type=int, default=29517)
    a = ap.parse_args()
    if a.worker:
        a.leaves = a.leaves[0]
        return worker(a)
    common = ["--steps", str(a.steps), "--batch", str(a.batch)]
    configs = [("torch DDP (gloo)", ["--worker", "torch"])]
    configs += [(f"ditto, {n} leaves", ["--worker", "ditto", "--leaves", str(n)]) for n in a.leaves]
    results = {name: [] for name, _ in configs}
    port = a.port
    for _ in range(a.processes):  # interleaved, so that a noisy minute hits every configuration
        for name, extra in configs:
            port += 1
            results[name].append(launch(extra + common, port))
    base = statistics.median(r["median_ms"] for r in results[configs[0][0]])
    ring = results[configs[0][0]][0]["bytes"]
    print(f"MLP 784-512-512-10, global batch {a.batch}, 2 processes x 1 thread, {a.processes} jobs x {a.steps} steps")
    print("| configuration | step (ms, median) | vs PyTorch | bytes sent per rank per step | vs ring all-reduce |")
    print("|---|---|---|---|---|")
    for name, _ in configs:
        ms = statistics.median(r["median_ms"] for r in results[name])
        b = results[name][0]["bytes"]
        print(f"| {name} | {ms:.2f} | {base / ms:.2f}x | {b} | {b / ring:.3f} |")


if __name__ == "__main__":
    sys.exit(main())
