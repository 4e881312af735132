"""The known answers written by tools/gen_golden_python.py (from PyTorch 1.13), and the code that
runs a case or a program and describes its result: the generator runs it with torch, the tests
with ditto (`lib` is the module that the code calls `torch`)."""
import contextlib
import io
import json
import os

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "pytorch-python.json")


def load():
    """The file's sections (tools/golden_json.py's schema): cases, programs and errors."""
    with open(_PATH) as f:
        data = json.load(f)
    sections = data.get("sections", {})
    if not data.get("torch_version") or not sections.get("cases") or not sections.get("programs"):
        raise RuntimeError(f"{_PATH}: no torch_version, cases or programs")
    return sections


def normalize(text):
    """ditto's own names (ditto.Size, ditto.float32, ditto.return_types) read as PyTorch's."""
    return text.replace("ditto.", "torch.")


def describe(v, lib):
    if isinstance(v, lib.Tensor):
        flat = v.detach().reshape(-1).tolist()
        return {
            "repr": normalize(repr(v)),
            "dtype": normalize(str(v.dtype)),
            "shape": list(v.shape),
            "values": [float(x).hex() if isinstance(x, float) else x for x in flat],
        }
    if isinstance(v, tuple) and v and all(isinstance(t, lib.Tensor) for t in v):
        return {"repr": normalize(repr(v)), "items": [describe(t, lib) for t in v]}
    return {"repr": normalize(repr(v))}


def compared(case, got):
    """The part of describe(got) that case holds (a "repr" case holds the repr only)."""
    return {k: v for k, v in got.items() if k in case}


def run_case(setup, expr, lib):
    ns = {"torch": lib}
    exec(setup, ns)
    return eval(expr, ns)


def run_program(code, lib):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"torch": lib})
    return normalize(out.getvalue())
