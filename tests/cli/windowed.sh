#!/usr/bin/env bash
# tests/cli/windowed.sh — end-to-end test of windowed filters through the command: build, add,
# check and info at times --now sets (keys found for the window, gone by W(1 + 1/G)), dedup
# --window across runs of a state file (a line let through again a window after it was last let
# through; a repeat held back does not renew it), and what is refused.
#
#   bash tests/cli/windowed.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

D=$T/windowed
mkdir "$D"
seq -f 'morning-%.0f' 1 2000 >"$D/morning.txt"
seq -f 'noon-%.0f' 1 2000 >"$D/noon.txt"
seq -f 'never-%.0f' 1 20000 >"$D/never.txt"

# found FILTER TIME INPUT: how many lines of INPUT the filter holds at TIME.
found() { "$B" check --now "$2" "$1" "$3" | wc -l; }

# ---------------------------------------------------------------------------------------------
# Keys remembered for the window, forgotten by W(1 + 1/G)

expect_success "build --kind windowed --window 24h at a set time" \
    "$B" build --kind windowed --window 24h -n 8000 -p 0.001 --now 2026-03-01T09:00:00Z -o "$D/seen.bkf" "$D/morning.txt"
expect_success "add at a later time" "$B" add --now 2026-03-01T12:00:00Z "$D/seen.bkf" "$D/noon.txt"
check_eq "every key found a day after it came" 2000 "$(found "$D/seen.bkf" 2026-03-02T09:00:00Z "$D/morning.txt")"
check_eq "the later keys too" 2000 "$(found "$D/seen.bkf" 2026-03-02T12:00:00Z "$D/noon.txt")"
check_cond "the morning's keys gone by 30 hours (W x 1.25)" "found $(found "$D/seen.bkf" 2026-03-02T15:00:00Z "$D/morning.txt")" \
    test "$(found "$D/seen.bkf" 2026-03-02T15:00:00Z "$D/morning.txt")" -le 5
check_eq "Unix seconds name the same time as ISO 8601" \
    "$(found "$D/seen.bkf" 2026-03-02T12:00:00Z "$D/noon.txt")" "$(found "$D/seen.bkf" 1772452800 "$D/noon.txt")"
check_eq "a zone offset is honoured" \
    "$(found "$D/seen.bkf" 2026-03-02T15:00:00Z "$D/morning.txt")" \
    "$(found "$D/seen.bkf" 2026-03-02T16:00:00+01:00 "$D/morning.txt")"
check_cond "false positives within the target" "$(found "$D/seen.bkf" 2026-03-01T13:00:00Z "$D/never.txt")" \
    test "$(found "$D/seen.bkf" 2026-03-01T13:00:00Z "$D/never.txt")" -le 40

run "$B" info --now 2026-03-01T13:00:00Z "$D/seen.bkf"
check_rc "info exits 0" 0
check_in "info: the window and generations" "$OUT" "window 1d, 4 generations of 6h"
check_in "info: each live generation and its age" "$OUT" "2026-03-01T12:00:00Z (1h ago), 2000 keys"
check_in "info: the older one" "$OUT" "2026-03-01T06:00:00Z (7h ago), 2000 keys"
run "$B" info --json --now 2026-03-01T13:00:00Z "$D/seen.bkf"
check_eq "info --json: window_ms" 86400000 "$(json_value "$OUT" window_ms)"
check_eq "info --json: generation_count" 4 "$(json_value "$OUT" generation_count)"
run "$B" plan -n 1M -p 0.01
check_in "plan lists the windowed kind" "$OUT" "windowed"

# A burst into one generation is past its share: the command says so.
run "$B" build --kind windowed --window 1h -n 1000 --now 2026-03-01T09:00:00Z -o "$D/burst.bkf" "$D/morning.txt"
check_in "a burst past a generation's share is warned of" "$ERR" "more than their share"

# ---------------------------------------------------------------------------------------------
# dedup --window

S=$D/state.bkf
printf 'a\nb\na\nc\n' >"$D/run1.txt"
run "$B" dedup --window 1h -n 1000 --state "$S" --now 2026-03-01T10:00:00Z "$D/run1.txt"
printf 'a\nb\nc\n' >"$D/expected1.txt"
check_same "dedup --window: each line once within the window" "$D/expected1.txt" "$OUT"
printf 'a\nd\n' | run "$B" dedup --state "$S" --now 2026-03-01T10:50:00Z
check_eq "50 minutes later: only the new line" d "$(cat "$OUT")"
printf 'a\nb\nd\n' | run "$B" dedup --state "$S" --now 2026-03-01T11:16:00Z
printf 'a\nb\n' >"$D/expected3.txt"
check_same "76 minutes later: a and b come back, d (let through at 10:50) does not" "$D/expected3.txt" "$OUT"
# A line seen every 20 minutes: let through at 10:00, held back until its generation (10:00 to
# 10:15) leaves the window at 11:15, let through at 11:20, held back after. Were a repeat held
# back to renew it, it would never come back.
rm -f "$S"
for minute in 0 20 40 60 80 100 120; do
    printf 'https://example.org/\n' | "$B" dedup --window 1h -n 1000 --state "$S" --now $((1772359200 + minute * 60)) \
        >>"$D/passes.txt" 2>/dev/null
done
check_eq "a repeat held back does not renew its line: let through again after the window" 2 "$(lines_of "$D/passes.txt")"

# ---------------------------------------------------------------------------------------------
# Refusals

expect_error "a window for another kind" "for kind 'windowed' only" \
    "$B" build --kind bloom --window 1h -n 5 -o "$D/x.bkf" "$D/morning.txt"
expect_error "a duration that is none" "--window must be a length of time" \
    "$B" build --kind windowed --window 1x -n 5 -o "$D/x.bkf" "$D/morning.txt"
expect_error "generations out of range" "1 to 64 generations" \
    "$B" build --kind windowed --generations 65 -n 5 -o "$D/x.bkf" "$D/morning.txt"
expect_error "a time that is none" "--now must be Unix seconds" "$B" check --now yesterday "$D/seen.bkf" "$D/noon.txt"
expect_error "a time before 1970" "at or after 1970" "$B" check --now 1969-12-31 "$D/seen.bkf" "$D/noon.txt"
expect_error "February 30th" "--now must be" "$B" check --now 2026-02-30 "$D/seen.bkf" "$D/noon.txt"
expect_error "dedup --window without the lines a window brings" "needs the lines a window brings" \
    "$B" dedup --window 1h "$D/morning.txt"
expect_error "another window for a state made with one" "its window is fixed" \
    "$B" dedup --window 2h --state "$S" "$D/morning.txt"
"$B" dedup -n 100 --state "$D/bloom-state.bkf" "$D/morning.txt" >/dev/null 2>&1
expect_error "a window for a state that does not forget" "does not forget" \
    "$B" dedup --window 1h --state "$D/bloom-state.bkf" "$D/morning.txt"
no_temp_files "no temporary file left behind" "$D"

finish
