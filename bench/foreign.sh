#!/usr/bin/env bash
# Checking keys against the filters of other programs, side by side in one run: a Guava filter
# (bloomkit's guava layout, bit for bit Java's) and a DCSO filter against bloomkit's own block
# filter, each checked by bloomkit, and by the programs themselves — Java's Guava (through
# tests/io/guava/GuavaTool.java, mightContain per line) and DCSO's `bloom check`. What
# converting a Guava or DCSO filter to a native one buys, and what bloomkit's reading of those
# files costs against their own tools.
#
# N URL-like keys (default 10M) in the filters at 1%, then N other lines checked (`--count`, so
# output costs nothing); seconds are the best of 3 for bloomkit, one run for Java and bloom.
# Prints a Markdown table: seconds, lines/s, ratio to the block filter.
#
#   bench/foreign.sh [BUILD_DIR] [N]
set -euo pipefail
build=${1:-build/release}
lines=${2:-10000000}
bloomkit="$(cd "$build" && pwd)/src/cli/bloomkit"
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-foreign.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export LC_ALL=C

urls() {  # first count
    awk -v first="$1" -v n="$2" 'BEGIN { for (j = first; j < first + n; j++)
        printf "https://www.site%05d.example.com/articles/%04x/item-%d.html\n", (j * 7919) % 100000, (j * 40503) % 65536, j }'
}
urls 0 "$lines" >keys.txt
urls "$lines" "$lines" >probes.txt
cat keys.txt probes.txt >/dev/null

seconds() {  # command...: wall seconds of one run (stdin as given)
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}
best_of_3() {
    local best="" t
    for _ in 1 2 3; do
        t=$(seconds "$@")
        best=$(awk -v a="$t" -v b="${best:-$t}" 'BEGIN { print (a < b ? a : b) }')
    done
    echo "$best"
}

"$bloomkit" build -n "$lines" -p 0.01 -o block.bkf keys.txt
"$bloomkit" build --format guava -n "$lines" -p 0.01 -o users.guava keys.txt
"$bloomkit" build --format dcso -n "$lines" -p 0.01 -o iocs.bloom keys.txt

rows=()
block=$(best_of_3 "$bloomkit" check --count block.bkf probes.txt)
rows+=("bloomkit check, block filter (bkf)|$block")
rows+=("bloomkit check, Guava filter (stream)|$(best_of_3 "$bloomkit" check --count users.guava probes.txt)")
rows+=("bloomkit check, DCSO filter (file)|$(best_of_3 "$bloomkit" check --count iocs.bloom probes.txt)")
if command -v bloom >/dev/null; then
    rows+=("DCSO's bloom check|$(seconds bloom check iocs.bloom <probes.txt)")
fi
if command -v javac >/dev/null && [[ -r /usr/share/java/guava.jar ]]; then
    mkdir java
    javac -cp /usr/share/java/guava.jar -d java "$here/tests/io/guava/GuavaTool.java" 2>/dev/null
    rows+=("Java's Guava mightContain (GuavaTool check)|$(seconds java -cp /usr/share/java/guava.jar:java GuavaTool check users.guava utf8 <probes.txt)")
fi

echo "#### Checking $lines absent URL-like lines against filters of $lines keys at 1% ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
echo
echo "| checker | seconds | lines/s | vs the block filter |"
echo "|---|---:|---:|---:|"
for row in "${rows[@]}"; do
    name=${row%%|*} t=${row##*|}
    awk -v name="$name" -v t="$t" -v n="$lines" -v base="$block" \
        'BEGIN { printf "| %s | %.2f | %.1fM | %.2fx |\n", name, t, n / t / 1e6, t / base }'
done
