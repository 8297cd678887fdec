#!/usr/bin/env bash
# tests/fuzz/run.sh — runs every fuzz target for SECONDS each, starting from its seed corpus
# (new inputs go to a scratch directory, so the corpus in the tree is only read). Exits 1 when
# a target finds a crash, a leak or undefined behaviour; the input is left in the scratch
# directory and named in the output.
#
#   bash tests/fuzz/run.sh BUILD_DIR [SECONDS]
set -u
build=${1:?usage: run.sh BUILD_DIR [SECONDS]}
seconds=${2:-15}
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-fuzz.XXXXXX") || exit 2
status=0
for name in bkf lines arguments; do
    mkdir -p "$scratch/$name"
    if "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
        -artifact_prefix="$scratch/$name-" "$scratch/$name" "$here/corpus/$name" >"$scratch/$name.log" 2>&1; then
        echo "fuzz_$name: $(grep -o 'Done [0-9]* runs' "$scratch/$name.log" | tail -n 1) in ${seconds} s"
    else
        echo "fuzz_$name: FAILED (log and input: $scratch)"
        tail -n 30 "$scratch/$name.log"
        status=1
    fi
done
[[ $status -ne 0 ]] || rm -rf "$scratch"
exit $status
