#!/usr/bin/env bash
# Installs the Debian packages (Debian 12 and 13) that one use of bloomkit needs, only those
# missing (idempotent). Run as root, or as a user with sudo.
#
#   scripts/install-deps.sh [library|command|demo|redis-demo|package|docs|test|bench ...]   (default: command)
#
#   library     the header-only library: a C++20 compiler, CMake, xxHash
#   command     the library and the `bloomkit` command (CLI11, fmt, zlib, zstd)
#   demo        the command and the word lists of `make demo`
#   redis-demo  the demo, Redis and PostgreSQL for `make demo-redis`
#   package     the command with bloomkit::redis, and what `make package` needs (dpkg-dev)
#   docs        doxygen, for `make docs`
#   test        everything `make test` builds and runs against: GoogleTest, Clang and its
#               sanitizer runtimes, Redis, the Python bindings' packages and Dask, Java's Guava,
#               DCSO's bloom, doxygen, lintian, zsh and fish (their completions are run)
#   bench       the test set and the benchmarks' baselines and tools
#
# Services are never started by the install (Redis, PostgreSQL): the tests and demos start their
# own servers in temporary folders. Versioned packages are chosen only when no unversioned one
# exists (asked of apt-cache, so that the script works on Debian 12 and 13 alike).
set -euo pipefail

library=(cmake make g++ pkg-config libxxhash-dev)
command=("${library[@]}" libcli11-dev libfmt-dev zlib1g-dev libzstd-dev)
demo=("${command[@]}" wamerican-huge cracklib-runtime)
redis=(redis-server redis-tools libhiredis-dev)
redis_demo=("${demo[@]}" "${redis[@]}" postgresql libpq-dev)
package=("${command[@]}" libhiredis-dev dpkg-dev)
docs=(doxygen)
python=(python3-dev pybind11-dev python3-pybind11 python3-numpy python3-setuptools python3-pip python3-venv
        libfmt-dev zlib1g-dev libzstd-dev)  # the filter jobs the module stands on
test=(
    "${demo[@]}" "${redis[@]}" "${python[@]}"
    gzip zstd                          # the tests compress inputs
    googletest libgtest-dev            # the suite
    clang "clang-format|14"            # make test builds with Clang too, and checks the house style
    "libclang-rt-dev|libclang-rt-14-dev"   # libFuzzer and Clang's sanitizer runtimes
    time                               # peak memory asserted with /usr/bin/time
    python3-pytest python3-hypothesis python3-redis python3-xxhash python3-jsonschema
    python3-dask python3-distributed python3-pandas    # bloomkit.dask on a local cluster
    python3-flor                       # DCSO's Python implementation, a reference
    default-jdk-headless libguava-java # Guava streams against Java's own Guava
    golang-github-dcso-bloom-cli       # DCSO files against DCSO's bloom
    doxygen                            # the API reference (make docs), checked for undocumented names
    dpkg-dev lintian                   # make package, and its check
    zsh fish                           # the completions for them are run by the tests
)
bench=(
    "${test[@]}"
    libbloom-dev                       # the benchmark program's baseline, libbloom
    linux-perf                         # perf stat, where the machine allows it
    valgrind                           # bench/instructions.sh counts instructions per call
    gnuplot-nox                        # bench/plots.sh draws the charts of docs/BENCHMARKS.md
    bc                                 # bench/cli_throughput.sh does its arithmetic with bc
)

wanted=()
for target in "${@:-command}"; do
    case "$target" in
        library) wanted+=("${library[@]}") ;;
        command) wanted+=("${command[@]}") ;;
        demo) wanted+=("${demo[@]}") ;;
        redis-demo) wanted+=("${redis_demo[@]}") ;;
        package) wanted+=("${package[@]}") ;;
        docs) wanted+=("${docs[@]}") ;;
        test) wanted+=("${test[@]}") ;;
        bench) wanted+=("${bench[@]}") ;;
        *) echo "install-deps: unknown target '$target': choose library, command, demo, redis-demo, package, docs, test or bench" >&2
           exit 2 ;;
    esac
done

# "name|14": the unversioned package if the archive has it, else name-14 (clang-format-14 where
# clang-format is another major version is decided by the style check, not here).
available() { [[ -n "$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | grep -v '(none)')" ]]; }
resolve() {
    local choice
    IFS='|' read -r -a choices <<< "$1"
    if [[ ${#choices[@]} -eq 2 && "${choices[1]}" =~ ^[0-9]+$ ]]; then choices=("${choices[0]}" "${choices[0]}-${choices[1]}"); fi
    for choice in "${choices[@]}"; do
        if dpkg-query -W -f='${Status}' "$choice" 2>/dev/null | grep -q "install ok installed" || available "$choice"; then
            echo "$choice"; return
        fi
    done
    echo "${choices[0]}"
}

missing=()
declare -A seen=()
for entry in "${wanted[@]}"; do
    package=$(resolve "$entry")
    [[ -n "${seen[$package]:-}" ]] && continue
    seen[$package]=1
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
# Keep the packages' services (redis-server, postgresql) from starting: policy-rc.d answers 101,
# "action forbidden", to every init script the installation would run.
if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    $sudo sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'
    trap '$sudo rm -f /usr/sbin/policy-rc.d' EXIT
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
