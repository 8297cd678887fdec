#!/usr/bin/env bash
# tests/cli/key_format.sh — a filter file records what its keys are (text, u64 or i64: format
# version 3), and every command that reads lines into it uses that record: check, add, remove and
# dedup --state read the lines as the filter's keys without --key, refuse a --key that
# contradicts the record (text against integers; u64 and i64 name the same keys), and info shows
# it. Files of format version 2 record nothing: read as text unless --key says otherwise, with a
# warning from check when the lines look like numbers.
#
#   bash tests/cli/key_format.sh /path/to/bloomkit
#
# The version-2 files are made from version-3 ones by forging their header (lib.sh's
# forge_header); without python3 and libxxhash those tests are skipped.
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

K=$T/k
mkdir "$K"
seq 1 1000 >"$K/numbers.txt"
seq 1001 1100 >"$K/more-numbers.txt"
need_lf_lines

# ---------------------------------------------------------------------------------------------
# The README's recipe: numbers built with --key u64 are checked without it

run bash -c "seq 1 1000 | '$B' build --key u64 -o '$K/ids.bkf' && seq 1 10 | '$B' check '$K/ids.bkf'"
check_rc "key_format_is_recorded: seq 1 1000 | build --key u64; seq 1 10 | check: exit 0" 0
check_same "key_format_is_recorded: ... check prints 1..10" <(seq 1 10) "$OUT"
check_cond "key_format_is_recorded: ... with no warning" "stderr: $(err_line)" test ! -s "$ERR"

# ---------------------------------------------------------------------------------------------
# info shows the record

run "$B" info "$K/ids.bkf"
check_cond "info_shows_the_key_format: a 'keys are' line saying u64" "$(grep 'keys are' "$OUT")" \
    grep -Eq '^keys are +u64' "$OUT"
run "$B" info --json "$K/ids.bkf"
check_eq "info_shows_the_key_format: --json key_format u64" u64 "$(json_value "$OUT" key_format)"
check_eq "info_shows_the_key_format: --json format_version 3" 3 "$(json_value "$OUT" format_version)"
run "$B" build -n 100 -o "$K/text.bkf" "$T/lf.txt"
run "$B" info "$K/text.bkf"
check_cond "info_shows_the_key_format: a text filter says text" "$(grep 'keys are' "$OUT")" grep -Eq '^keys are +text' "$OUT"
run "$B" info --json "$K/text.bkf"
check_eq "info_shows_the_key_format: --json key_format text" text "$(json_value "$OUT" key_format)"
printf -- '-1\n-5\n7\n' >"$K/signed.txt"
run "$B" build --key i64 -n 100 -o "$K/signed.bkf" "$K/signed.txt"
run "$B" info --json "$K/signed.bkf"
check_eq "info_shows_the_key_format: --json key_format i64" i64 "$(json_value "$OUT" key_format)"
for kind in counting cuckoo scalable fuse; do
    run "$B" build --kind $kind --key u64 -o "$K/$kind.bkf" "$K/numbers.txt"
    run "$B" info --json "$K/$kind.bkf"
    check_eq "key_format_is_recorded ($kind): --json key_format u64" u64 "$(json_value "$OUT" key_format)"
    run "$B" check --count "$K/$kind.bkf" "$K/numbers.txt"
    check_eq "key_format_is_recorded ($kind): check without --key finds every number" 1000 "$(count_of "$OUT" present)"
done

# ---------------------------------------------------------------------------------------------
# Without --key, every command reads lines as the filter's keys

run "$B" check "$K/text.bkf" "$K/numbers.txt"
check_cond "key_format_is_recorded (text): numbers checked against a text filter: no warning (it says what it holds)" \
    "stderr: $(err_line)" test ! -s "$ERR"
run "$B" check "$K/ids.bkf" <(echo 0010)
check_rc "key_format_is_used_by_check: '0010' is the number 10 (found)" 0
expect_error "key_format_is_used_by_check: a line that is not a number is refused, naming it" "line 2" \
    "$B" check "$K/ids.bkf" <(printf '5\nfive\n')

cp "$K/ids.bkf" "$K/ids-add.bkf"
run "$B" add "$K/ids-add.bkf" "$K/more-numbers.txt"
check_rc "key_format_is_used_by_add: add without --key exits 0" 0
run "$B" check --count --key u64 "$K/ids-add.bkf" "$K/more-numbers.txt"
check_eq "key_format_is_used_by_add: the lines went in as numbers (check --key u64 finds them)" 100 "$(count_of "$OUT" present)"
run "$B" info --json "$K/ids-add.bkf"
check_eq "key_format_is_used_by_add: the record is kept" u64 "$(json_value "$OUT" key_format)"
cp "$K/ids-add.bkf" "$K/ids-add-before.bkf"
expect_error "key_format_is_used_by_add: a line that is not a number is refused" "not a u64 number" \
    "$B" add "$K/ids-add.bkf" <(printf '2000\nabc\n')
check_same "key_format_is_used_by_add: ... and the file is unchanged" "$K/ids-add-before.bkf" "$K/ids-add.bkf"

run "$B" dedup --state "$K/ids-add.bkf" <(printf '5\n0005\n2000\n2000\n')
check_rc "key_format_is_used_by_dedup_state: exit 0" 0
check_eq "key_format_is_used_by_dedup_state: 5 and 0005 are in the state already, 2000 is new (once)" 2000 "$(<"$OUT")"

cp "$K/counting.bkf" "$K/counting-remove.bkf"
run "$B" remove "$K/counting-remove.bkf" <(printf '0001\n0002\n')
check_rc "key_format_is_used_by_remove: '0001' and '0002' are the numbers 1 and 2 (removed, exit 0)" 0
check_in "key_format_is_used_by_remove: ... removed 2 lines" "$ERR" "removed 2 lines"

run "$B" check --count --key i64 "$K/ids.bkf" "$K/numbers.txt"
check_eq "u64_and_i64_are_the_same_keys: check --key i64 on a u64 filter finds every number" 1000 "$(count_of "$OUT" present)"
cp "$K/ids.bkf" "$K/ids-i64.bkf"
run "$B" add --key i64 "$K/ids-i64.bkf" <(echo 7)
check_rc "u64_and_i64_are_the_same_keys: add --key i64 to a u64 filter exits 0" 0
run "$B" check "$K/ids-i64.bkf" <(echo 7)
check_rc "u64_and_i64_are_the_same_keys: 7 added as i64 is 7 as u64" 0
# The filter's range decides, not --key's: -5 is no u64 key, and is never taken as 2^64 - 5.
cp "$K/ids-i64.bkf" "$K/ids-i64-before.bkf"
expect_error "out_of_range_key_is_refused (add --key i64 -5 to a u64 filter)" "is not a u64 number: '-5'" \
    "$B" add --key i64 "$K/ids-i64.bkf" <(echo -5)
check_same "out_of_range_key_is_refused (add): the file is byte-identical" "$K/ids-i64-before.bkf" "$K/ids-i64.bkf"
run "$B" check "$K/ids-i64.bkf" <(echo 18446744073709551611)
check_rc "out_of_range_key_is_refused: 2^64 - 5 is not in the filter" 1
expect_error "out_of_range_key_is_refused (check -1 on u64)" "is not a u64 number: '-1'" \
    "$B" check "$K/ids.bkf" <(echo -1)
expect_error "out_of_range_key_is_refused (check 2^63 on i64)" "is not an i64 number: '9223372036854775808'" \
    "$B" check "$K/signed.bkf" <(echo 9223372036854775808)
printf '1\n4294967295\n' > "$K/u32.txt"
run "$B" build --key u32 -n 10 -o "$K/u32.bkf" "$K/u32.txt"
expect_error "out_of_range_key_is_refused (add 2^32 + 5 to u32)" "is not a u32 number: '4294967301'" \
    "$B" add "$K/u32.bkf" <(echo 4294967301)
expect_error "out_of_range_key_is_refused (add -3 to u32)" "is not a u32 number: '-3'" \
    "$B" add --key i64 "$K/u32.bkf" <(echo -3)
run "$B" check "$K/signed.bkf" "$K/signed.txt"
check_same "key_format_is_recorded (i64): check without --key reads negative numbers" "$K/signed.txt" "$OUT"

# ---------------------------------------------------------------------------------------------
# A --key that contradicts the record is refused: exit 2, naming the file and its keys; nothing
# written, nothing printed

expect_error "contradicting_key_is_refused (check --key text on u64)" "'$K/ids.bkf', whose keys are integers (--key u64)" \
    "$B" check --key text "$K/ids.bkf" "$K/numbers.txt"
expect_error "contradicting_key_is_refused (check --key u64 on text)" "'$K/text.bkf', whose keys are text" \
    "$B" check --key u64 "$K/text.bkf" "$K/numbers.txt"
expect_error "contradicting_key_is_refused (check --key i64 on text)" "whose keys are text" \
    "$B" check --key i64 "$K/text.bkf" "$K/numbers.txt"
cp "$K/ids.bkf" "$K/ids-before.bkf"
expect_error "contradicting_key_is_refused (add --key text on u64)" "whose keys are integers" \
    "$B" add --key text "$K/ids.bkf" "$K/more-numbers.txt"
check_in "contradicting_key_is_refused (add): says the file was not changed" "$ERR" "was not changed"
check_same "contradicting_key_is_refused (add): the file is byte-identical" "$K/ids-before.bkf" "$K/ids.bkf"
cp "$K/text.bkf" "$K/text-before.bkf"
expect_error "contradicting_key_is_refused (add --key u64 on text)" "whose keys are text" \
    "$B" add --key u64 "$K/text.bkf" "$K/more-numbers.txt"
check_same "contradicting_key_is_refused (add --key u64 on text): the file is byte-identical" "$K/text-before.bkf" "$K/text.bkf"
cp "$K/counting.bkf" "$K/counting-before.bkf"
expect_error "contradicting_key_is_refused (remove --key text on u64)" "'$K/counting.bkf', whose keys are integers" \
    "$B" remove --key text "$K/counting.bkf" "$K/numbers.txt"
check_same "contradicting_key_is_refused (remove): the file is byte-identical" "$K/counting-before.bkf" "$K/counting.bkf"
expect_error "contradicting_key_is_refused (dedup --key text --state on u64)" "'$K/ids.bkf', whose keys are integers" \
    "$B" dedup --key text --state "$K/ids.bkf" "$K/more-numbers.txt"
check_same "contradicting_key_is_refused (dedup --state): the state is byte-identical" "$K/ids-before.bkf" "$K/ids.bkf"
expect_error "contradicting_key_is_refused (dedup --key u64 --state on text)" "whose keys are text" \
    "$B" dedup --key u64 --state "$K/text.bkf" "$K/more-numbers.txt"
check_same "contradicting_key_is_refused (dedup --state on text): the state is byte-identical" "$K/text-before.bkf" "$K/text.bkf"
expect_error "contradicting_key_is_refused (check --key text on an i64 filter)" "integers (--key i64)" \
    "$B" check --key text "$K/signed.bkf" "$K/signed.txt"

# ---------------------------------------------------------------------------------------------
# A Guava stream cannot record its keys: numbers built into one with --key are read back with the
# same --key (through the funnel build chose for them, Funnels.longFunnel()) or with --funnel long,
# and never read as text without a word: a --funnel long reader is told nothing false, and a reader
# who says neither is warned that the lines look like numbers.

for key in u64 i64 u32; do
    G=$K/ids-$key.guava
    run "$B" build --format guava --key $key -n 1000 -p 0.01 -o "$G" "$K/numbers.txt"
    check_rc "guava_keys_read_back ($key): build --format guava --key $key" 0
    run "$B" check --key $key "$G" "$K/numbers.txt"
    check_rc "guava_keys_read_back ($key): check --key $key: exit 0" 0
    check_same "guava_keys_read_back ($key): ... finds every number" "$K/numbers.txt" "$OUT"
    run "$B" check --funnel long "$G" "$K/numbers.txt"
    check_same "guava_keys_read_back ($key): check --funnel long finds every number" "$K/numbers.txt" "$OUT"
    check_cond "guava_keys_read_back ($key): ... with no warning that its lines are read as text" \
        "stderr: $(err_line)" test -z "$(grep -F 'read as text' "$ERR")"
    run "$B" check "$G" "$K/numbers.txt"
    check_in "guava_keys_read_back ($key): check without --key or --funnel warns that the lines look like numbers" \
        "$ERR" "look like numbers"
done
expect_error "guava_keys_read_back: a number outside the --key's range is refused" "is not a u64 number: '-1'" \
    "$B" check --key u64 "$K/ids-u64.guava" <(echo -1)

# ---------------------------------------------------------------------------------------------
# Files of format version 2 record nothing

if can_forge_headers; then
    # v2-text.bkf: the numbers built as text; v2-u64.bkf: built as u64; both made version 2, with
    # hash 4 (xxh3-mum), which version 2 knows.
    # (tests/cli/fixtures/: `seq 1 1000` under hash 4, as text and as u64).
    cp "$(dirname "${BASH_SOURCE[0]}")/fixtures/numbers-text-xxh3-mum.bkf" "$K/v2-text.bkf"
    cp "$(dirname "${BASH_SOURCE[0]}")/fixtures/numbers-u64-xxh3-mum.bkf" "$K/v2-u64.bkf"
    for file in "$K/v2-text.bkf" "$K/v2-u64.bkf"; do
        forge_header "$file" 8=2 9=0 88=0 || fail "fixture $(basename "$file")" "forge_header failed"
    done
    run "$B" info --verify "$K/v2-u64.bkf"
    check_rc "version_2_file: it verifies (the forgery is a good version-2 file)" 0
    check_cond "version_2_file: info says the keys are not recorded" "$(grep 'keys are' "$OUT")" \
        grep -Eq '^keys are +not recorded' "$OUT"
    run "$B" info --json "$K/v2-u64.bkf"
    check_eq "version_2_file: --json format_version 2" 2 "$(json_value "$OUT" format_version)"
    check_eq "version_2_file: --json key_format null" null "$(json_value "$OUT" key_format)"

    run "$B" check --count "$K/v2-text.bkf" "$K/numbers.txt"
    check_eq "version_2_file_is_read_as_text: numbers built as text are found as text" 1000 "$(count_of "$OUT" present)"
    check_in "version_2_file_check_warns_when_lines_look_like_numbers" "$ERR" "does not record what its keys are"
    check_in "version_2_file_check_warns_when_lines_look_like_numbers: names the file" "$ERR" "'$K/v2-text.bkf'"
    run "$B" check --count "$K/v2-u64.bkf" "$K/numbers.txt"
    check_cond "version_2_file_is_read_as_text: numbers built as u64, read as text, are other keys (u64 is not the text of the number)" \
        "$(count_of "$OUT" present) of 1000 present" test "$(count_of "$OUT" present)" -le 50
    check_in "version_2_file_check_warns_when_lines_look_like_numbers (u64 file)" "$ERR" "does not record what its keys are"
    run "$B" check --count --key u64 "$K/v2-u64.bkf" "$K/numbers.txt"
    check_eq "version_2_file_takes_key: check --key u64 finds every number" 1000 "$(count_of "$OUT" present)"
    check_cond "version_2_file_takes_key: ... with no warning" "stderr: $(err_line)" test ! -s "$ERR"
    run "$B" check --count --key text "$K/v2-text.bkf" "$K/numbers.txt"
    check_cond "version_2_file_takes_key: --key text: no warning" "stderr: $(err_line)" test ! -s "$ERR"
    run "$B" check "$K/v2-text.bkf" "$T/lf.txt"
    check_cond "version_2_file: no warning when the lines are not numbers" "stderr: $(err_line)" test ! -s "$ERR"

    cp "$K/v2-u64.bkf" "$K/v2-add.bkf"
    run "$B" add --key u64 "$K/v2-add.bkf" "$K/more-numbers.txt"
    check_rc "version_2_file_takes_key: add --key u64 exits 0" 0
    run "$B" check --count --key u64 "$K/v2-add.bkf" "$K/numbers.txt" "$K/more-numbers.txt"
    check_eq "version_2_file_takes_key: after add --key u64, every number is found as u64" 1100 "$(count_of "$OUT" present)"
    run "$B" info --verify "$K/v2-add.bkf"
    check_rc "version_2_file_takes_key: ... and the file verifies" 0
    cp "$K/v2-text.bkf" "$K/v2-dedup.bkf"
    # Adding to a file that holds keys and records no format needs the format said: a guess
    # that is wrong adds keys that nobody finds.
    expect_error "version_2_file_add_needs_key: add without --key is refused" "say it with --key" \
        "$B" add "$K/v2-dedup.bkf" <(printf '5\n')
    check_same "version_2_file_add_needs_key: ... and the file is byte-identical" "$K/v2-text.bkf" "$K/v2-dedup.bkf"
    expect_error "version_2_file_add_needs_key: dedup --state without --key is refused" "say it with --key" \
        "$B" dedup --state "$K/v2-dedup.bkf" <(printf '5\n')
    run "$B" dedup --key text --state "$K/v2-dedup.bkf" <(printf '5\n0005\n')
    check_eq "version_2_file_is_read_as_text (dedup --key text --state): 5 is in, 0005 is another text" "0005" "$(<"$OUT")"
    run "$B" info --json "$K/v2-dedup.bkf"
    check_eq "version_2_file_add_needs_key: ... and the state now records text" text "$(json_value "$OUT" key_format)"
else
    echo "# skipped: version_2_file tests (no python3 with libxxhash to forge a version-2 header)"
fi

no_temp_files "no temporary files left" "$K"

finish
