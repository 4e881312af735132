"""python3 -m ditto.audit_torch [--values all|step:N] LOG PROGRAM.py [ARGS...]: runs a PyTorch
program unchanged with every op PyTorch runs recorded to LOG (ditto.audit.torch_recording), for
`ditto-audit diff LOG ditto.log` against its ditto port's log (docs/audit.md)."""
from ditto import audit


def _main(argv):
    """python3 -m ditto.audit_torch [--values all|step:N] LOG PROGRAM.py [ARGS...]"""
    import runpy
    import sys

    values = ""
    if len(argv) >= 2 and argv[0] == "--values":
        values, argv = argv[1], argv[2:]
    if len(argv) < 2:
        sys.stderr.write("usage: python3 -m ditto.audit_torch [--values all|step:N] LOG PROGRAM.py [ARGS...]\n")
        return 2
    log, program = argv[0], argv[1]
    sys.argv = [program] + argv[2:]
    with audit.torch_recording(log, values):
        runpy.run_path(program, run_name="__main__")
    return 0


if __name__ == "__main__":
    import sys as _sys

    _sys.exit(_main(_sys.argv[1:]))
