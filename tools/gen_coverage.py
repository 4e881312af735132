#!/usr/bin/env python3
"""Writes docs/coverage.md: PyTorch's OpInfo entries, which ditto has and how the sweep went.

  PYTHONPATH=build/python /usr/bin/python3 tools/gen_coverage.py

(Debian's python3-torch; python/tests/test_opinfo_sweep.py fails when the committed file is not
what this writes.)"""
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

import sweep  # noqa: E402

results = sweep.run_all()
path = os.path.join(ROOT, "docs", "coverage.md")
with open(path, "w") as f:
    f.write(sweep.coverage_markdown(results))
failed = sum(len(r["failures"]) for r in results.values())
print(f"wrote {os.path.normpath(path)}: {len(results)} entries, {sum(r['samples'] for r in results.values())} samples, "
      f"{failed} failures")
