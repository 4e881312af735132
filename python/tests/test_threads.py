"""Ops release the GIL while their kernels run; Python threads running ops at once get the results
one thread gets, bit for bit."""
import threading
import time

import ditto


def work(seed):
    g = ditto.Generator().manual_seed(seed)
    a = ditto.randn(96, 96, generator=g)
    b = ditto.randn(96, 96, generator=g)
    x = ditto.randn(96, 96, generator=g, requires_grad=True)
    out = []
    for _ in range(20):
        c = (a @ b).softmax(1)
        y = (x @ c).tanh().sum()
        y.backward()
        out.append(c.sum().item())
        out.append(y.item())
    out.append(x.grad.tolist())
    return out


def test_threads_get_single_thread_results():
    expected = {s: work(s) for s in range(4)}
    results = {}

    def run(s):
        results[s] = work(s)

    threads = [threading.Thread(target=run, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == expected


def trials_with_python_running_meanwhile(f, trials=5):
    """How many of `trials` calls of f let another thread run Python code in the middle 40 % of
    the call's time. A call that holds the GIL lets none: a waiting thread may run only at the
    bytecodes around the call, never while it is inside."""
    done = threading.Event()
    samples = []

    def spin():
        n = 0
        while not done.is_set():
            n += 1
            if n % 200 == 0:
                samples.append(time.perf_counter())

    t = threading.Thread(target=spin)
    t.start()
    try:
        while not samples:
            time.sleep(0.001)
        hits = 0
        for _ in range(trials):
            t0 = time.perf_counter()
            f()
            t1 = time.perf_counter()
            lo, hi = t0 + 0.3 * (t1 - t0), t1 - 0.3 * (t1 - t0)
            hits += any(lo < s < hi for s in samples[-100000:])
    finally:
        done.set()
        t.join()
    return hits


def test_another_thread_runs_python_while_a_kernel_runs():
    big = ditto.randn(1024, 1024)  # a product takes about 0.1 s on one thread
    threads = ditto.get_num_threads()
    ditto.set_num_threads(1)  # leaves a core to the spinning thread
    try:
        assert trials_with_python_running_meanwhile(lambda: big @ big) >= 3  # most, on a busy machine too
        assert trials_with_python_running_meanwhile(lambda: (big @ big).sum(0).tanh().sum().item()) >= 3
        # the measure sees a held GIL: tolist builds Python objects and must hold it
        assert trials_with_python_running_meanwhile(lambda: big.tolist()) == 0
    finally:
        ditto.set_num_threads(threads)
