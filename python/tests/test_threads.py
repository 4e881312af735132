"""Ops release the GIL while their kernels run; Python threads running ops at once get the results
one thread gets, bit for bit."""
import sys
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
    """How many of `trials` calls of f let another thread run Python code while f runs.

    The switch interval is made huge, so the interpreter never takes the GIL from a thread; the
    other thread runs only when this one gives the GIL up, which it does in no bytecode between
    setting `inside` and calling f. So the other thread can see `inside` set only if f itself
    releases the GIL, whatever the machine's load (a loaded machine can only hide a release, by
    not scheduling the other thread while f runs: the tests ask for one trial in five)."""
    done = threading.Event()
    state = {"inside": False, "seen": 0}

    def watch():
        while not done.is_set():
            if state["inside"]:
                state["seen"] += 1
            time.sleep(0)  # gives the GIL up

    before = sys.getswitchinterval()
    sys.setswitchinterval(1000.0)
    t = threading.Thread(target=watch)
    t.start()
    try:
        hits = 0
        for _ in range(trials):
            seen = state["seen"]
            state["inside"] = True
            f()
            state["inside"] = False
            hits += state["seen"] > seen
            time.sleep(0.001)  # lets the watcher run outside f too
    finally:
        done.set()
        t.join()
        sys.setswitchinterval(before)
    return hits


def test_another_thread_runs_python_while_a_kernel_runs():
    big = ditto.randn(1024, 1024)  # a product takes about 0.1 s on one thread
    threads = ditto.get_num_threads()
    ditto.set_num_threads(1)  # leaves a core to the watching thread
    try:
        assert trials_with_python_running_meanwhile(lambda: big @ big) >= 1
        assert trials_with_python_running_meanwhile(lambda: (big @ big).sum(0).tanh().sum().item()) >= 1
        # the measure sees a held GIL: tolist builds Python objects and must hold it
        assert trials_with_python_running_meanwhile(lambda: big.tolist()) == 0
    finally:
        ditto.set_num_threads(threads)
