"""The native module of the bloomkit package, for pip (pyproject.toml holds the rest): the same
source CMake builds (python/CMakeLists.txt), against the C++ headers of this checkout. Without
RedisBloomFilter, which links the compiled bloomkit::redis: a CMake build of the project has it."""
from pathlib import Path

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

here = Path(__file__).resolve().parent
setup(ext_modules=[
    Pybind11Extension("bloomkit._bloomkit",
                      [str(Path("src") / name) for name in ("module.cpp", "errors.cpp", "filter.cpp", "keys.cpp")],
                      include_dirs=[str(here.parent / "include")], cxx_std=20,
                      extra_compile_args=["-O2"]),
])
