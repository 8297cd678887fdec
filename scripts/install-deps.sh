#!/usr/bin/env bash
# Installs the Debian packages bloomkit needs, only those that are missing (idempotent).
# Run as root, or as a user with sudo. `install-deps.sh bench` adds the benchmark's baselines.
set -euo pipefail

packages=(
    cmake make g++           # the build
    libxxhash-dev            # XXH3 / XXH64 (header-only use)
    libcli11-dev libfmt-dev  # the bloomkit command
    zlib1g-dev libzstd-dev pkg-config  # the command reads gzip and zstd inputs
    gzip zstd                # the tests compress inputs
    googletest libgtest-dev  # tests
    clang libclang-rt-14-dev # make test also builds with Clang; libFuzzer and its sanitizers
    clang-format-14          # make test checks the house style (tests/style)
    libbloom-dev             # the benchmark program's baseline, libbloom (built with everything)
    wamerican-huge cracklib-runtime  # word lists for `make demo`
    redis-server redis-tools libhiredis-dev  # the Redis filter (hiredis) and its tests' real servers
    postgresql libpq-dev     # the cache-guard example (a Redis filter in front of PostgreSQL)
    python3-dev pybind11-dev python3-pybind11 python3-numpy python3-setuptools  # the Python bindings (python/)
    python3-pip python3-venv # pip install ./python, in a venv over Debian's packages
    time                     # the exact jobs' tests assert peak memory with /usr/bin/time
    python3-pytest python3-hypothesis python3-redis python3-xxhash  # their tests, with /usr/bin/python3
    default-jdk-headless libguava-java  # tests/cli/guava.sh: Guava streams against Java's own Guava
    golang-github-dcso-bloom-cli  # tests/cli/dcso.sh: DCSO files against DCSO's bloom (and a benchmark baseline)
    python3-flor             # DCSO's Python implementation: the Python tests' and benchmark's reference
    python3-dask python3-distributed python3-pandas  # bloomkit.dask and its tests on a local cluster
)
if [[ "${1:-}" == "bench" ]]; then
    packages+=(
        linux-perf                    # perf stat, where the machine allows it
        valgrind                      # bench/instructions.sh counts instructions per call
        gnuplot-nox                   # bench/plots.sh draws the charts of docs/BENCHMARKS.md
        bc                            # bench/cli_throughput.sh does its arithmetic with bc
    )
fi

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
