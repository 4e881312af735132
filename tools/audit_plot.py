#!/usr/bin/python3
"""Draws ditto-audit diff --plot's figure: the histogram of the first differing op's differences
in ulps, and the differing elements of every op along the run (from the records both logs kept
values for). Usage: audit_plot.py data.json out.png (ditto-audit writes data.json). Needs
Debian's python3-matplotlib."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    with open(sys.argv[1]) as f:
        d = json.load(f)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    hist = d.get("ulp_histogram") or []
    labels = [f"{1 << b}-{(2 << b) - 1}" for b in range(len(hist) - 1)] + ["non-finite/sign"]
    used = [i for i, n in enumerate(hist) if n] or [0]
    lo, hi = min(used), max(used)
    keep = list(range(lo, hi + 1))
    left.bar([labels[i] if i < len(labels) else str(i) for i in keep], [hist[i] if hist else 0 for i in keep],
             color="#3b6ea5")
    left.set_title(f"first differing op: {d.get('op', '?')} (record {d.get('seq', '?')})")
    left.set_xlabel("difference in ulps")
    left.set_ylabel("elements")
    left.tick_params(axis="x", rotation=45)
    series = d.get("series") or []
    differ = [s for s in series if s[1] > 0]
    same = [s[0] for s in series if s[1] == 0]
    floor = min(s[1] for s in differ) / 10 if differ else 1.0
    if differ:
        right.plot([s[0] for s in differ], [s[1] for s in differ], ".", markersize=3, color="#a53b3b", label="differ")
        right.set_yscale("log")
    if same:
        right.plot(same, [floor] * len(same), "|", markersize=6, color="#999999", label="same bits")
    if series:
        right.legend(loc="upper left")
    right.set_title("largest absolute difference of each op's results")
    right.set_xlabel("record")
    right.set_ylabel("max |a - b|")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
