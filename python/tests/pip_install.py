"""pip install . works offline into a fresh virtual environment, and the installed package
imports and runs from anywhere. Usage: pip_install.py <source dir> <configured build dir> <work dir>
(the build directory is reused through DITTO_CMAKE_BUILD_DIR, so this does not rebuild ditto)."""
import os
import shutil
import subprocess
import sys


def main():
    src, build, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    venv = os.path.join(work, "venv")
    # --system-site-packages: setuptools (and NumPy) come from Debian's packages, offline
    subprocess.check_call([sys.executable, "-m", "venv", "--system-site-packages", venv])
    py = os.path.join(venv, "bin", "python")
    env = dict(os.environ, DITTO_CMAKE_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    env.pop("DITTO_PYTHONPATH", None)
    # pip builds in a copy of the source tree; keep the build directory's artefacts out of it
    subprocess.check_call([py, "-m", "pip", "install", "-q", "--no-build-isolation", src], env=env, cwd=work)
    check = ("import ditto, os; from ditto import nn; assert ditto.__file__.startswith(os.path.realpath(%r)); "
             "ditto.manual_seed(0); m = nn.Linear(1, 1); print(ditto.__file__, m.weight.item())") % venv
    r = subprocess.run([py, "-c", check], capture_output=True, text=True, env=env, cwd=work)
    print(r.stdout, r.stderr)
    if r.returncode != 0:
        return 1
    # PyTorch's initial weight for nn.Linear(1, 1) after manual_seed(0)
    return 0 if r.stdout.split()[1] == "-0.007486820220947266" else 1


if __name__ == "__main__":
    sys.exit(main())
