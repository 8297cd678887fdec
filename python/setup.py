"""The native module of the bloomkit package, for pip (pyproject.toml holds the rest): the same
source CMake builds (python/CMakeLists.txt), against the C++ headers of this checkout, with the
filter jobs it stands on (bloomkit::jobs, ../src/jobs: opening any filter a path names, gzip and
zstd) compiled in — fmt, zlib and zstd from Debian (libfmt-dev, zlib1g-dev, libzstd-dev).
Without RedisBloomFilter, which links the compiled bloomkit::redis: a CMake build of the project
has it.

The source files compile in parallel, one per CPU (BLOOMKIT_BUILD_JOBS=N to choose): a
template-heavy file takes most of a minute, and pip otherwise compiles them one after another.
They are optimised with -O2, unless CFLAGS says otherwise (pip passes it on)."""
import os
import re
from pathlib import Path

from pybind11.setup_helpers import ParallelCompile, Pybind11Extension
from setuptools import setup

ParallelCompile("BLOOMKIT_BUILD_JOBS").install()
here = Path(__file__).resolve().parent
version = re.search(r'#define BLOOMKIT_VERSION_STRING "([0-9.]+)"',
                    (here.parent / "include" / "bloomkit" / "version.hpp").read_text()).group(1)
jobs = here.parent / "src" / "jobs"
sources = [str(Path("src") / name) for name in ("module.cpp", "errors.cpp", "filter.cpp", "keys.cpp",
                                                   "mapped_guard.cpp", "fork_safe_lock.cpp")]
# Relative to this folder, as setuptools takes sources.
sources += sorted(os.path.relpath(path, here) for folder in (jobs, jobs / "spill", jobs / "filter")
                  for path in folder.glob("*.cpp"))
setup(version=version, ext_modules=[
    Pybind11Extension("bloomkit._bloomkit", sources,
                      include_dirs=[str(here.parent / "include"), str(here.parent / "src")], cxx_std=20,
                      libraries=["fmt", "z", "zstd"],
                      extra_compile_args=[] if os.environ.get("CFLAGS") else ["-O2"]),
])
