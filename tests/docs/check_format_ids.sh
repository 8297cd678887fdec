#!/usr/bin/env bash
# tests/docs/check_format_ids.sh ROOT — every hash code (hash.hpp's hash_algorithm) and binary
# fuse slot hashing (sizing/binary_fuse.hpp's binary_fuse_hashing) a file may carry has its row
# in docs/FORMAT.md's "Format ids and why each exists": a format id is kept by every future
# reader, so none is added without saying why a user needs it.
set -uo pipefail
root=${1:-.}
format=$root/docs/FORMAT.md
failures=0

# ids ENUM HEADER: "name value" for each enumerator of `enum class ENUM` in HEADER.
ids() {
    awk -v enum="enum class $1 " '
        index($0, enum) { inside = 1; next }
        inside && /^};/ { exit }
        inside && match($0, /^ *[a-z0-9_]+ *= *[0-9]+/) {
            split(substr($0, RSTART, RLENGTH), part, "=")
            gsub(/ /, "", part[1]); gsub(/ /, "", part[2])
            print part[1], part[2]
        }' "$2"
}

# check BYTE ENUM HEADER: each id of ENUM has a row "| BYTE | VALUE NAME |" (NAME with - for _).
check() {
    local byte=$1 name value count=0
    while read -r name value; do
        count=$((count + 1))
        if ! grep -Fq "| $byte | $value ${name//_/-} |" "$format"; then
            echo "docs/FORMAT.md: no row '| $byte | $value ${name//_/-} |' saying why $2 $name exists"
            failures=$((failures + 1))
        fi
    done < <(ids "$2" "$3")
    if [[ $count -eq 0 ]]; then
        echo "no enumerators of $2 found in $3"
        failures=$((failures + 1))
    fi
}

check "15 hash" hash_algorithm "$root/include/bloomkit/hash.hpp"
check "104 fuse slot hashing" binary_fuse_hashing "$root/include/bloomkit/sizing/binary_fuse.hpp"
[[ $failures -eq 0 ]] && echo "every format id has its reason in docs/FORMAT.md"
exit $((failures > 0))
