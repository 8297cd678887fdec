#!/bin/sh
# bench/plots.sh BUILD_DIR [OUT_DIR] — the charts of docs/BENCHMARKS.md, drawn by gnuplot from
# bloomkit_bench's --tsv rows (OUT_DIR defaults to docs/plots):
#   lookups.svg       ns per single-key lookup against n, every kind, and the memory floor
#   bulk-lookups.svg  the same for bulk lookups
#   inserts.svg       ns per single-key insert (fuse: build time per key) against n
#   space.svg         bits per key against the FPR, every kind, and the lower bound log2(1/p)
# n runs 1M, 10M, 100M for every kind, and 1G for the block and split-block layouts when the
# machine has the memory (PLOT_MAX_N=1e8 stops at 100M). The data are kept next to the charts.
set -eu
build=${1:?usage: bench/plots.sh BUILD_DIR [OUT_DIR]}
out=${2:-docs/plots}
bench=$build/bench/bloomkit_bench
max_n=${PLOT_MAX_N:-1e9}
command -v gnuplot >/dev/null || { echo "plots.sh: gnuplot is not installed (scripts/install-deps.sh bench)" >&2; exit 2; }
[ -x "$bench" ] || { echo "plots.sh: $bench is missing (build the bench)" >&2; exit 2; }
mkdir -p "$out"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT INT TERM

"$bench" --tsv --n 1e6,1e7,1e8 --fpp 0.01 --keys int --sample 1e7 >"$data/speed.tsv"
# 1G keys: 1.2 GB per filter, 8 GB of keys for the unordered_set and fuse builds (left out).
available_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
if [ "$max_n" = 1e9 ] && [ "${available_kb:-0}" -gt 8000000 ]; then
    "$bench" --tsv --n 1e9 --fpp 0.01 --keys int --sample 1e7 --only block,split-block >>"$data/speed.tsv"
fi
"$bench" --space --tsv >"$data/space.tsv"
cp "$data/speed.tsv" "$out/speed.tsv"
cp "$data/space.tsv" "$out/space.tsv"

# One file per series (a structure's operation), "n ns" lines, for gnuplot.
series() {  # operation file-suffix
    awk -F'\t' -v op="$1" -v dir="$data" -v suffix="$2" '
        $6 == op { f = dir "/" $5 "." suffix; gsub(/ /, "_", f); print $1, $7 > f }
        $6 == op && !seen[$1]++ { print $1, $4 > (dir "/floor." suffix) }' "$data/speed.tsv"
}
series "lookup 50/50" single
series "lookup 50/50 (bulk)" bulk
series "insert" insert
awk -F'\t' '$6 == "build (all keys)" { f = ENVIRON["D"] "/" $5 ".insert"; gsub(/ /, "_", f); print $1, $7 > f }' \
    D="$data" "$data/speed.tsv"
awk -F'\t' -v dir="$data" '{ f = dir "/" $1 ".space"; gsub(/ /, "_", f); print $2, $3 > f }' "$data/space.tsv"

chart() {  # output title ylabel suffix xlabel logy
    files=$(ls "$data"/*."$4" 2>/dev/null | grep -v '/floor\.' || true)
    {
        echo "set terminal svg size 900,540 dynamic font 'sans,12' background '#ffffff'"
        echo "set output '$out/$1'"
        echo "set title '$2'"
        echo "set ylabel '$3'; set xlabel '$5'"
        echo "set logscale x; set grid; set key outside right top"
        [ "$6" = logy ] && echo "set logscale y"
        [ "$4" = space ] && echo "set xrange [*:*] reverse"
        printf 'plot '
        sep=''
        for f in $files; do
            name=$(basename "$f" ".$4" | tr _ ' ')
            printf "%s'%s' using 1:2 with linespoints title '%s'" "$sep" "$f" "$name"
            sep=', '
        done
        [ -f "$data/floor.$4" ] && printf "%s'%s' using 1:2 with lines dashtype 2 linewidth 2 title 'memory floor'" "$sep" "$data/floor.$4"
        echo
    } >"$data/$1.gp"
    gnuplot "$data/$1.gp"
}
chart lookups.svg "Single-key lookups (8-byte keys, 1% target, half present)" "ns per lookup" single "keys in the filter (n)" logy
chart bulk-lookups.svg "Bulk lookups (8-byte keys, 1% target, half present)" "ns per lookup" bulk "keys in the filter (n)" logy
chart inserts.svg "Single-key inserts (binary fuse: build time per key)" "ns per key" insert "keys in the filter (n)" logy
chart space.svg "Space: bits per key against the false-positive rate (filters of 1M keys)" "bits per key" space "target false-positive rate" linear
echo "plots.sh: wrote $out/lookups.svg, bulk-lookups.svg, inserts.svg, space.svg (data: speed.tsv, space.tsv)"
