#!/usr/bin/env bash
# tests/layers/check_layers.sh — the include rules of docs/ARCHITECTURE.md, checked on the sources
# as they are: each layer includes only the layers below it, and nothing outside include/ reaches
# the library's machinery (bloomkit::detail).
#
#   bash tests/layers/check_layers.sh [project-dir]
#
#   0 basics       version.hpp error.hpp options.hpp simd.hpp keys.hpp hash.hpp hash/ kind_request.hpp
#                  sizing.hpp sizing/ os/ memory.hpp
#   1 machinery    detail/
#   2 layouts      layouts/
#   3 kinds        *_filter.hpp
#   4 codecs       io/header.hpp io/codec.hpp io/payload.hpp io/chunks.hpp io/streams.hpp io/*_codec.hpp
#                  io/stage_table.hpp
#   5 the registry kinds.hpp (each kind: its codec's include and its type)
#   6 formats      the rest of io/ (bkf.hpp, any_codec.hpp, guava.hpp, dcso.hpp, ...)
#   7 dispatch     any_filter.hpp bulk.hpp file.hpp file_update.hpp formats.hpp
#   8 the rest     bloomkit.hpp (the umbrella), redis.hpp
#   9 libraries    src/jobs (bloomkit::jobs), src/redis (bloomkit::redis), src/redis_module (bloomkit.so)
#  10 programs     src/cli/support, bench/, examples/, python/
#  11 commands     src/cli/commands
#  12 main         src/cli/main.cpp
#
# Within a layer of the header-only library a header may include its neighbours, except the
# kinds: a kind includes no sibling kind, but for the scalable and windowed filters, whose stages
# and generations are Bloom filters. From layer 9 up, a folder includes nothing of another folder of its layer (the jobs
# library and the Redis library know nothing of each other; the benchmarks nothing of the
# command's support).
#
# Outside include/, no file includes bloomkit/detail/ or names bloomkit::detail; nor does it name
# detail:: at all, except in src/redis, whose own internals live in bloomkit::redis::detail
# (declared in redis.hpp, which every file of src/redis sees, so an unqualified detail:: there
# is that namespace). tests/ are exempt from these two rules: they test the machinery itself.
#
# An include is found as the compiler finds it: beside the including file, then in include/, src/
# and src/cli/ (the include directories of the targets); one found nowhere (a system or
# third-party header) is not checked. Prints each offence and exits 1 if there is one.
set -u
cd "${1:-$(dirname "$0")/../..}" || exit 2

# Sets `layer` and `folder` for the file `path` (relative to the project); layer -1: unchecked.
locate() {
    folder=${1%/*}
    case $1 in
        include/bloomkit/version.hpp | include/bloomkit/error.hpp | include/bloomkit/options.hpp | include/bloomkit/simd.hpp | \
            include/bloomkit/hash.hpp | include/bloomkit/keys.hpp | include/bloomkit/kind_request.hpp | \
            include/bloomkit/sizing.hpp | include/bloomkit/memory.hpp | \
            include/bloomkit/sizing/* | include/bloomkit/os/* | include/bloomkit/hash/*) layer=0 ;;
        include/bloomkit/detail/*) layer=1 ;;
        include/bloomkit/layouts/*) layer=2 ;;
        include/bloomkit/any_filter.hpp | include/bloomkit/bulk.hpp | include/bloomkit/file.hpp | include/bloomkit/formats.hpp | \
            include/bloomkit/file_update.hpp) layer=7 ;;
        include/bloomkit/*_filter.hpp) layer=3 ;;
        include/bloomkit/io/header.hpp | include/bloomkit/io/codec.hpp | include/bloomkit/io/payload.hpp | \
            include/bloomkit/io/chunks.hpp | include/bloomkit/io/streams.hpp | include/bloomkit/io/*_codec.hpp | \
            include/bloomkit/io/stage_table.hpp)
            layer=4
            [[ $1 == */any_codec.hpp ]] && layer=6
            ;;
        include/bloomkit/kinds.hpp) layer=5 ;;
        include/bloomkit/io/*) layer=6 ;;
        include/bloomkit/*) layer=8 ;;
        src/jobs/*)  # spill/ included: one library, whose exact jobs stand on its line engine
            layer=9
            folder=src/jobs
            ;;
        src/redis/*) layer=9 ;;
        src/redis_module/*)  # bloomkit.so: beside the client-side src/redis, sharing nothing with it
            layer=9
            folder=src/redis_module
            ;;
        src/cli/support/*) layer=10 ;;
        bench/* | examples/* | python/*)
            layer=10
            folder=${1%%/*}
            ;;
        src/cli/commands/*) layer=11 ;;
        src/cli/main.cpp) layer=12 ;;
        *) layer=-1 ;;
    esac
}

# Sets `found` to the file `included` names from a file in `directory`, or "" if none.
find_included() {
    local candidate
    found=""
    for candidate in "$2/$1" "include/$1" "src/$1" "src/cli/$1"; do
        if [[ -f $candidate ]]; then
            found=$candidate
            [[ $found == */../* || $found == */./* ]] && found=$(realpath -m --relative-to=. "$found")
            return
        fi
    done
}

bad=0 checked=0
offend() {
    echo "$1"
    bad=$((bad + 1))
}

while IFS= read -r file; do
    locate "$file"
    from=$layer from_folder=$folder
    ((from < 0)) && continue
    while IFS= read -r included; do
        find_included "$included" "${file%/*}"
        [[ -z $found ]] && continue
        locate "$found"
        to=$layer
        checked=$((checked + 1))
        if ((to < 0)); then
            offend "$file includes $included, which is in no layer"
        elif ((to > from)); then
            offend "$file includes $included: layer $from includes layer $to"
        elif ((to == from && from == 3)) &&
            [[ ($file != include/bloomkit/scalable_bloom_filter.hpp && $file != include/bloomkit/windowed_filter.hpp) ||
                $found != include/bloomkit/bloom_filter.hpp ]]; then
            offend "$file includes $included: a filter kind includes a sibling kind"
        elif ((to == from && from >= 9)) && [[ $folder != "$from_folder" ]]; then
            offend "$file includes $included: $from_folder includes $folder, a neighbour of its layer"
        fi
    done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]\([^">]*\)[">].*/\1/p' "$file")
done < <(find include src bench examples python -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' \) 2>/dev/null | sort)

# detail:: outside include/, comments aside.
while IFS= read -r file; do
    code=$(sed 's://.*$::' "$file")
    if grep -q 'bloomkit/detail/' <<<"$code"; then offend "$file includes the library's machinery (bloomkit/detail/)"; fi
    if grep -q 'bloomkit::detail\b' <<<"$code"; then offend "$file names bloomkit::detail"; fi
    if [[ $file != src/redis/* ]] && grep -qE '(^|[^[:alnum:]_])detail::' <<<"$code"; then offend "$file names detail::"; fi
done < <(find src bench examples python -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.cc' \) 2>/dev/null | sort)

echo "$checked includes checked, $bad against the layers"
((bad == 0))
