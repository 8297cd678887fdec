#!/usr/bin/env bash
# python/tests/install_check.sh — the README's Python install, as a new user types it, on this
# checkout: a venv over Debian's Python and packages (/usr/bin/python3 -m venv
# --system-site-packages: Debian's own interpreter refuses `pip install` outside one, PEP 668),
# `pip install --no-build-isolation ./python` with no network (--no-index: everything it needs
# is a Debian package), then the README's URL de-duplication and password screen from the
# installed package, not from the build tree. The ctest `python_install`.
#
#   bash python/tests/install_check.sh [SOURCE_DIR]
set -euo pipefail
source_dir=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-pip.XXXXXX")
trap 'rm -rf "$work"' EXIT

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# A copy of python/, include/ and src/jobs/: pip builds in place (build/, *.egg-info) and must not
# write into the checkout.
mkdir -p "$work/src/src"
cp -r "$source_dir/python" "$source_dir/include" "$work/src/"
cp -r "$source_dir/src/jobs" "$work/src/src/"
rm -rf "$work/src/python/build" "$work/src/python/"*.egg-info
# Unoptimised, without debug information: the install is what is checked, and the jobs' templates
# take minutes at -O2 -g (the interpreter's own flags).
CFLAGS="-O0 -g0" "$work/venv/bin/python" -m pip install --quiet --no-index --no-build-isolation "$work/src/python"

cd "$work"  # away from any bloomkit/ directory the interpreter could import instead
printf 'https://a.example/\nhttps://b.example/\nhttps://a.example/\n' >urls.txt
printf 'hunter2\npassword\n' >weak.txt
"$work/venv/bin/python" - <<'PY'
import bloomkit, pathlib
assert "venv" in bloomkit.__file__, bloomkit.__file__          # the installed package
seen = bloomkit.BloomFilter(1_000_000, 0.001)
unique = [u for u in pathlib.Path("urls.txt").read_text().split() if u not in seen and not seen.add(u)]
assert unique == ["https://a.example/", "https://b.example/"], unique
weak = bloomkit.BloomFilter(1000, 0.001)
weak.update(pathlib.Path("weak.txt").read_text().split())
weak.save("weak.bkf")
hits = bloomkit.load("weak.bkf").contains_many(["hunter2", "correct horse battery staple"])
assert list(hits) == [True, False], hits
print("ok - pip install --no-build-isolation ./python in a venv, then a URL dedup and a password screen")
PY
