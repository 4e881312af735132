"""ditto.audit: a log of every op ditto's dispatcher runs (forward and backward), with hashes of
each tensor argument's bits before and after, to find where two runs first differ with the
`ditto-audit diff a.log b.log` tool (docs/audit.md). DITTO_AUDIT=path records a whole program."""
import contextlib

from ditto import _C


def start(path, values=""):
    """Records to path; values: "" (none), "all" or "step:N" (the written tensors' bits)."""
    _C._audit_start(str(path), values)


def stop():
    _C._audit_stop()


def enabled():
    return _C._audit_enabled()


def mark(name, value):
    """A mark in the log; mark("step", n) makes the records after it step n's."""
    _C._audit_mark(name, int(value))


@contextlib.contextmanager
def recording(path, values=""):
    start(path, values)
    try:
        yield
    finally:
        stop()
