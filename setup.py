"""Builds quoct's Python extension (quoct._core) with CMake, for pip (pyproject.toml).

The extension is the CMake target quoct_python of this repository (python/CMakeLists.txt),
configured with QUOCT_BUILD_PYTHON=ON for the interpreter running pip, Release, and
nothing else (no tests, tools, examples or benchmarks). Set CMAKE_ARGS to pass more
options (e.g. CMAKE_ARGS="-DCMAKE_CXX_COMPILER=clang++") and CMAKE_BUILD_PARALLEL_LEVEL
for the number of compile jobs.
"""

import os
import pathlib
import shlex
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DQUOCT_BUILD_PYTHON=ON",
            "-DQUOCT_BUILD_TESTS=OFF", "-DQUOCT_BUILD_BENCH=OFF",
            "-DQUOCT_BUILD_EXAMPLES=OFF", "-DQUOCT_BUILD_TOOLS=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
        ] + shlex.split(os.environ.get("CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "quoct_python", "-j", jobs], check=True)
        built = build_dir / "python" / "quoct" / ("_core" + sysconfig.get_config_var("EXT_SUFFIX"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        self.copy_file(str(built), str(target))


setup(ext_modules=[Extension("quoct._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
