#!/usr/bin/env bash
# The exact, bounded-memory jobs against the pipelines that give the same answers, side by side
# in one run (each command once: the baselines take minutes):
#
#   intersect --exact --memory 256M A B  vs  sort -u -S 256M --parallel=2 A, the same for B, comm -12
#   dedup --exact --memory 256M A        vs  awk '!seen[$0]++' A
#   top -k 10 --memory 256M A            vs  sort A | uniq -c | sort -k1,1nr -k2 | head -n 10
#   intersect --exact --key u32 --memory 1G A B  vs  sort -u -S 1G --parallel=2 A, B, comm -12
#   once --key u32 --memory 1G A                 vs  sort -n -S 1G --parallel=2 A | uniq -u
#
# On N URL-like lines per file (default 20M, ~1.4 GB): A with ~20% repeats, B of which about half
# the lines are lines of A; and INTS 32-bit integers per file (default 10 N: 200M, ~2.1 GB), A
# and B drawn alike. Prints Markdown tables: seconds, peak RSS (of the largest process of a
# pipeline; for a pipeline of steps, the sum of their times and the largest of their peaks), the
# ratios (baseline / bloomkit: how many times faster, how many times less memory), and whether
# the answers are the same (bloomkit's intersect and once outputs sorted first: their order is
# their own). The inputs are in the page cache (the tools are compared, not the disk); outputs go
# to files.
#
# The sort pipelines for intersect sort as text (sort -u), not as numbers (sort -n -u), even for
# the integers: comm needs its inputs in the collating order. top's baseline breaks ties as
# bloomkit does (-k1,1nr -k2, LC_ALL=C), so that the answers can be compared; sort -rn alone costs
# about the same.
#
# Needs about 15 GB free in TMPDIR (inputs, outputs, sort's and bloomkit's temporary files) and,
# for awk '!seen[$0]++' on 20M lines, a few GB of memory. Generating the integers with awk takes
# a couple of minutes (A and B are made at once, on two cores).
#
#   bench/exact.sh [BUILD_DIR] [N]        INTS (default 10 N): the integers per file
set -euo pipefail
build=${1:-build/release}
lines=${2:-20000000}
ints=${INTS:-$((lines * 10))}
bloomkit="$(cd "$build" && pwd)/src/cli/bloomkit"
[[ -x $bloomkit ]] || { echo "bench/exact.sh: no $bloomkit (make release first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-exact.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export LC_ALL=C

# Exact in a double on every awk (no srand): a 32-bit LCG for the draws, and for the integers
# hash(k) = k * 2654435761 mod 2^32 (odd: a bijection, so distinct k give distinct integers)
# computed in 16-bit halves.
#
# url(j): a deterministic URL-like line for the number j. A: line i is a repeat of an earlier
# line with probability 0.2, else new; B: the line of a number drawn below N with probability 0.5
# (most of them lines of A), else new.
generate_urls() {  # mode count
    awk -v n="$2" -v mode="$1" '
        function url(j) { return sprintf("https://www.site%05d.example.com/articles/%04x%04x/item-%d.html",
                                         (j * 7919) % 100000, (j * 40503) % 65536, (j * 2039) % 65536, j) }
        function draw() { x = (x * 69069 + 1) % 4294967296; return x / 4294967296 }
        BEGIN { x = (mode == "a") ? 1 : 2
                for (i = 0; i < n; i++) {
                    if (mode == "a") j = (i > 0 && draw() < 0.2) ? int(draw() * i) : i
                    else j = (draw() < 0.5) ? int(draw() * n) : n + i
                    print url(j) } }'
}
# The integers: hash(k) for k drawn as j is above, in canonical decimal.
generate_ints() {  # mode count
    awk -v n="$2" -v mode="$1" '
        function hash(k) { return ((k * 40503) % 65536 * 65536 + k * 31153) % 4294967296 }
        function draw() { x = (x * 69069 + 1) % 4294967296; return x / 4294967296 }
        BEGIN { x = (mode == "a") ? 3 : 4
                for (i = 0; i < n; i++) {
                    if (mode == "a") k = (i > 0 && draw() < 0.2) ? int(draw() * i) : i
                    else k = (draw() < 0.5) ? int(draw() * n) : n + i
                    printf "%.0f\n", hash(k) } }'
}

declare -A seconds rss same
# measure KEY CMD...: the time and peak RSS of one run of CMD (stdout to KEY.out).
measure() {
    local key=$1 elapsed kilobytes
    shift
    /usr/bin/time -f '%e %M' -o time.txt "$@" >"$key.out" 2>/dev/null || true  # intersect exits 1 on nothing
    read -r elapsed kilobytes < <(tail -n 1 time.txt)  # after "Command exited with non-zero status" if any
    seconds[$key]=$elapsed
    rss[$key]=$kilobytes
}
# measure_steps KEY SCRIPT...: each SCRIPT (bash -c) in turn, each measured; KEY gets the sum of
# their times and the largest of their peaks; the last one's stdout is KEY.out.
measure_steps() {
    local key=$1 total=0 peak=0 step=0 script
    shift
    for script in "$@"; do
        step=$((step + 1))
        measure "$key.$step" bash -c "$script"
        total=$(awk -v a="$total" -v b="${seconds[$key.$step]}" 'BEGIN { print a + b }')
        ((${rss[$key.$step]} > peak)) && peak=${rss[$key.$step]}
    done
    mv "$key.$step.out" "$key.out"
    seconds[$key]=$total
    rss[$key]=$peak
}
# verdict KEY EXPECTED ACTUAL: whether the two files are the same, for KEY's row.
verdict() { if cmp -s "$2" "$3"; then same[$1]=yes; else same[$1]="**NO**"; fi; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }
header() {
    echo "### $1"
    echo
    echo "| tool | seconds | peak RSS | faster than the baseline | less memory | same answer |"
    echo "|---|---:|---:|---:|---:|---|"
}
row() {  # tool (a | in it written \|, as a Markdown table's cell needs), key, baseline key
    printf '| %s | %.2f | %d MB | %s | %s | %s |\n' "$1" "${seconds[$2]}" $((${rss[$2]} / 1024)) \
        "$(ratio "${seconds[$3]}" "${seconds[$2]}")" "$(ratio "${rss[$3]}" "${rss[$2]}")" "${same[$2]:-(baseline)}"
}

cpu=$(lscpu | awk -F: '/^Model name/ { sub(/^[ \t]+/, "", $2); print $2; exit }')
echo "CPU: ${cpu:-unknown}, $(nproc) cores; $("$bloomkit" --version 2>&1 | head -n 1)"
echo

# --- URL-like lines ---------------------------------------------------------------------------
generate_urls a "$lines" >a.txt &
generate_urls b "$lines" >b.txt &
wait
sync  # written back first: the first job timed would otherwise share the disk with the inputs' writeback
cat a.txt b.txt >/dev/null
printf '%s URL-like lines per file (A: %s MB, B: %s MB)\n\n' "$lines" $(($(stat -c %s a.txt) / 1000000)) \
    $(($(stat -c %s b.txt) / 1000000))

measure_steps comm \
    "sort -u -S 256M --parallel=2 -T '$work' a.txt >a.sorted" \
    "sort -u -S 256M --parallel=2 -T '$work' b.txt >b.sorted" \
    "comm -12 a.sorted b.sorted"
measure intersect "$bloomkit" intersect --exact --memory 256M --tmpdir "$work" a.txt b.txt
sort -S 256M --parallel=2 -T "$work" intersect.out >intersect.sorted
verdict intersect comm.out intersect.sorted
header "intersect --exact (distinct lines in both; $(wc -l <comm.out) of them)"
row "sort -u A, sort -u B (-S 256M --parallel=2), comm -12" comm comm
row "bloomkit intersect --exact --memory 256M" intersect comm
echo
rm -f a.sorted b.sorted ./*.out intersect.sorted

# shellcheck disable=SC2016  # awk's $0, not the shell's
measure awk awk '!seen[$0]++' a.txt
measure dedup "$bloomkit" dedup --exact --memory 256M --tmpdir "$work" a.txt
verdict dedup awk.out dedup.out
header "dedup --exact (each line once, in input order; $(wc -l <awk.out) distinct)"
row "awk '!seen[\$0]++'" awk awk
row "bloomkit dedup --exact --memory 256M" dedup awk
echo
rm -f ./*.out

measure_steps uniq "sort -S 256M --parallel=2 -T '$work' a.txt | uniq -c | sort -S 256M --parallel=2 -T '$work' -k1,1nr -k2 | head -n 10"
measure top "$bloomkit" top -k 10 --memory 256M --tmpdir "$work" a.txt
verdict top uniq.out top.out
header "top -k 10 (the 10 most frequent lines, counted)"
row 'sort \| uniq -c \| sort -k1,1nr -k2 \| head (-S 256M --parallel=2)' uniq uniq
row "bloomkit top -k 10 --memory 256M" top uniq
echo
rm -f ./*.out a.txt b.txt

# --- 32-bit integers --------------------------------------------------------------------------
generate_ints a "$ints" >a.txt &
generate_ints b "$ints" >b.txt &
wait
sync  # written back first: the first job timed would otherwise share the disk with the inputs' writeback
cat a.txt b.txt >/dev/null
printf '%s 32-bit integers per file (A: %s MB, B: %s MB)\n\n' "$ints" $(($(stat -c %s a.txt) / 1000000)) \
    $(($(stat -c %s b.txt) / 1000000))

measure_steps comm_ints \
    "sort -u -S 1G --parallel=2 -T '$work' a.txt >a.sorted" \
    "sort -u -S 1G --parallel=2 -T '$work' b.txt >b.sorted" \
    "comm -12 a.sorted b.sorted"
measure intersect_ints "$bloomkit" intersect --exact --key u32 --memory 1G --tmpdir "$work" a.txt b.txt
sort -S 1G --parallel=2 -T "$work" intersect_ints.out >intersect_ints.sorted
verdict intersect_ints comm_ints.out intersect_ints.sorted
header "intersect --exact --key u32 ($(wc -l <comm_ints.out) integers in both)"
row "sort -u A, sort -u B (-S 1G --parallel=2), comm -12" comm_ints comm_ints
row "bloomkit intersect --exact --key u32 --memory 1G" intersect_ints comm_ints
echo
rm -f a.sorted b.sorted ./*.out intersect_ints.sorted

measure_steps uniq_u "sort -n -S 1G --parallel=2 -T '$work' a.txt | uniq -u"
measure once "$bloomkit" once --key u32 --memory 1G --tmpdir "$work" a.txt
sort -n -S 1G --parallel=2 -T "$work" once.out >once.sorted
verdict once uniq_u.out once.sorted
header "once --key u32 (the integers seen exactly once; $(wc -l <uniq_u.out) of them)"
row 'sort -n \| uniq -u (-S 1G --parallel=2)' uniq_u uniq_u
row "bloomkit once --key u32 --memory 1G" once uniq_u
echo
