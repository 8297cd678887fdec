#!/usr/bin/env bash
# tests/install/check_install.sh BUILD_DIR CXX — `cmake --install` into a temporary prefix, then
# a program compiled the ways a user would find the library: pkg-config, find_package(bloomkit)
# (its version, and bloomkit::redis where the build has it), and add_subdirectory of the source
# tree by a header-only user, which must build nothing of ours but the user's program.
set -euo pipefail
build=$1
cxx=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null

cp "$(dirname "$0")/user_program.cpp" "$work/main.cpp"

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
find_package(bloomkit ${WANTED_VERSION} EXACT REQUIRED)
add_executable(by-cmake main.cpp)
target_link_libraries(by-cmake PRIVATE bloomkit::bloomkit)
if(TARGET bloomkit::redis AND NOT SANITIZED)
    add_executable(with-redis redis.cpp)
    target_link_libraries(with-redis PRIVATE bloomkit::redis)
endif()
CMAKE
cat >"$work/redis.cpp" <<'CPP'
#include <bloomkit/redis.hpp>
int main() {  // a function of the compiled library: links it, and hiredis and fmt behind it
    return bloomkit::redis::redacted_url("redis://app:secret@cache:6379").find("secret") == std::string::npos ? 0 : 1;
}
CPP
source=$(cd "$(dirname "$0")/../.." && pwd)
# A sanitized build's library cannot be linked by a program built without the sanitizers.
sanitized=$(sed -n 's/^BLOOMKIT_SANITIZE:STRING=//p' "$build/CMakeCache.txt")
version=$(sed -n 's/^#define BLOOMKIT_VERSION_STRING "\(.*\)"$/\1/p' "$source/include/bloomkit/version.hpp")
cmake -S "$work" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_COMPILER="$cxx" \
    -DWANTED_VERSION="$version" -DSANITIZED="$sanitized" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/by-cmake"
if [[ -z $sanitized && -n $(find "$work/prefix" -name 'libbloomkit_redis.a') ]]; then
    [[ -x "$work/build/with-redis" ]] || { echo "bloomkit::redis is installed but find_package does not define it" >&2; exit 1; }
    "$work/build/with-redis"
fi

# add_subdirectory by a user who wants the headers only: nothing of ours is compiled.
mkdir "$work/user"
cp "$work/main.cpp" "$work/user/"
cat >"$work/user/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(user LANGUAGES CXX)
add_subdirectory("$source" bloomkit)
add_executable(by-subdirectory main.cpp)
target_link_libraries(by-subdirectory PRIVATE bloomkit::bloomkit)
CMAKE
cmake -S "$work/user" -B "$work/user/build" -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build "$work/user/build" >"$work/user/build.log"
"$work/user/build/by-subdirectory"
if grep -q 'bloomkit_redis\|bloomkit_cli\|bloomkit_jobs' "$work/user/build.log"; then
    echo "add_subdirectory built more than the headers:" >&2; cat "$work/user/build.log" >&2; exit 1
fi
echo "installed to a temporary prefix: found by pkg-config and by find_package $version; add_subdirectory builds headers only"
