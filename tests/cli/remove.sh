#!/usr/bin/env bash
# tests/cli/remove.sh — end-to-end test of `bloomkit remove`: counting and cuckoo filters;
# errors for the other kinds.
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

    # never-added lines that test absent: nothing to remove, the file stays as it is
    run "$B" check --absent "$RF" "$T/others-5k.txt"
    cp "$OUT" "$T/never-added.txt"
    check_cond "$kind: most never-added lines test absent" "$(lines_of "$T/never-added.txt") of 5000" \
        test "$(lines_of "$T/never-added.txt")" -ge 4800
    cp "$RF" "$T/remove-backup.bf"
    run "$B" remove "$RF" "$T/never-added.txt"
    check_rc "$kind: remove of never-added lines exits 1" 1
    check_in "$kind: ... and says none was removed" "$ERR" "removed 0 lines"
    check_in "remove_refuses_lines_never_added ($kind): counts the refused lines" "$ERR" \
        "refused $(lines_of "$T/never-added.txt") lines"
    check_in "remove_refuses_lines_never_added ($kind): says why refusing protects other keys" "$ERR" "false negatives"
    check_same "$kind: ... and leaves the file byte-identical" "$T/remove-backup.bf" "$RF"

    # a mix: the added lines go, the never-added ones are refused, and the exit status says so
    head -n 100 "$T/kept-after-stdin.txt" >"$T/mix.txt"
    head -n 100 "$T/never-added.txt" >>"$T/mix.txt"
    run "$B" remove "$RF" "$T/mix.txt"
    check_rc "remove_refuses_lines_never_added ($kind): a mix of added and never-added lines exits 1" 1
    check_in "remove_refuses_lines_never_added ($kind): ... removes the added ones" "$ERR" "removed 100 lines"
    check_in "remove_refuses_lines_never_added ($kind): ... refuses the others" "$ERR" "refused 100 lines"
    run "$B" check --count "$RF" "$T/kept-after-stdin.txt"
    check_eq "remove_refuses_lines_never_added ($kind): every other line is still found" \
        $(($(lines_of "$T/kept-after-stdin.txt") - 100)) "$(count_of "$OUT" present)"
    cp "$T/remove-backup.bf" "$RF"
    run "$B" remove "$RF" "$T/empty.txt"
    check_rc "$kind: remove of an empty input exits 1" 1
    check_same "$kind: ... and leaves the file byte-identical" "$T/remove-backup.bf" "$RF"
    expect_error "$kind: remove with a missing input -> 2" "no-such-input.txt" \
        "$B" remove "$RF" "$T/kept.txt" "$T/no-such-input.txt"
    check_same "$kind: remove with a missing input leaves the file unchanged" "$T/remove-backup.bf" "$RF"
done

# remove takes the writer lock (as add does, writers.sh): with the file's lock held (flock(1)),
# remove --no-wait is refused at once and leaves the file as it is; remove waits, says so after
# a second, and removes once the lock is free.
LF=$T/filters/remove-locked.bf
cp "$T/filters/kind-counting.bf" "$LF"
flock "$LF" sleep 2 &
holder=$!
for ((i = 0; i < 100; i++)); do flock -n "$LF" true || break; sleep 0.02; done   # until it holds it
expect_error "remove_takes_the_writer_lock: remove --no-wait while another holds it -> 2" "another bloomkit" \
    "$B" remove --no-wait "$LF" "$T/remove.txt"
check_same "remove_takes_the_writer_lock: ... and leaves the file byte-identical" "$T/filters/kind-counting.bf" "$LF"
run "$B" remove "$LF" "$T/remove.txt"
check_rc "remove_takes_the_writer_lock: remove waits for the holder, then exits 0" 0
check_in "remove_takes_the_writer_lock: ... saying it is waiting" "$ERR" "waiting for another bloomkit"
wait $holder
check_in "remove_takes_the_writer_lock: ... and removes the lines" "$ERR" "removed 5000 lines"

for label in bloom scalable fuse; do
    cp "$T/filters/kind-$label.bf" "$T/filters/remove-$label.bf"
    expect_error "remove from a $label filter -> 2" "cannot remove" "$B" remove "$T/filters/remove-$label.bf" "$T/remove.txt"
    check_same "remove from a $label filter leaves it unchanged" "$T/filters/kind-$label.bf" "$T/filters/remove-$label.bf"
done
expect_error "remove from a missing filter -> 2" "missing.bf" "$B" remove "$T/filters/missing.bf" "$T/remove.txt"
run "$B" remove --help
check_in "remove_help_explains_why_never_added_lines_are_refused" "$OUT" "false negatives"
check_cond "remove from a missing filter creates no file" "file created" test ! -e "$T/filters/missing.bf"
expect_error "remove from a text file -> 2" "not a bloomkit" "$B" remove "$T/text.bf" "$T/remove.txt"
expect_error "remove without a filter argument -> 2" "" "$B" remove

no_temp_files "no temporary files left in the output directory" "$T/filters"
no_temp_files "no temporary files left in the work directory" "$T"

finish
