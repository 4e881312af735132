#!/usr/bin/env python3
"""Per-call overhead from Python: ditto and PyTorch side by side in one process (bench/README.md).

  PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [--repeats 15] [--threads 1]

Workloads, the same code for both libraries (`lib` is ditto or torch):
  add_8        a + b on two 8-element float32 tensors
  mm_16        a @ b on two 16x16 float32 tensors
  seed_step    one step of the seed's program: nn.Linear(1, 1) on 4 samples, MSELoss, zero_grad,
               backward, SGD step
Each repeat times a batch of calls (about 0.2 s) with time.perf_counter; the repeats of the two
libraries alternate, so both see the same machine. Printed: the median time per call over the
repeats for each, and the ratio ditto / PyTorch (target: <= 1.0, ditto no slower per call).
"""
import argparse
import statistics
import sys
import time

import ditto
import torch


def workloads(lib):
    nn = lib.nn
    a8, b8 = lib.ones(8), lib.ones(8)
    a16, b16 = lib.ones(16, 16), lib.ones(16, 16)
    lib.manual_seed(0)
    x = lib.tensor([[1.0], [2.0], [3.0], [4.0]])
    y = lib.tensor([[3.0], [5.0], [7.0], [9.0]])
    model = nn.Linear(1, 1)
    loss_fn = nn.MSELoss()
    opt = lib.optim.SGD(model.parameters(), lr=0.001)

    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()

    return {"add_8": lambda: a8 + b8, "mm_16": lambda: a16 @ b16, "seed_step": step}


def calls_per_batch(f, target=0.2):
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        dt = time.perf_counter() - t0
        if dt > target / 4:
            return max(1, int(n * target / dt))
        n *= 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    ditto.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    libs = {"ditto": workloads(ditto), "torch": workloads(torch)}
    print(f"ditto {ditto.__version__} vs PyTorch {torch.__version__}, {args.threads} thread(s), "
          f"{args.repeats} repeats; median time per call")  # fmt: skip
    print()
    print("| workload | ditto | PyTorch | ditto / PyTorch |")
    print("|---|---|---|---|")
    worst = 0.0
    for name in libs["ditto"]:
        fs = {lib: libs[lib][name] for lib in libs}
        n = min(calls_per_batch(f) for f in fs.values())
        times = {lib: [] for lib in libs}
        for f in fs.values():  # warm up
            for _ in range(n // 10 + 1):
                f()
        for _ in range(args.repeats):
            for lib, f in fs.items():
                t0 = time.perf_counter()
                for _ in range(n):
                    f()
                times[lib].append((time.perf_counter() - t0) / n)
        med = {lib: statistics.median(t) for lib, t in times.items()}
        ratio = med["ditto"] / med["torch"]
        worst = max(worst, ratio)
        print(f"| {name} | {med['ditto'] * 1e6:.2f} us | {med['torch'] * 1e6:.2f} us | {ratio:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
