#!/usr/bin/env bash
# The bloomkit command on a big file: build and check over N URL-like lines (default 10M,
# ~700 MB), against the exact alternative `sort -u` and against DCSO bloom (Debian package
# golang-github-dcso-bloom-cli). Prints a Markdown table of input MB/s, best of 3 runs, with
# the file in the page cache (the tools are compared, not the disk).
#
#   bench/cli_throughput.sh [BUILD_DIR] [N]
set -euo pipefail
build=${1:-build/release}
lines=${2:-10000000}
bloomkit="$build/src/cli/bloomkit"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk -v n="$lines" 'BEGIN { srand(1); for (i = 0; i < n; i++)
    printf "https://www.site%05d.example.com/articles/%08x%08x/index.html\n", int(rand() * 100000),
           int(rand() * 4294967296), int(rand() * 4294967296) }' > "$work/urls.txt"
bytes=$(stat -c %s "$work/urls.txt")
cat "$work/urls.txt" > /dev/null

# best_of COMMAND...: the fastest of three runs, in seconds.
best_of() {
    local best="" start end elapsed
    for _ in 1 2 3; do
        start=$(date +%s.%N)
        "$@" > /dev/null
        end=$(date +%s.%N)
        elapsed=$(echo "$end - $start" | bc -l)
        if [[ -z "$best" ]] || (( $(echo "$elapsed < $best" | bc -l) )); then best=$elapsed; fi
    done
    echo "$best"
}

dcso_build() { rm -f "$work/d.bloom"; bloom create -n "$lines" -p 0.01 "$work/d.bloom" && bloom insert "$work/d.bloom" < "$work/urls.txt"; }
dcso_check() { bloom check "$work/d.bloom" < "$work/urls.txt"; }
check_rc() { "$bloomkit" check --count "$work/b.bkf" "$work/urls.txt" || [[ $? -eq 1 ]]; }

declare -A seconds
seconds[build1]=$(best_of "$bloomkit" build -n "$lines" -p 0.01 -t 1 -o "$work/b.bkf" "$work/urls.txt")
seconds[buildN]=$(best_of "$bloomkit" build -n "$lines" -p 0.01 -t 0 -o "$work/b.bkf" "$work/urls.txt")
seconds[check]=$(best_of check_rc)
have_dcso=0
if command -v bloom > /dev/null; then
    have_dcso=1
    seconds[dcso_build]=$(best_of dcso_build)
    seconds[dcso_check]=$(best_of dcso_check)
fi
seconds[sort]=$(best_of sort -u -o "$work/sorted.txt" "$work/urls.txt")

row() {  # tool, operation, key
    local s=${seconds[$3]} mbs ratio="–"
    mbs=$(echo "$bytes / $s / 1000000" | bc -l)
    if (( have_dcso )); then
        local base=${seconds[dcso_build]}
        [[ "$2" == check* ]] && base=${seconds[dcso_check]}
        ratio=$(printf '%.1fx' "$(echo "$base / $s" | bc -l)")
    fi
    printf '| %s | %s | %.2f | %.0f | %s |\n' "$1" "$2" "$s" "$mbs" "$ratio"
}

printf '%s lines, %.0f MB of URL-like keys, FPR 1%%; %s cores; best of 3 runs, file in the page cache\n\n' \
    "$lines" "$(echo "$bytes / 1000000" | bc -l)" "$(nproc)"
echo "| tool | operation | seconds | input MB/s | vs DCSO bloom |"
echo "|---|---|---:|---:|---:|"
row "bloomkit" "build, 1 thread" build1
row "bloomkit" "build, all cores (-t 0)" buildN
row "bloomkit" "check --count" check
if (( have_dcso )); then
    row "DCSO bloom 0.2.4" "create + insert" dcso_build
    row "DCSO bloom 0.2.4" "check" dcso_check
fi
row "sort -u (exact)" "de-duplicate" sort
