#!/bin/sh
# bench/plots.sh BUILD_DIR [OUT_DIR] — the charts of docs/BENCHMARKS.md, drawn by gnuplot from
# bloomkit_bench's --tsv rows (OUT_DIR defaults to docs/plots):
#   lookups.svg       ns per single-key lookup against n, every kind, and the memory floor
#   bulk-lookups.svg  the same for bulk lookups
#   inserts.svg       ns per single-key insert (fuse: build time per key) against n
#   space.svg         bits per key against the FPR, every kind, and the lower bound log2(1/p)
# n runs 1M, 10M, 100M for every kind, and 1G for the block and split-block layouts when the
# machine has the memory (PLOT_MAX_N=1e8 stops at 100M). The data are kept next to the charts
# (speed.tsv, space.tsv); PLOTS_REDRAW=1 draws the charts again from them without measuring.
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

if [ "${PLOTS_REDRAW:-0}" = 1 ] && [ -f "$out/speed.tsv" ] && [ -f "$out/space.tsv" ]; then
    cp "$out/speed.tsv" "$out/space.tsv" "$data/"
else
    "$bench" --tsv --n 1e6,1e7,1e8 --fpr 0.01 --keys int --sample 1e7 >"$data/speed.tsv"
    # 1G keys: 1.2 GB per filter, 8 GB of keys for the unordered_set and fuse builds (left out).
    available_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
    if [ "$max_n" = 1e9 ] && [ "${available_kb:-0}" -gt 8000000 ]; then
        "$bench" --tsv --n 1e9 --fpr 0.01 --keys int --sample 1e7 --only block,split-block >>"$data/speed.tsv"
    fi
    "$bench" --space --tsv >"$data/space.tsv"
    cp "$data/speed.tsv" "$data/space.tsv" "$out/"
fi

# One file per series (a structure's operation), "x y" lines, for gnuplot; the file is named
# after the structure with anything but letters and digits replaced, and NAME.title holds the
# name itself for the legend.
series() {  # operation file-suffix
    awk -F'\t' -v op="$1" -v dir="$data" -v suffix="$2" '
        function file(name,   f) { f = name; gsub(/[^A-Za-z0-9]+/, "_", f); f = dir "/" f "." suffix
                                  if (!(f in titled)) { titled[f] = 1; print name > (f ".title") } return f }
        $6 == op || (suffix == "insert" && $6 == "build (all keys)") { print $1, $7 > file($5) }
        $6 == op && !seen[$1]++ { print $1, $4 > (dir "/floor." suffix) }' "$data/speed.tsv"
}
series "lookup 50/50" single
series "lookup 50/50 (bulk)" bulk
series "insert" insert
awk -F'\t' -v dir="$data" '
    { f = $1; gsub(/[^A-Za-z0-9]+/, "_", f); f = dir "/" f ".space"
      if (!(f in titled)) { titled[f] = 1; print $1 > (f ".title") }
      print $4, $3 > f }' "$data/space.tsv"

chart() {  # output title ylabel suffix xlabel logy
    files=$(ls "$data"/*."$4" 2>/dev/null | grep -v '/floor\.' | grep -v '\.title$' || true)
    {
        echo "set terminal svg size 900,540 dynamic noenhanced font 'sans,12' background '#ffffff'"
        echo "set output '$out/$1'"
        echo "set title '$2'"
        echo "set ylabel '$3'; set xlabel '$5'"
        echo "set logscale x; set grid; set key outside right top"
        [ "$6" = logy ] && echo "set logscale y"
        [ "$4" = space ] && echo "set xrange [*:*] reverse"
        printf 'plot '
        sep=''
        for f in $files; do
            name=$(cat "$f.title")
            printf "%s'%s' using 1:2 with linespoints title '%s'" "$sep" "$f" "$name"
            sep=', '
        done
        [ -f "$data/floor.$4" ] && printf "%s'%s' using 1:2 with lines dashtype 2 linewidth 2 title 'memory floor'" "$sep" "$data/floor.$4"
        echo
    } >"$data/$1.gp"
    gnuplot "$data/$1.gp"
    if [ -n "${PLOTS_PNG:-}" ]; then  # a PNG copy, to look at where SVG is not shown
        sed -e "s/^set terminal svg.*/set terminal pngcairo noenhanced size 900,540 font 'sans,10'/" -e "s/\.svg'/.png'/" "$data/$1.gp" | gnuplot
    fi
}
chart lookups.svg "Single-key lookups (8-byte keys, 1% target, half present)" "ns per lookup" single "keys in the filter (n)" logy
chart bulk-lookups.svg "Bulk lookups (8-byte keys, 1% target, half present)" "ns per lookup" bulk "keys in the filter (n)" logy
chart inserts.svg "Single-key inserts (binary fuse: build time per key)" "ns per key" insert "keys in the filter (n)" logy
chart space.svg "Space: bits per key against the false-positive rate measured (filters of 1M keys)" "bits per key" space "false-positive rate (measured)" logy
echo "plots.sh: wrote $out/lookups.svg, bulk-lookups.svg, inserts.svg, space.svg (data: speed.tsv, space.tsv)"
