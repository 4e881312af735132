"""The tests import the package built in <build>/python (CTest sets PYTHONPATH to it; by hand,
DITTO_PYTHONPATH or the default build directory is used)."""
import os
import sys

_here = os.path.dirname(os.path.abspath(__file__))
_path = os.environ.get("DITTO_PYTHONPATH", os.path.join(_here, "..", "..", "build", "python"))
if _path not in sys.path:
    sys.path.insert(0, _path)

DATA = os.path.join(_here, "data")
