"""The tests import the package built in <build>/python (CTest sets PYTHONPATH to it; by hand,
DITTO_PYTHONPATH or the default build directory is used)."""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_path = os.environ.get("DITTO_PYTHONPATH", os.path.join(_here, "..", "..", "build", "python"))
if _path not in sys.path:
    sys.path.insert(0, _path)

DATA = os.path.join(_here, "data")


def pytest_terminal_summary(terminalreporter):
    """After the OpInfo sweep: how many entries and samples it ran and how many passed."""
    mod = sys.modules.get("test_opinfo_sweep")
    results = getattr(mod, "_results", None) if mod else None
    if results:
        samples = sum(r["samples"] for r in results.values())
        passed = sum(r["passed"] for r in results.values())
        raised = sum(r["both_raised"] for r in results.values())
        terminalreporter.write_line(
            f"OpInfo sweep: {len(results)} entries, {samples} samples run, {passed} passed "
            f"({raised} refused by both), {samples - passed} known failures"
        )
