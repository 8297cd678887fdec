#!/usr/bin/env bash
# tests/docs/check_code_blocks.sh CXX INCLUDE_DIR... — every C++ block (```cpp) of the README and
# of docs/ compiles as its own translation unit, as a reader would paste it; a block with a main()
# is also linked and run (in a temporary folder) and must exit 0. A block that needs a server
# (no main) is compiled only. The headers come from this checkout.
set -euo pipefail
cxx=$1
shift
source=$(cd "$(dirname "$0")/../.." && pwd)
includes=(-I"$source/include")
for dir in "$@"; do includes+=(-I"$dir"); done
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-code-blocks.XXXXXX")
trap 'rm -rf "$work"' EXIT

failed=0 blocks=0
while IFS= read -r document; do
    # Each block to its own file: DOCUMENT.N.cpp
    awk -v out="$work/$(basename "$document")" '
        /^```cpp[[:space:]]*$/ { n++; file = out "." n ".cpp"; next }
        /^```/ { file = ""; next }
        file != "" { print > file }' "$document"
done < <(find "$source/README.md" "$source/docs" "$source/python/README.md" "$source/examples" -name '*.md' | sort)

for block in "$work"/*.cpp; do
    [[ -e $block ]] || continue
    blocks=$((blocks + 1))
    name=$(basename "$block" .cpp)
    if grep -q '^int main(' "$block"; then
        if ! "$cxx" -std=c++20 -Wall -Wextra -Werror "${includes[@]}" "$block" -o "$work/$name" 2>"$work/$name.log"; then
            echo "not ok - $name does not compile:"; head -20 "$work/$name.log"; failed=1; continue
        fi
        mkdir "$work/$name.run"
        if (cd "$work/$name.run" && "$work/$name" >/dev/null); then echo "ok - $name compiles and runs"
        else echo "not ok - $name exits $?"; failed=1; fi
    elif "$cxx" -std=c++20 -Wall -Wextra -Werror "${includes[@]}" -c "$block" -o "$work/$name.o" 2>"$work/$name.log"; then
        echo "ok - $name compiles"
    else
        echo "not ok - $name does not compile:"; head -20 "$work/$name.log"; failed=1
    fi
done
echo "$blocks C++ blocks checked"
[[ $blocks -gt 0 ]] || { echo "not ok - no C++ block found"; exit 1; }
exit $failed
