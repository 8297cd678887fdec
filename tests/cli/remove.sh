#!/usr/bin/env bash
# tests/cli/remove.sh — end-to-end test of `bloomkit remove`: counting and cuckoo filters, all or
# nothing (a line never added removes nothing; --partial removes the others); errors for the other
# kinds.
#
#   bash tests/cli/remove.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys
need_others
need_kind_filter counting cuckoo bloom scalable fuse
need_empty_input
need_text_file

# ---------------------------------------------------------------------------------------------
# remove (counting and cuckoo filters)

head -n 5000 "$KEYS" >"$T/remove.txt"
tail -n +5001 "$KEYS" >"$T/kept.txt"
sed -n '5001,5500p' "$KEYS" >"$T/remove-stdin.txt"
sed -n '5501,6000p' "$KEYS" >"$T/remove-dash.txt"
tail -n +6001 "$KEYS" >"$T/kept-after-stdin.txt"
head -n 5000 "$OTHERS" >"$T/others-5k.txt"
for kind in counting cuckoo; do
    RF=$T/filters/remove-$kind.bf
    cp "$T/filters/kind-$kind.bf" "$RF"
    run "$B" remove "$RF" "$T/remove.txt"
    check_rc "remove 5000 added lines from a $kind filter exits 0" 0
    check_cond "remove prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
    check_in "remove reports what it removed" "$ERR" "removed 5000 lines"
    check_cond "remove rewrote the $kind filter" "file unchanged" not_same "$T/filters/kind-$kind.bf" "$RF"
    run "$B" check --count "$RF" "$T/remove.txt"
    gone=$(count_of "$OUT" present)
    check_cond "$kind: removed lines are absent (<= 100 of 5000 still test present)" "'$gone' present" \
        test "${gone:-999999}" -le 100
    run "$B" check "$RF" "$T/kept.txt"
    check_same "$kind: every line not removed is still found" "$T/kept.txt" "$OUT"
    run "$B" info --json "$RF"
    check_eq "$kind: inserted_keys after removing 5000 of 100000" 95000 "$(json_value "$OUT" inserted_keys)"
    run "$B" info --verify "$RF"
    check_rc "$kind: the rewritten file verifies" 0

    run "$B" remove "$RF" <"$T/remove-stdin.txt"
    check_rc "$kind: remove from stdin (no inputs) exits 0" 0
    check_in "$kind: ... and reports 500 lines removed" "$ERR" "removed 500 lines"
    run "$B" remove "$RF" - <"$T/remove-dash.txt"
    check_rc "$kind: remove from stdin ('-') exits 0" 0
    cat "$T/remove-stdin.txt" "$T/remove-dash.txt" >"$T/removed-stdin.txt"
    run "$B" check --count "$RF" "$T/removed-stdin.txt"
    gone=$(count_of "$OUT" present)
    check_cond "$kind: lines removed from stdin are absent (<= 40 of 1000 present)" "'$gone' present" \
        test "${gone:-999999}" -le 40
    run "$B" check "$RF" "$T/kept-after-stdin.txt"
    check_same "$kind: every line not removed is still found" "$T/kept-after-stdin.txt" "$OUT"

    # remove_is_all_or_nothing: lines never added (those that test absent: certainly never added)
    # are evidence that the input is not what was added, so nothing is removed: the file stays
    # byte-identical, the first refused lines are named (line N of 'FILE'), and remove exits 1.
    run "$B" check --absent "$RF" "$T/others-5k.txt"
    cp "$OUT" "$T/never-added.txt"
    refused=$(lines_of "$T/never-added.txt")
    check_cond "$kind: most never-added lines test absent" "$refused of 5000" test "$refused" -ge 4800
    cp "$RF" "$T/remove-backup.bf"
    run "$B" remove "$RF" "$T/never-added.txt"
    check_rc "remove_refuses_lines_never_added ($kind): remove of never-added lines exits 1" 1
    check_in "remove_refuses_lines_never_added ($kind): counts the refused lines" "$ERR" \
        "$refused lines are certainly not in the filter"
    check_in "remove_refuses_lines_never_added ($kind): names the first, with its input" "$ERR" \
        "line 1 of '$T/never-added.txt': '$(head -n 1 "$T/never-added.txt")'"
    check_in "remove_refuses_lines_never_added ($kind): says nothing was removed" "$ERR" "nothing was removed from '$RF'"
    check_in "remove_refuses_lines_never_added ($kind): says why refusing protects other keys" "$ERR" "false negatives"
    check_cond "remove_refuses_lines_never_added ($kind): prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
    check_same "remove_refuses_lines_never_added ($kind): leaves the file byte-identical" "$T/remove-backup.bf" "$RF"

    # a mix: 100 added lines, then 100 never added (lines 101..200): nothing is removed either
    head -n 100 "$T/kept-after-stdin.txt" >"$T/mix.txt"
    head -n 100 "$T/never-added.txt" >>"$T/mix.txt"
    run "$B" remove "$RF" "$T/mix.txt"
    check_rc "remove_is_all_or_nothing ($kind): added lines, then never-added ones: exit 1" 1
    check_in "remove_is_all_or_nothing ($kind): ... names the first refused line" "$ERR" "line 101 of '$T/mix.txt'"
    check_in "remove_is_all_or_nothing ($kind): ... counts the refused lines" "$ERR" "100 lines are certainly not in the filter"
    check_same "remove_is_all_or_nothing ($kind): ... removes nothing (the file byte-identical)" "$T/remove-backup.bf" "$RF"
    run "$B" check --count "$RF" "$T/kept-after-stdin.txt"
    check_eq "remove_is_all_or_nothing ($kind): ... every line is still found, the added ones of the mix too" \
        "$(lines_of "$T/kept-after-stdin.txt")" "$(count_of "$OUT" present)"
    # never-added lines first: the same, wherever the refused lines are
    { head -n 3 "$T/never-added.txt"; head -n 100 "$T/kept-after-stdin.txt"; } >"$T/mix-first.txt"
    run "$B" remove "$RF" "$T/mix-first.txt"
    check_rc "remove_is_all_or_nothing ($kind): never-added lines, then added ones: exit 1" 1
    check_in "remove_is_all_or_nothing ($kind): ... names them" "$ERR" "line 3 of '$T/mix-first.txt'"
    check_same "remove_is_all_or_nothing ($kind): ... removes nothing" "$T/remove-backup.bf" "$RF"
    # from stdin, the lines are named in it
    run "$B" remove "$RF" - <"$T/mix.txt"
    check_rc "remove_is_all_or_nothing ($kind): from stdin: exit 1" 1
    check_in "remove_is_all_or_nothing ($kind): from stdin: names line 101" "$ERR" "line 101 of"
    check_same "remove_is_all_or_nothing ($kind): from stdin: removes nothing" "$T/remove-backup.bf" "$RF"

    # --partial: the added lines go, the never-added ones are refused, and the exit status says so
    run "$B" remove --partial "$RF" "$T/mix.txt"
    check_rc "remove_partial_removes_the_others ($kind): exit 1 (some lines refused)" 1
    check_in "remove_partial_removes_the_others ($kind): says it removed the 100 others" "$ERR" "removed the 100 other lines"
    check_in "remove_partial_removes_the_others ($kind): counts the refused lines" "$ERR" "100 lines are certainly not in the filter"
    check_in "remove_partial_removes_the_others ($kind): names the first refused line" "$ERR" "line 101 of '$T/mix.txt'"
    check_cond "remove_partial_removes_the_others ($kind): the file changed" "byte-identical" not_same "$T/remove-backup.bf" "$RF"
    run "$B" check --count "$RF" <(tail -n +101 "$T/kept-after-stdin.txt")
    check_eq "remove_partial_removes_the_others ($kind): every line not removed is still found" \
        $(($(lines_of "$T/kept-after-stdin.txt") - 100)) "$(count_of "$OUT" present)"
    run "$B" check --count "$RF" <(head -n 100 "$T/kept-after-stdin.txt")
    gone=$(count_of "$OUT" present)
    check_cond "remove_partial_removes_the_others ($kind): the 100 removed lines are absent (<= 10 test present)" \
        "'$gone' present" test "${gone:-999}" -le 10
    run "$B" info --verify "$RF"
    check_rc "remove_partial_removes_the_others ($kind): the file verifies" 0
    cp "$T/remove-backup.bf" "$RF"
    run "$B" remove "$RF" "$T/empty.txt"
    check_rc "$kind: remove of an empty input exits 1" 1
    check_same "$kind: ... and leaves the file byte-identical" "$T/remove-backup.bf" "$RF"
    expect_error "$kind: remove with a missing input -> 2" "no-such-input.txt" \
        "$B" remove "$RF" "$T/kept.txt" "$T/no-such-input.txt"
    check_same "$kind: remove with a missing input leaves the file unchanged" "$T/remove-backup.bf" "$RF"
done

# remove_never_added_lines_removes_nothing (the issue's scenario): a filter of 50,000 keys, and
# 50,000 lines never added given to remove: nothing is removed, and every key is still found
# (removing the ~1% of them that test present by chance would have taken away part of others).
need_key_halves
head -n 50000 "$OTHERS" >"$T/others-50k.txt"
for kind in counting cuckoo; do
    SF=$T/filters/scenario-$kind.bf
    run "$B" build --kind $kind -n 50000 -p 0.01 -o "$SF" "$T/keys-a.txt"
    cp "$SF" "$T/scenario-backup.bf"
    run "$B" remove "$SF" "$T/others-50k.txt"
    check_rc "remove_never_added_lines_removes_nothing ($kind): exit 1" 1
    check_in "remove_never_added_lines_removes_nothing ($kind): says nothing was removed" "$ERR" "nothing was removed"
    check_same "remove_never_added_lines_removes_nothing ($kind): the file byte-identical" "$T/scenario-backup.bf" "$SF"
    run "$B" check --count "$SF" "$T/keys-a.txt"
    check_eq "remove_never_added_lines_removes_nothing ($kind): all 50000 keys still found" 50000 "$(count_of "$OUT" present)"
done

# remove takes the writer lock (as add does, writers.sh): with the file's lock held (flock(1),
# lib.sh's hold_lock), remove --no-wait is refused at once and leaves the file as it is; remove
# waits, says so after a second, and removes once the lock is free (released once it said so).
LF=$T/filters/remove-locked.bf
cp "$T/filters/kind-counting.bf" "$LF"
hold_lock "$LF" || fail "remove_takes_the_writer_lock: the lock taken by flock(1)" "not held after $WAIT_SECONDS s"
expect_error "remove_takes_the_writer_lock: remove --no-wait while another holds it -> 2" "another bloomkit" \
    "$B" remove --no-wait "$LF" "$T/remove.txt"
check_same "remove_takes_the_writer_lock: ... and leaves the file byte-identical" "$T/filters/kind-counting.bf" "$LF"
run_past_lock "$B" remove "$LF" "$T/remove.txt"
check_rc "remove_takes_the_writer_lock: remove waits for the holder, then exits 0" 0
check_in "remove_takes_the_writer_lock: ... saying it is waiting" "$ERR" "waiting for another bloomkit"
check_in "remove_takes_the_writer_lock: ... and removes the lines" "$ERR" "removed 5000 lines"

for label in bloom scalable fuse; do
    cp "$T/filters/kind-$label.bf" "$T/filters/remove-$label.bf"
    expect_error "remove from a $label filter -> 2" "cannot remove" "$B" remove "$T/filters/remove-$label.bf" "$T/remove.txt"
    check_same "remove from a $label filter leaves it unchanged" "$T/filters/kind-$label.bf" "$T/filters/remove-$label.bf"
done
expect_error "remove from a missing filter -> 2" "missing.bf" "$B" remove "$T/filters/missing.bf" "$T/remove.txt"
run "$B" remove --help
check_in "remove_help_explains_why_never_added_lines_are_refused" "$OUT" "false negatives"
check_in "remove_help_names_partial" "$OUT" "--partial"
check_cond "remove from a missing filter creates no file" "file created" test ! -e "$T/filters/missing.bf"
expect_error "remove from a text file -> 2" "not a bloomkit" "$B" remove "$T/text.bf" "$T/remove.txt"
expect_error "remove without a filter argument -> 2" "" "$B" remove

no_temp_files "no temporary files left in the output directory" "$T/filters"
no_temp_files "no temporary files left in the work directory" "$T"

finish
