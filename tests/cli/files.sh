#!/usr/bin/env bash
# tests/cli/files.sh — end-to-end test of the bloomkit command: damaged filter files (missing,
# not a filter, empty, a directory, truncated, trailing bytes, corrupt payload or header).
#
#   bash tests/cli/files.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys_filter
need_empty_input
need_text_file
need_extra_lines

# ---------------------------------------------------------------------------------------------
# damaged filter files

expect_error "check on a missing filter file -> 2" "missing.bf" "$B" check "$T/filters/missing.bf" "$KEYS"
expect_error "info on a missing filter file -> 2" "missing.bf" "$B" info "$T/filters/missing.bf"

expect_error "check on a text file -> 2" "not a bloomkit" "$B" check "$T/text.bf" "$KEYS"
expect_error "info on a text file -> 2" "not a bloomkit" "$B" info "$T/text.bf"
expect_error "check on an empty file -> 2" "" "$B" check "$T/empty.txt" "$KEYS"
expect_error "info on an empty file -> 2" "" "$B" info "$T/empty.txt"
expect_error "check on a directory -> 2" "" "$B" check "$T/filters" "$KEYS"

for size in 4 100 127 128 1000; do
    head -c $size "$F" >"$T/truncated.bf"
    expect_error "check on a filter truncated to $size bytes -> 2" "truncated" "$B" check "$T/truncated.bf" "$KEYS"
    expect_error "info on a filter truncated to $size bytes -> 2" "truncated" "$B" info "$T/truncated.bf"
    expect_error "check --no-verify on a filter truncated to $size bytes -> 2" "truncated" \
        "$B" check --no-verify "$T/truncated.bf" "$KEYS"
done
{ cat "$F"; printf 'x'; } >"$T/trailing.bf"
expect_error "check on a filter with a trailing byte -> 2" "" "$B" check "$T/trailing.bf" "$KEYS"

C=$T/corrupt.bf
cp "$F" "$C"
flip_byte "$C" 1000
check_cond "the corrupt copy differs from the original" "flip_byte did nothing" not_same "$F" "$C"
expect_error "check on a filter with a flipped payload byte -> 2" "checksum" "$B" check "$C" "$KEYS"
run "$B" check --no-verify "$C" "$KEYS"
check_cond "check --no-verify on the corrupt filter runs (exit 0 or 1)" "exit $RC; stderr: $(err_line)" \
    test "$RC" -eq 0 -o "$RC" -eq 1
check_cond "check --no-verify on the corrupt filter prints lines" "no output" test -s "$OUT"
run "$B" info "$C"
check_rc "info (header only) on the corrupt-payload filter exits 0" 0
expect_error "info --verify on the corrupt-payload filter -> 2" "checksum" "$B" info --verify "$C"
expect_error "info --verify --json on the corrupt-payload filter -> 2" "checksum" "$B" info --verify --json "$C"
cp "$C" "$T/corrupt-backup.bf"
expect_error "add to the corrupt-payload filter -> 2" "checksum" "$B" add "$C" "$T/extra.txt"
check_same "add to a corrupt filter leaves it unchanged" "$T/corrupt-backup.bf" "$C"

cp "$F" "$T/corrupt-header.bf"
flip_byte "$T/corrupt-header.bf" 20
expect_error "check on a filter with a flipped header byte -> 2" "header" "$B" check "$T/corrupt-header.bf" "$KEYS"
expect_error "info on a filter with a flipped header byte -> 2" "header" "$B" info "$T/corrupt-header.bf"

no_temp_files "no temporary files left in the output directory" "$T/filters"
no_temp_files "no temporary files left in the work directory" "$T"

finish
