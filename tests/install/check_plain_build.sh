#!/usr/bin/env bash
# tests/install/check_plain_build.sh CXX — the README's plain build on a machine with only a
# compiler, CMake, xxHash, zlib and zstd: CMake is made blind to everything else (CLI11, fmt,
# GoogleTest, pybind11, libbloom, PostgreSQL), and `cmake -S . -B b && cmake --build b` must
# succeed, saying which parts it skipped and with which package (the Python bindings: fmt, which
# the jobs library under them needs). (The command's own build, with its packages, is every
# other build of the suite.)
set -euo pipefail
cxx=$1
source=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-plain.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0

cmake -S "$source" -B "$work/b" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON \
    -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON -DCMAKE_DISABLE_FIND_PACKAGE_PostgreSQL=ON \
    -DBLOOMKIT_LIBBLOOM=BLOOMKIT_LIBBLOOM-NOTFOUND >"$work/configure.log" 2>&1 ||
    { echo "not ok - configure:"; tail -20 "$work/configure.log"; exit 1; }
for skipped in "the bloomkit command skipped: CLI11 (libcli11-dev), fmt (libfmt-dev)" \
    "the tests skipped: GoogleTest (libgtest-dev)" "the benchmarks skipped: libbloom" \
    "the Python bindings skipped: fmt (libfmt-dev)"; do
    if grep -qF "$skipped" "$work/configure.log"; then echo "ok - says: $skipped"; else echo "not ok - does not say: $skipped"; failed=1; fi
done
if cmake --build "$work/b" >"$work/build.log" 2>&1; then echo "ok - cmake --build succeeds"
else echo "not ok - build:"; tail -20 "$work/build.log"; failed=1; fi
exit $failed
