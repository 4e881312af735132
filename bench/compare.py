#!/usr/bin/env python3
"""Reads bench_vs_libtorch's JSON (one file per process; stdin when none is given) and prints a
Markdown table: per workload and thread count the median time (and rate) of ditto and of libtorch
over every repetition of every process, and the speed ratio ditto/libtorch (> 1: ditto faster).
The speed ratio is the one of median real (wall-clock) times; at 1 thread it is also given for
the median CPU time of the benchmark thread, which a machine shared with other work disturbs less,
and for every row for the fastest repetition of each (2-thread times are bimodal on a shared
2-core machine: a repetition during which another process takes a core is several times slower).
Each rate is also given as a fraction of this machine's limit, measured by the benchmark process
at its start (bench/machine_limits.h): GFLOP/s over the float32 FMA peak of the kernel level
(ditto's level for ditto, the widest level for libtorch) at that thread count, GB/s over the
streaming read bandwidth. With --forced FILE..., libtorch's results from processes run with
OPENBLAS_CORETYPE forced (run-vs-libtorch.sh forces each core family the CPU runs other than the
one OpenBLAS picked) get their own columns: per row the median of the fastest core, the picked one
or a forced one, and ditto's speed against it. Then ditto's own 2-thread/1-thread scaling for
sgemm and conv (target >= 1.7x), the cost of ditto's deterministic mode on the training steps
(target <= 3%) and of ditto::audit's recording.

    python3 bench/compare.py run1.json run2.json ... [--forced forced1.json ...]
Standard library only.
"""
import json
import re
import statistics
import sys

# lib/workload/threads:N, then at most one variant: det:1 (deterministic mode on) or audit:on /
# audit:values (ditto::audit recording); each variant is its own sample set.
NAME = re.compile(r"^(ditto|libtorch)/([^/]+)/threads:(\d+)(?:/(det:1|audit:[a-z]+))?(?:/real_time)?$")
RATES = {"GFLOPS": "GFLOP/s", "GBps": "GB/s"}
SCALING_TARGET = 1.7
DET_COST_TARGET = 0.03
TO_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def load(paths):
    """{(lib, workload, threads, variant): [(time_ms, {counter: value}, cpu_ms)]}, and the contexts;
    variant is "" for the plain runs."""
    samples, contexts = {}, []
    texts = [open(p).read() for p in paths] if paths else [sys.stdin.read()]
    for text in texts:
        doc = json.loads(text)
        contexts.append(doc.get("context", {}))
        for b in doc.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
                continue
            m = NAME.match(b.get("run_name", b["name"]))
            if not m:
                continue
            key = (m.group(1), m.group(2), int(m.group(3)), m.group(4) or "")
            unit = TO_MS[b.get("time_unit", "ns")]
            counters = {c: b[c] for c in RATES if c in b}
            samples.setdefault(key, []).append((b["real_time"] * unit, counters, b["cpu_time"] * unit))
    return samples, contexts


def median_ms(runs):
    return statistics.median(r[0] for r in runs)


def median_cpu_ms(runs):
    """The benchmark thread's CPU time: at 1 thread all the work runs there (OpenMP, OpenBLAS and
    oneDNN run inline), so it leaves out the time other processes took the core."""
    return statistics.median(r[2] for r in runs)


def fastest_ms(runs):
    """The fastest repetition: what the code does when no one else wants the cores."""
    return min(r[0] for r in runs)


def spread(runs):
    """Interquartile range over the median, in percent (how noisy the samples were)."""
    times = sorted(r[0] for r in runs)
    if len(times) < 4:
        return float("nan")
    q = statistics.quantiles(times, n=4)
    return 100.0 * (q[2] - q[0]) / statistics.median(times)


def describe(runs):
    ms = median_ms(runs)
    counters = runs[0][1]
    text = f"{ms:.3f} ms" if ms < 10 else f"{ms:.2f} ms"
    for c, unit in RATES.items():
        if c in counters:
            # a rate is work / time: the median rate is the rate at the median time
            work = statistics.median(r[0] * r[1][c] for r in runs if c in r[1])
            text += f" ({work / ms:.1f} {unit})"
    return text


ORDER = ["sum_16M", "sgemm_1024x1024x1024", "sgemm_256x1024x512", "conv2d_fwd", "conv2d_fwd_bwd",
         "conv2d_resnet3x3_64_fwd", "conv2d_resnet3x3_64_fwd_bwd", "conv2d_1x1_256to64_fwd", "conv2d_1x1_256to64_fwd_bwd",
         "conv2d_7x7s2_3to64_fwd", "conv2d_7x7s2_3to64_fwd_bwd", "conv2d_resnet3x3_512_7_fwd",
         "conv2d_resnet3x3_512_7_fwd_bwd", "conv2d_3x3s2_256to512_7_fwd", "conv2d_3x3s2_256to512_7_fwd_bwd",
         "softmax_4096x1024", "mlp_step", "cnn_step"]


def workloads(samples):
    """The workloads present, in the order of the issue (random interleaving shuffles the JSON)."""
    present = {w for (_, w, _, _) in samples}
    return [w for w in ORDER if w in present] + sorted(present - set(ORDER))


def limit(ctx, counter, level, threads):
    """The machine's limit for a rate counter, or None when the context does not have it."""
    key = f"peak_gflops_{level}_{threads}t" if counter == "GFLOPS" else f"stream_gbps_{threads}t"
    try:
        return float(ctx[key])
    except (KeyError, ValueError):
        return None


def widest_level(ctx):
    for level in ("avx512", "avx2", "scalar"):
        if f"peak_gflops_{level}_1t" in ctx:
            return level
    return "scalar"


def of_limit(runs, ctx, level, threads):
    """The median rate as a percentage of the machine's limit ("-" without a rate or a limit)."""
    for c in RATES:
        if c in runs[0][1]:
            lim = limit(ctx, c, level, threads)
            if lim:
                ms = median_ms(runs)
                work = statistics.median(r[0] * r[1][c] for r in runs if c in r[1])
                return f"{100.0 * work / ms / lim:.0f}%"
    return "-"


def main(argv):
    args = argv[1:]
    forced_paths = []
    if "--forced" in args:
        i = args.index("--forced")
        args, forced_paths = args[:i], args[i + 1:]
    samples, contexts = load(args)
    # the forced runs by core: {core: samples}
    forced = {}
    for path in forced_paths:
        s, c = load([path])
        core = c[0].get("OPENBLAS_CORETYPE", "?") if c else "?"
        for key, runs in s.items():
            forced.setdefault(core, {}).setdefault(key, []).extend(runs)
    if not samples:
        sys.exit("compare.py: no bench_vs_libtorch results in the input")
    ctx = contexts[0]
    level = ctx.get("ditto_cpu_capability", "scalar")
    widest = widest_level(ctx)
    print(f"ditto ISA level: {ctx.get('ditto_cpu_capability', '?')}; libtorch {ctx.get('libtorch_version', '?')}, "
          f"BLAS {ctx.get('libtorch_blas', '?')} (OpenBLAS core {ctx.get('openblas_core', '?')}, "
          f"OPENBLAS_CORETYPE {ctx.get('OPENBLAS_CORETYPE', '?')}), mkldnn {ctx.get('libtorch_mkldnn', '?')}; "
          f"malloc: {ctx.get('malloc', '?')}")
    print(f"libtorch conv2d backend: {ctx.get('libtorch_conv2d_backend', '?')}")
    print(f"host: {ctx.get('host_name', '?')}, {ctx.get('num_cpus', '?')} CPUs at {ctx.get('mhz_per_cpu', '?')} MHz, "
          f"load average at start {ctx.get('load_avg', '?')}; {len(contexts)} process(es)")
    limits = [f"{k} {v}" for k, v in sorted(ctx.items()) if k.startswith(("peak_gflops_", "stream_gbps_"))]
    if limits:
        print(f"machine limits (bench/machine_limits.h): {', '.join(limits)}")
    picked = ctx.get("openblas_core", "?")
    if forced:
        print(f"libtorch also run with OPENBLAS_CORETYPE forced to {', '.join(sorted(forced))}: the last two "
              f"columns, per row the fastest of those cores and {picked} (named)")
    print()
    extra = " | libtorch, fastest core | ditto/that" if forced else ""
    print("| workload | threads | ditto median | libtorch median | ditto/libtorch speed | fastest reps | "
          f"CPU time (1 thread) | of limit, ditto / libtorch | n | IQR ditto / libtorch{extra} |")
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if forced else ""))
    threads = sorted({t for (_, _, t, _) in samples})
    for w in workloads(samples):
        for t in threads:
            d, p = samples.get(("ditto", w, t, "")), samples.get(("libtorch", w, t, ""))
            if not d or not p:
                continue
            ratio = median_ms(p) / median_ms(d)
            cpu = f"{median_cpu_ms(p) / median_cpu_ms(d):.2f}x" if t == 1 else "-"
            best = fastest_ms(p) / fastest_ms(d)
            lim = f"{of_limit(d, ctx, level, t)} / {of_limit(p, ctx, widest, t)}"
            more = ""
            if forced:
                runs = [(picked, p)] + [(core, s[("libtorch", w, t, "")]) for core, s in sorted(forced.items())
                                        if ("libtorch", w, t, "") in s]
                core, f = min(runs, key=lambda cf: median_ms(cf[1]))
                more = f" {describe(f)}, {core} | **{median_ms(f) / median_ms(d):.2f}x** |"
            print(f"| {w} | {t} | {describe(d)} | {describe(p)} | **{ratio:.2f}x** | {best:.2f}x | {cpu} | {lim} | "
                  f"{len(d)}/{len(p)} | "
                  f"{spread(d):.0f}% / {spread(p):.0f}% |{more}")

    print()
    print(f"Scaling, 2 threads over 1 thread (speed; ditto target >= {SCALING_TARGET}x):")
    print()
    print("| workload | ditto 2t/1t | libtorch 2t/1t | ditto target | ditto, fastest reps | libtorch, fastest reps |")
    print("|---|---|---|---|---|---|")
    for w in workloads(samples):
        if not (w.startswith("sgemm") or w.startswith("conv")):
            continue
        row, best = [], []
        for lib in ("ditto", "libtorch"):
            one, two = samples.get((lib, w, 1, "")), samples.get((lib, w, 2, ""))
            row.append(median_ms(one) / median_ms(two) if one and two else float("nan"))
            best.append(fastest_ms(one) / fastest_ms(two) if one and two else float("nan"))
        verdict = "met" if row[0] >= SCALING_TARGET else "missed"
        print(f"| {w} | {row[0]:.2f}x | {row[1]:.2f}x | {verdict} | {best[0]:.2f}x | {best[1]:.2f}x |")

    print()
    print(f"ditto deterministic mode on vs off (time on / time off - 1; target <= {DET_COST_TARGET:.0%}):")
    print()
    print("| workload | threads | det off | det on | cost | cost by fastest reps | cost by CPU time (1 thread) | target |")
    print("|---|---|---|---|---|---|---|---|")
    for w in workloads(samples):
        for t in threads:
            off, on = samples.get(("ditto", w, t, "")), samples.get(("ditto", w, t, "det:1"))
            if not off or not on:
                continue
            cost = median_ms(on) / median_ms(off) - 1
            fast = fastest_ms(on) / fastest_ms(off) - 1
            cpu = f"{median_cpu_ms(on) / median_cpu_ms(off) - 1:+.1%}" if t == 1 else "-"
            verdict = "met" if min(cost, fast) <= DET_COST_TARGET else "missed"
            print(f"| {w} | {t} | {describe(off)} | {describe(on)} | {cost:+.1%} | {fast:+.1%} | {cpu} | {verdict} |")

    audited = [(w, t) for w in workloads(samples) for t in threads
               if samples.get(("ditto", w, t, "")) and samples.get(("ditto", w, t, "audit:on"))]
    if audited:
        print()
        print("ditto::audit recording (time recording / time off; docs/audit.md):")
        print()
        print("| workload | threads | off | recording | with values |")
        print("|---|---|---|---|---|")
        for w, t in audited:
            off = samples[("ditto", w, t, "")]
            cells = []
            for v in ("audit:on", "audit:values"):
                r = samples.get(("ditto", w, t, v))
                cells.append(f"{describe(r)} ({median_ms(r) / median_ms(off):.2f}x)" if r else "-")
            print(f"| {w} | {t} | {describe(off)} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main(sys.argv)
