"""`import ditto` works with every CPython 3.11 found on this machine: the one running this
script, Debian's /usr/bin/python3 and every python3 / python3.11 on PATH (pyenv's shims, say).
Usage: import_everywhere.py <dir holding the ditto package>"""
import os
import shutil
import subprocess
import sys

CHECK = "import ditto; t = ditto.tensor([1.5, 2.0]); assert (t * 2).sum().item() == 7.0; print(ditto.__file__)"


def candidates():
    found = [sys.executable, "/usr/bin/python3", "/usr/bin/python3.11"]
    for d in os.environ.get("PATH", "").split(os.pathsep):
        for name in ("python3", "python3.11"):
            p = shutil.which(name, path=d)
            if p:
                found.append(p)
    seen, out = set(), []
    for p in found:
        if not os.path.exists(p):
            continue
        try:
            r = subprocess.run([p, "-c", "import sys, platform; print(platform.python_implementation(), "
                                "sys.version_info[0], sys.version_info[1], sys.executable)"],
                               capture_output=True, text=True, timeout=60)  # fmt: skip
        except OSError:
            continue
        parts = r.stdout.split()
        if r.returncode != 0 or parts[:3] != ["CPython", "3", "11"]:
            continue
        real = os.path.realpath(parts[3])
        if real not in seen:
            seen.add(real)
            out.append(p)
    return out


def main():
    path = sys.argv[1]
    pythons = candidates()
    if not pythons:
        print("no CPython 3.11 found")
        return 1
    env = dict(os.environ, PYTHONPATH=path)
    failed = 0
    for p in pythons:
        r = subprocess.run([p, "-c", CHECK], capture_output=True, text=True, env=env, timeout=120)
        ok = r.returncode == 0 and r.stdout.strip().startswith(os.path.realpath(path))
        print(("ok    " if ok else "FAIL  ") + p, r.stdout.strip(), r.stderr.strip()[-500:])
        failed += not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
