#!/usr/bin/env bash
# tests/cli/memory.sh — the memory bound the README states for the exact jobs: peak RSS at most
# --memory + 24 MiB per thread, whatever the lines (long distinct lines, and short numbers, whose
# per-line cost in the reader is the larger). Measured with /usr/bin/time; not under a sanitizer,
# whose shadow memory inflates RSS (BLOOMKIT_SANITIZED): make test runs it in its unsanitized Clang
# build. A test of its own so that that build runs it without the rest of the command's tests.
source "$(dirname "$0")/lib.sh" "$@"

X=$T/memory
SP=$T/spill
mkdir "$X" "$SP"

# Peak RSS: at most --memory + 24 MiB per thread (the binary, its libraries, the reader's blocks in
# flight: the overhead the README states), for 20 MB of distinct lines (2.5x --memory 8M) and 20 MB of numbers, with one
# thread and with two. Not under a sanitizer (BLOOMKIT_SANITIZED).

if [[ -n ${BLOOMKIT_SANITIZED:-} ]]; then
    echo "ok - peak RSS: skipped (BLOOMKIT_SANITIZED: a sanitizer inflates RSS)"
elif [[ ! -x /usr/bin/time ]]; then
    echo "ok - peak RSS: skipped (no /usr/bin/time)"
else
    BIG=$X/distinct-40M.txt
    gen_distinct 340000 >"$BIG"      # ~20 MB, every line distinct: dedup prints the input back
    for threads in 1 2; do
        limit=$(((8 + 24 * threads) * 1024))  # KiB
        run /usr/bin/time -f %M -o "$X/rss.txt" "$B" dedup --exact --memory 8M -t $threads --tmpdir "$SP" "$BIG"
        check_rc "peak RSS: dedup --exact --memory 8M -t $threads of 20 MB of distinct lines prints them all: exit 0" 0
        check_same "peak RSS: dedup --exact --memory 8M -t $threads of 20 MB of distinct lines prints them all" "$BIG" "$OUT"
        rss=$(tail -n 1 "$X/rss.txt")
        check_cond "peak RSS: dedup --exact --memory 8M -t $threads stays under 8 MiB + $threads x 24 MiB ($limit KiB)" \
            "peak RSS ${rss} KiB" test "${rss:-999999999}" -le $limit
    done
    # Short lines cost the reader more per byte (a view, a digest and a key per line): numbers,
    # 8 bytes a line, as --key u64 reads them, within the same bound.
    seq 10000000 12500000 >"$BIG"  # ~20 MB
    for threads in 1 2; do
        limit=$(((8 + 24 * threads) * 1024))  # KiB
        run /usr/bin/time -f %M -o "$X/rss.txt" "$B" dedup --exact --key u64 --memory 8M -t $threads --tmpdir "$SP" "$BIG"
        check_rc "peak RSS: dedup --exact --key u64 --memory 8M -t $threads of 2.5M numbers prints them all: exit 0" 0
        check_same "peak RSS: dedup --exact --key u64 --memory 8M -t $threads of 2.5M numbers prints them all" "$BIG" "$OUT"
        rss=$(tail -n 1 "$X/rss.txt")
        check_cond "peak RSS: dedup --exact --key u64 --memory 8M -t $threads stays under 8 MiB + $threads x 24 MiB ($limit KiB)" \
            "peak RSS ${rss} KiB" test "${rss:-999999999}" -le $limit
    done
    rm -f "$BIG"
fi

finish
