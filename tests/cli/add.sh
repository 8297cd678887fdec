#!/usr/bin/env bash
# tests/cli/add.sh — end-to-end test of `bloomkit add`: to bloom, scalable, fuse and cuckoo filters,
# from stdin, with threads, errors.
#
#   bash tests/cli/add.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys_filter
need_others
need_key_halves
need_keys_10k
need_kind_filter fuse

# ---------------------------------------------------------------------------------------------
# add

A=$T/filters/add.bf
run "$B" build -n $N -p 0.01 -o "$A" "$T/keys-a.txt"
run "$B" check --count "$A" "$T/keys-b.txt"
before=$(awk -F '\t' '$1 == "present" { print $2 }' "$OUT")
check_cond "before add: the new lines are mostly absent" "$before of 50000 present" test "${before:-50000}" -le 750
cp "$T/keys-b.txt" "$T/more.txt"
run "$B" add "$A" "$T/more.txt"
check_rc "add FILE more.txt exits 0" 0
check_cond "add prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
run "$B" check "$A" "$T/more.txt"
check_same "after add: every added line is found" "$T/more.txt" "$OUT"
run "$B" check "$A" "$T/keys-a.txt"
check_same "after add: every old line is still found" "$T/keys-a.txt" "$OUT"
check_same "build A + add B = build A+B" "$F" "$A"
run "$B" info --json "$A"
inserted=$(json_value "$OUT" inserted_keys)
check_cond "after add: inserted_keys counts old and new lines" "inserted_keys $inserted" test "${inserted:-0}" -gt 99000

need_extra_lines
run "$B" add "$A" <"$T/extra.txt"
check_rc "add from stdin (no inputs) exits 0" 0
run "$B" check "$A" "$T/extra.txt"
check_same "lines added from stdin are found" "$T/extra.txt" "$OUT"
printf 'extra-3\n' >"$T/extra3.txt"
run "$B" add "$A" - <"$T/extra3.txt"
run "$B" check "$A" "$T/extra3.txt"
check_rc "lines added from stdin ('-') are found" 0

expect_error "add to a missing filter file -> 2" "missing.bf" "$B" add "$T/filters/missing.bf" "$T/more.txt"
check_cond "add to a missing filter creates no file" "file created" test ! -e "$T/filters/missing.bf"
cp "$A" "$T/add-backup.bf"
expect_error "add with a missing input -> 2" "no-such-input.txt" "$B" add "$A" "$T/more.txt" "$T/no-such-input.txt"
check_same "add with a missing input leaves the filter unchanged" "$T/add-backup.bf" "$A"
need_text_file
expect_error "add to a text file -> 2" "not a bloomkit" "$B" add "$T/text.bf" "$T/more.txt"
check_same "add to a text file leaves it unchanged" "$T/lf.txt" "$T/text.bf"
expect_error "add without a filter argument -> 2" "" "$B" add

# ---------------------------------------------------------------------------------------------
# add to a scalable filter (grows) and to a fuse filter (static)

SF=$T/filters/grow.bf
run "$B" build --kind scalable -n 10000 -o "$SF" "$T/keys-10k.txt"
check_rc "build --kind scalable -n 10000 exits 0" 0
run "$B" info --json "$SF"
check_eq "a scalable filter at its capacity has 1 stage" 1 "$(stages_of "$OUT")"
tail -n +10001 "$KEYS" >"$T/keys-rest.txt"
run "$B" add "$SF" "$T/keys-rest.txt"
check_rc "add 90000 lines to a scalable filter sized for 10000 exits 0" 0
check_cond "... without an overfull warning" "stderr: $(err_line)" test ! -s "$ERR"
run "$B" info --json "$SF"
stages=$(stages_of "$OUT")
check_cond "add past its capacity grows the scalable filter (10k+20k+40k+80k: 4 stages)" "$stages stages" test "$stages" -eq 4
run "$B" info "$SF"
check_cond "info shows the 4 stages" "$(head -c 300 "$OUT")" awk '$1 == "stages" && $2 == 4 { ok = 1 } END { exit !ok }' "$OUT"
run "$B" check "$SF" "$KEYS"
check_same "the grown scalable filter finds every line (old and added)" "$KEYS" "$OUT"
run "$B" check --count "$SF" "$OTHERS"
kfp=$(count_of "$OUT" present)
check_cond "the grown scalable filter: false positives <= 1.5% (compound <= p)" "'$kfp' false positives" \
    test "${kfp:-999999}" -le $FP_LIMIT

cp "$T/filters/kind-fuse.bf" "$T/filters/fuse-add.bf"
expect_error "add to a fuse filter -> 2 (static)" "static" "$B" add "$T/filters/fuse-add.bf" "$T/extra.txt"
check_same "add to a fuse filter leaves it unchanged" "$T/filters/kind-fuse.bf" "$T/filters/fuse-add.bf"

# ---------------------------------------------------------------------------------------------
# threads: add -t 1 and -t 2 give the same filter (4 inputs: at least 4 blocks for the workers)

need_key_parts
need_lf_lines
for t in 1 2; do
    run "$B" build -t 1 -n $N -p 0.01 -o "$T/filters/add-threads-$t.bf" "$T/part-0.txt"
    run "$B" add --threads $t "$T/filters/add-threads-$t.bf" "${PARTS[@]:1}"
    check_rc "add --threads $t exits 0" 0
done
check_cond "add -t 1 and -t 2 set the same filter bits (from byte 129)" "payloads differ" \
    cmp -s <(tail -c +129 "$T/filters/add-threads-1.bf") <(tail -c +129 "$T/filters/add-threads-2.bf")
check_same "add -t 1 and -t 2 give the same file (distinct lines)" "$T/filters/add-threads-1.bf" "$T/filters/add-threads-2.bf"
expect_error "add -t abc -> 2" "" "$B" add -t abc "$T/filters/add-threads-1.bf" "$T/lf.txt"

# ---------------------------------------------------------------------------------------------
# the file's owner and mode are kept (as root: a file owned by nobody stays nobody's), both when
# the file is rewritten (a counting filter) and when it is updated in place (a Bloom filter)

if [[ $(id -u) -eq 0 ]] && id nobody >/dev/null 2>&1; then
    need_kind_filter counting
    owner="nobody:$(id -gn nobody)"
    for label in counting bloom; do
        OF=$T/filters/owned-$label.bf
        if [[ $label == counting ]]; then cp "$T/filters/kind-counting.bf" "$OF"; else cp "$F" "$OF"; fi
        chown "$owner" "$OF"
        chmod 0640 "$OF"
        inode=$(stat -c %i "$OF")
        run "$B" add "$OF" "$T/extra.txt"
        check_rc "add_keeps_the_owner ($label): add as root exits 0" 0
        if [[ $label == counting ]]; then
            check_cond "add_keeps_the_owner ($label): the file was replaced (a new inode)" "same inode" \
                test "$(stat -c %i "$OF")" != "$inode"
        fi
        check_eq "add_keeps_the_owner ($label): still $owner, mode 640" "$owner 640" "$(stat -c '%U:%G %a' "$OF")"
        run "$B" check "$OF" "$T/extra.txt"
        check_same "add_keeps_the_owner ($label): the lines were added" "$T/extra.txt" "$OUT"
    done
else
    echo "# skipped: add_keeps_the_owner (needs root and a user nobody)"
fi

# ---------------------------------------------------------------------------------------------
# A copy that a cuckoo filter cannot store is refused, never dropped in silence: a key's two
# buckets hold 8 copies of it, so the 9th add of one key is an error (exit 2) and the file is
# unchanged, and after 8 removes of those 8 copies it is gone as the caller counted.

# How many of 8 runs of `bloomkit SUBCOMMAND FILE -` with the line "dup" as input exit 0.
eight_times() {
    local done=0
    for _ in 1 2 3 4 5 6 7 8; do
        run "$B" "$1" "$2" - <<<dup
        [[ $RC -eq 0 ]] && done=$((done + 1))
    done
    echo "$done"
}

CF=$T/filters/copies.bf
run "$B" build --kind cuckoo -n 1000 -o "$CF" - </dev/null
check_rc "cuckoo_copies: build an empty cuckoo filter" 0
check_eq "cuckoo_copies: 8 adds of one line all succeed" 8 "$(eight_times add "$CF")"
cp "$CF" "$T/copies-8.bf"
expect_error "cuckoo_copies: the 9th add of that line is refused" "cannot store" "$B" add "$CF" - <<<dup
check_same "cuckoo_copies: ... and the file is byte-identical" "$T/copies-8.bf" "$CF"
expect_error "cuckoo_copies: a batch with a 9th copy in it is refused" "was not changed" \
    "$B" add "$CF" - < <(printf 'other\ndup\n')
check_same "cuckoo_copies: ... all of it: its new line is not added either" "$T/copies-8.bf" "$CF"
check_eq "cuckoo_copies: 8 removes of it all succeed" 8 "$(eight_times remove "$CF")"
run "$B" check "$CF" - <<<dup
check_rc "cuckoo_copies: ... and then it is absent (exit 1)" 1

no_temp_files "no temporary files left in the output directory" "$T/filters"
no_temp_files "no temporary files left in the work directory" "$T"

finish
