#!/usr/bin/env bash
# tests/layers/check_layers.sh — the include rules of docs/ARCHITECTURE.md, checked on the
# headers as they are: each layer includes only the layers below it.
#
#   bash tests/layers/check_layers.sh [include-dir]
#
#   0 basics       error.hpp options.hpp simd.hpp hash.hpp kind_request.hpp sizing.hpp sizing/
#   1 machinery    detail/
#   2 layouts      layouts/
#   3 kinds        *_filter.hpp
#   4 the registry kinds.hpp
#   5 formats      io/
#   6 dispatch     any_filter.hpp bulk.hpp file.hpp file_update.hpp
#   7 the rest     bloomkit.hpp (the umbrella), redis.hpp
#
# Within a layer a header may include its neighbours, except the kinds: a kind includes no
# sibling kind, but for the scalable filter, whose stages are Bloom filters. Prints each
# offending include and exits 1 if there is one.
set -u
cd "${1:-$(dirname "$0")/../../include}" || exit 2

layer_of() {
    case $1 in
        bloomkit/error.hpp | bloomkit/options.hpp | bloomkit/simd.hpp | bloomkit/hash.hpp | bloomkit/kind_request.hpp | \
            bloomkit/sizing.hpp | bloomkit/sizing/*) echo 0 ;;
        bloomkit/detail/*) echo 1 ;;
        bloomkit/layouts/*) echo 2 ;;
        bloomkit/any_filter.hpp | bloomkit/bulk.hpp | bloomkit/file.hpp | bloomkit/file_update.hpp) echo 6 ;;
        bloomkit/*_filter.hpp) echo 3 ;;
        bloomkit/kinds.hpp) echo 4 ;;
        bloomkit/io/*) echo 5 ;;
        *) echo 7 ;;
    esac
}

bad=0 checked=0
while IFS= read -r header; do
    from=$(layer_of "$header")
    while IFS= read -r included; do
        to=$(layer_of "$included")
        checked=$((checked + 1))
        why=""
        if ((to > from)); then
            why="layer $from includes layer $to"
        elif ((to == from && from == 3)) && [[ $header != bloomkit/scalable_bloom_filter.hpp || $included != bloomkit/bloom_filter.hpp ]]; then
            why="a filter kind includes a sibling kind"
        fi
        if [[ -n $why ]]; then
            echo "$header includes $included: $why"
            bad=$((bad + 1))
        fi
    done < <(sed -n 's/^#include "\(bloomkit\/[^"]*\)".*/\1/p' "$header")
done < <(find bloomkit -name '*.hpp' | sort)

echo "$checked includes checked, $bad against the layers"
((bad == 0))
