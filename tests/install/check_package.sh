#!/usr/bin/env bash
# tests/install/check_package.sh BUILD_DIR CXX — the Debian package of a build, as `make package`
# makes it (cpack, DEB): its name and version; the files a user expects where Debian puts them
# (the command, every man page compressed, the completions, the headers, the CMake package and
# pkg-config file, the copyright and changelog); a program compiled against the extracted
# headers and CMake package; the extracted command runs; lintian finds no error. Skipped (77)
# without dpkg-deb.
set -euo pipefail
build=$1
cxx=$2
command -v dpkg-deb >/dev/null || { echo "# skipped: no dpkg-deb (dpkg)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
source=$(cd "$(dirname "$0")/../.." && pwd)
version=$(sed -n 's/^#define BLOOMKIT_VERSION_STRING "\(.*\)"$/\1/p' "$source/include/bloomkit/version.hpp")
failed=0
fail() { echo "not ok - $1"; failed=1; }
pass() { echo "ok - $1"; }

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
deb=$work/out/bloomkit_${version}_$(dpkg --print-architecture).deb
[[ -f $deb ]] && pass "the package is $(basename "$deb")" || { fail "no $(basename "$deb") in: $(ls "$work/out")"; exit 1; }
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] && pass "its version is $version" || fail "version $(dpkg-deb -f "$deb" Version)"

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$work/contents"
expected=(/usr/bin/bloomkit /usr/include/bloomkit/bloomkit.hpp /usr/include/bloomkit/version.hpp
          /usr/lib/cmake/bloomkit/bloomkitConfig.cmake /usr/share/pkgconfig/bloomkit.pc
          /usr/share/man/man1/bloomkit.1.gz /usr/share/man/man1/bloomkit-dedup.1.gz
          /usr/share/bash-completion/completions/bloomkit /usr/share/zsh/vendor-completions/_bloomkit
          /usr/share/fish/vendor_completions.d/bloomkit.fish
          /usr/share/doc/bloomkit/copyright /usr/share/doc/bloomkit/changelog.gz
          /usr/lib/redis/modules/bloomkit.so)
for file in "${expected[@]}"; do
    grep -qxF "$file" "$work/contents" && pass "holds $file" || fail "no $file"
done
# A man page for every subcommand the command lists.
"$build/src/cli/bloomkit" --help | awk '/^Subcommands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }' >"$work/commands"
while read -r command; do
    grep -qxF "/usr/share/man/man1/bloomkit-$command.1.gz" "$work/contents" || fail "no man page for $command"
done <"$work/commands"
pass "a man page for each of $(wc -l <"$work/commands") subcommands"

dpkg-deb -x "$deb" "$work/root"
[[ $("$work/root/usr/bin/bloomkit" --version) == "bloomkit $version" ]] && pass "the extracted command runs" ||
    fail "bloomkit --version: $("$work/root/usr/bin/bloomkit" --version 2>&1)"
# The packaged module loads into Debian's redis-server and answers (on a socket of our own).
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    redis-server --port 0 --unixsocket "$work/redis.sock" --dir "$work" --save "" \
        --loadmodule "$work/root/usr/lib/redis/modules/bloomkit.so" >"$work/redis.log" 2>&1 &
    server=$!
    for _ in $(seq 600); do
        [[ $(redis-cli -s "$work/redis.sock" PING 2>/dev/null) == PONG ]] && break
        kill -0 "$server" 2>/dev/null || break
        sleep 0.1
    done
    answers=$(redis-cli -s "$work/redis.sock" BF.ADD f x 2>&1; redis-cli -s "$work/redis.sock" BF.EXISTS f x 2>&1)
    [[ $answers == $'1\n1' ]] && pass "the packaged Redis module loads and answers BF.ADD, BF.EXISTS" ||
        fail "the packaged Redis module: $answers $(tail -3 "$work/redis.log")"
    redis-cli -s "$work/redis.sock" SHUTDOWN NOSAVE >/dev/null 2>&1 || true
    wait "$server" || true
fi
cp "$(dirname "$0")/user_program.cpp" "$work/main.cpp"
cat >"$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(user LANGUAGES CXX)
find_package(bloomkit REQUIRED)
add_executable(user main.cpp)
target_link_libraries(user PRIVATE bloomkit::bloomkit)
CMAKE
if cmake -S "$work" -B "$work/user" -DCMAKE_PREFIX_PATH="$work/root/usr" -DCMAKE_CXX_COMPILER="$cxx" >"$work/user.log" 2>&1 &&
    cmake --build "$work/user" >>"$work/user.log" 2>&1 && "$work/user/user"; then
    pass "a program builds against the extracted headers and CMake package, and runs"
else
    fail "a program against the extracted package: $(tail -5 "$work/user.log")"
fi

if command -v lintian >/dev/null; then
    lintian --tag-display-limit 0 "$deb" >"$work/lintian" 2>&1 || true
    if grep -q '^E:' "$work/lintian"; then fail "lintian: $(grep '^E:' "$work/lintian" | head -5)"; else pass "lintian: no error"; fi
else
    echo "# skipped: lintian (not installed)"
fi
exit $failed
