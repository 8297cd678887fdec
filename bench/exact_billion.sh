#!/usr/bin/env bash
# The exact intersect at the scale it is for: two files of N lines each (default 500M, so a
# billion lines in all), 1 GiB of memory. Lines are 10-digit numbers (11 bytes with the newline):
# A draws from [0, 4e8) and B from [2e8, 6e8), so each has ~57% of its lines distinct and about
# half of each file's distinct lines are in the other (~100M lines in common). Prints the input and
# output sizes, the time, the peak RSS and the summary; then (unless SORT=0) the same answer the
# classic way — sort -u -S 1G --parallel of each file, comm -12 — with its time and peak RSS, and
# whether the two answers are the same set.
#
# Needs about 8 N × 11 bytes free in TMPDIR (the inputs, the partitions, sort's runs, outputs).
#
#   bench/exact_billion.sh [BUILD_DIR] [N]
set -euo pipefail
build=${1:-build/release}
lines=${2:-500000000}
bloomkit="$(cd "$build" && pwd)/src/cli/bloomkit"
[[ -x $bloomkit ]] || { echo "bench/exact_billion.sh: no $bloomkit (make release first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-billion.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export LC_ALL=C

# generate LOW SEED: N numbers from [LOW, LOW + 4e8), as 10 digits: two Park-Miller streams
# (x·16807 mod 2^31 - 1, exact in awk's doubles) give the high and low halves, 20000 values each.
generate() {
    awk -v n="$lines" -v low="$1" -v seed="$2" 'BEGIN {
        x = seed; y = seed + 1000003
        for (i = 0; i < n; i++) {
            x = (x * 16807) % 2147483647
            y = (y * 48271) % 2147483647
            printf "%010d\n", low + (x % 20000) * 20000 + y % 20000
        }
    }'
}
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $("$bloomkit" --version)"
start=$(date +%s)
generate 0 1 >a.txt &
generate 200000000 2 >b.txt &
wait
echo "inputs: $lines lines each, $(du -m a.txt | cut -f1) MB and $(du -m b.txt | cut -f1) MB, made in $(($(date +%s) - start)) s"

/usr/bin/time -f '%e s, peak RSS %M KB' -o time.txt "$bloomkit" intersect --exact --memory 1G --json --tmpdir "$work" \
    a.txt b.txt >common.txt 2>summary.txt
echo "intersect --exact --memory 1G: $(cat time.txt); $(wc -l <common.txt) common lines"
cat summary.txt

[[ ${SORT:-1} == 0 ]] && exit 0
/usr/bin/time -f '%e %M' -o sort_a.txt sort -u -S 1G --parallel="$(nproc)" -T "$work" a.txt -o a.sorted
/usr/bin/time -f '%e %M' -o sort_b.txt sort -u -S 1G --parallel="$(nproc)" -T "$work" b.txt -o b.sorted
/usr/bin/time -f '%e %M' -o comm.txt comm -12 a.sorted b.sorted >common.sorted
read -r ta ma <sort_a.txt
read -r tb mb <sort_b.txt
read -r tc mc <comm.txt
echo "sort -u A, sort -u B (-S 1G --parallel=$(nproc)), comm -12: $(echo "$ta + $tb + $tc" | bc) s, peak RSS $(printf '%s\n' "$ma" "$mb" "$mc" | sort -n | tail -1) KB; $(wc -l <common.sorted) common lines"
sort -S 1G --parallel="$(nproc)" -T "$work" common.txt | cmp -s - common.sorted && echo "same answer: yes" || echo "same answer: NO"
