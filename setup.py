"""pip install . : builds ditto's Python package with the project's CMake (offline; needs the
Debian packages of scripts/install-deps.sh). Set DITTO_CMAKE_BUILD_DIR to reuse a configured
build directory instead of configuring a new one."""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
# setuptools' own files go to build-pip/, away from CMake's build/ and from the sources
BUILD_BASE = os.path.join(ROOT, "build-pip")
os.makedirs(BUILD_BASE, exist_ok=True)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("DITTO_CMAKE_BUILD_DIR")
        if not build_dir:
            build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DDITTO_BUILD_TESTS=OFF", "-DDITTO_BUILD_EXAMPLES=OFF",
                                   f"-DPython_EXECUTABLE={sys.executable}"])  # fmt: skip
        jobs = str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "ditto_python", "-j", jobs])
        built = os.path.join(build_dir, "python", "ditto")
        so = [f for f in os.listdir(built) if f.startswith("_C.") and f.endswith(".so")]
        if len(so) != 1:
            raise RuntimeError(f"expected one ditto/_C*.so in {built}, found {so}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(built, so[0]), target)


setup(
    name="ditto",
    version="0.1.0",
    description="Tensors and autograd whose results are the same bits on every run, with PyTorch's API",
    package_dir={"": "python"},
    packages=find_packages("python", exclude=["tests", "tests.*"]),
    ext_modules=[Extension("ditto._C", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.8",
    zip_safe=False,
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
)
