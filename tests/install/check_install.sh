#!/usr/bin/env bash
# tests/install/check_install.sh BUILD_DIR CXX — `cmake --install` into a temporary prefix, then
# a program compiled the two ways a user would find the library: pkg-config, and
# find_package(bloomkit) from a CMake project. Both must build and run.
set -euo pipefail
build=$1
cxx=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null

cat >"$work/main.cpp" <<'CPP'
#include <bloomkit/bloomkit.hpp>
int main() {
    bloomkit::block_bloom_filter filter(1000, 0.01);
    filter.insert(std::string_view("installed"));
    return filter.contains(std::string_view("installed")) ? 0 : 1;
}
CPP

# pkg-config, the prefix given at install time (not the configured one).
flags=$(PKG_CONFIG_PATH="$work/prefix/share/pkgconfig" pkg-config --cflags bloomkit)
include=$(realpath -m "$(sed 's/^-I//; s/ .*//' <<<"$flags")")
[[ $include == "$(realpath "$work/prefix/include")" ]] || { echo "pkg-config --cflags bloomkit gave '$flags'" >&2; exit 1; }
"$cxx" -std=c++20 $flags "$work/main.cpp" -o "$work/by-pkg-config"
"$work/by-pkg-config"

# find_package(bloomkit).
cat >"$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(user LANGUAGES CXX)
find_package(bloomkit REQUIRED)
add_executable(by-cmake main.cpp)
target_link_libraries(by-cmake PRIVATE bloomkit::bloomkit)
CMAKE
cmake -S "$work" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/by-cmake"
echo "installed to a temporary prefix: found by pkg-config and by find_package"
