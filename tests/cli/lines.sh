#!/usr/bin/env bash
# tests/cli/lines.sh — end-to-end test of the bloomkit command: input lines as build and check
# read them (CRLF, empty lines, huge lines, binary bytes, last line without newline).
#
#   bash tests/cli/lines.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys_filter
need_empty_input

# ---------------------------------------------------------------------------------------------
# lines: CRLF, empty lines, huge lines, binary bytes, last line without newline

printf 'alpha\r\nbeta\r\ngamma\r\n' >"$T/crlf.txt"
need_lf_lines
run "$B" build -n 100 -o "$T/filters/crlf.bf" "$T/crlf.txt"
run "$B" check "$T/filters/crlf.bf" "$T/lf.txt"
check_rc "CRLF-built filter: LF lines found (exit 0)" 0
check_same "CRLF-built filter: check prints the LF lines" "$T/lf.txt" "$OUT"
run "$B" build -n 100 -o "$T/filters/lf.bf" "$T/lf.txt"
check_same "CRLF and LF inputs build the same filter" "$T/filters/lf.bf" "$T/filters/crlf.bf"
run "$B" check --count "$T/filters/lf.bf" "$T/crlf.txt"
printf 'present\t3\nabsent\t0\n' >"$T/expected-count.txt"
check_same "LF-built filter: CRLF lines found" "$T/expected-count.txt" "$OUT"
printf 'alpha\r' >"$T/cr-last.txt"
run "$B" check "$T/filters/lf.bf" "$T/cr-last.txt"
check_rc "a last line 'alpha\\r' without newline is found as 'alpha'" 0
printf 'alpha\r\r\n' >"$T/crcr.txt"
run "$B" check "$T/filters/lf.bf" "$T/crcr.txt"
check_rc "only one trailing \\r is stripped ('alpha\\r\\r' is not 'alpha')" 1

printf 'a\n\nb\n' >"$T/with-empty.txt"
run "$B" build -n 100 -o "$T/filters/with-empty.bf" "$T/with-empty.txt"
run "$B" check "$T/filters/with-empty.bf" <<<""
check_rc "an inserted empty line is found (exit 0)" 0
check_cond "check prints the empty line" "stdout: $(od -c "$OUT" | head -n 2)" test "$(od -An -c "$OUT" | tr -d ' ')" = '\n'
run "$B" check --count "$T/filters/with-empty.bf" "$T/with-empty.txt"
printf 'present\t3\nabsent\t0\n' >"$T/expected-count.txt"
check_same "every line of 'a, (empty), b' is found" "$T/expected-count.txt" "$OUT"
run "$B" check "$F" <<<""
check_rc "an empty line is absent from a filter built without one" 1
printf '\r\n' >"$T/cr-only.txt"
run "$B" check "$T/filters/with-empty.bf" "$T/cr-only.txt"
check_rc "a line holding only \\r is the empty key" 0

run "$B" build -n 100 -o "$T/filters/from-empty.bf" "$T/empty.txt"
check_rc "build from an empty input exits 0" 0
run "$B" info --json "$T/filters/from-empty.bf"
check_eq "an empty input holds no key (inserted_keys 0)" 0 "$(json_value "$OUT" inserted_keys)"
run "$B" check "$T/filters/from-empty.bf" <<<""
check_rc "an empty input is not one empty line" 1

BIG=$T/big.txt
BIG2=$T/big2.txt
head -c 10000000 /dev/zero | tr '\0' 'x' >"$BIG"
cp "$BIG" "$BIG2"
printf '\n' >>"$BIG"
printf 'y' | dd of="$BIG2" bs=1 seek=5000000 count=1 conv=notrunc status=none
printf '\n' >>"$BIG2"
{ head -n 10 "$KEYS"; cat "$BIG"; head -n 20 "$KEYS" | tail -n 10; } >"$T/big-mixed.txt"
run "$B" build -n 100 -o "$T/filters/big.bf" "$T/big-mixed.txt"
check_rc "build with a 10 MB line exits 0" 0
run "$B" check "$T/filters/big.bf" "$BIG"
check_rc "the 10 MB line is found (exit 0)" 0
check_same "check prints the 10 MB line intact" "$BIG" "$OUT"
run "$B" check "$T/filters/big.bf" "$BIG2"
check_rc "a 10 MB line differing in one middle byte is absent" 1
run "$B" check "$T/filters/big.bf" "$T/big-mixed.txt"
check_same "the lines around the 10 MB line are found too" "$T/big-mixed.txt" "$OUT"

printf '\xff\xfe\x00abc\nplain\n\x00\n\xc3\x28\xa0\n\x01\x02\t\x7f\n' >"$T/binary.txt"
run "$B" build -n 100 -o "$T/filters/binary.bf" "$T/binary.txt"
check_rc "build from lines with NUL and invalid UTF-8 exits 0" 0
run "$B" check "$T/filters/binary.bf" "$T/binary.txt"
check_rc "lines with NUL and invalid UTF-8 are found (exit 0)" 0
check_same "lines with NUL and invalid UTF-8 round-trip byte-identically" "$T/binary.txt" "$OUT"
printf '\xff\xfe\n' >"$T/binary-prefix.txt"
run "$B" check "$T/filters/binary.bf" "$T/binary-prefix.txt"
check_rc "a key is not cut at its NUL byte ('\\xff\\xfe' absent)" 1
printf '\xff\xfe\x00abd\n' >"$T/binary-other.txt"
run "$B" check "$T/filters/binary.bf" "$T/binary-other.txt"
check_rc "the bytes after a NUL count ('\\xff\\xfe\\x00abd' absent)" 1

printf 'one\ntwo' >"$T/no-newline.txt"
run "$B" build -n 100 -o "$T/filters/no-newline.bf" "$T/no-newline.txt"
run "$B" check "$T/filters/no-newline.bf" <<<"two"
check_rc "a last line without newline is a key" 0
check_eq "check prints it with a newline" "two" "$(<"$OUT")"
run "$B" check "$T/filters/no-newline.bf" "$T/no-newline.txt"
printf 'one\ntwo\n' >"$T/expected.txt"
check_same "checking a last line without newline prints it newline-terminated" "$T/expected.txt" "$OUT"
run "$B" check "$T/filters/no-newline.bf" <<<"tw"
check_rc "a prefix of the last line is absent" 1

no_temp_files "no temporary files left in the output directory" "$T/filters"
no_temp_files "no temporary files left in the work directory" "$T"

# ---------------------------------------------------------------------------------------------
# --key u64 / i64: a line is a decimal number, hashed as the library hashes that integer

seq 1 1000 >"$T/numbers.txt"
run "$B" build --key u64 -o "$T/filters/numbers.bf" "$T/numbers.txt"
check_rc "key_u64_lines_are_numbers: build --key u64 exits 0" 0
run "$B" check --count --key u64 "$T/filters/numbers.bf" "$T/numbers.txt"
check_eq "key_u64_lines_are_numbers: every number found" 1000 "$(count_of "$OUT" present)"
run "$B" check --count --key i64 "$T/filters/numbers.bf" "$T/numbers.txt"
check_eq "key_u64_and_i64_agree_on_the_same_values" 1000 "$(count_of "$OUT" present)"
run "$B" check --count "$T/filters/numbers.bf" "$T/numbers.txt"
check_eq "key_u64_is_recorded: check without --key reads the lines as the filter's numbers" 1000 "$(count_of "$OUT" present)"
# The same lines as text are other keys: a filter of them sets other bits (payload from byte 129),
# and a --key text on the u64 filter is refused rather than answered wrongly (key_format.sh).
run "$B" build -o "$T/filters/numbers-text.bf" "$T/numbers.txt"
check_cond "key_u64_is_not_the_text_of_the_number: a text filter of the same lines sets other bits" \
    "the payloads are the same" not_same <(tail -c +129 "$T/filters/numbers.bf") <(tail -c +129 "$T/filters/numbers-text.bf")
expect_error "key_u64_is_not_the_text_of_the_number: check --key text on the u64 filter is refused" "u64" \
    "$B" check --count --key text "$T/filters/numbers.bf" "$T/numbers.txt"
printf -- '-1\n-9223372036854775808\n' >"$T/negative.txt"
run "$B" build --key i64 -n 10 -o "$T/filters/negative.bf" "$T/negative.txt"
check_rc "key_i64_takes_negative_numbers" 0
# The filter's range decides: 2^64 - 1 hashes as -1 does, but no i64 filter holds it.
expect_error "key_i64_refuses_what_no_i64_holds: 18446744073709551615 read against an i64 filter" \
    "is not an i64 number: '18446744073709551615'" \
    "$B" check --key u64 "$T/filters/negative.bf" <(printf '18446744073709551615\n')
run "$B" check --key u64 "$T/filters/negative.bf" <(printf -- '-1\n-9223372036854775808\n')
check_eq "key_i64_reads_its_own_range: --key u64 on an i64 filter reads -1 and -2^63" 2 "$(lines_of "$OUT")"
printf '1\n2\nthree\n4\n' >"$T/not-numbers.txt"
expect_error "key_u64_refuses_a_line_that_is_not_a_number, naming its line" "line 3 of '$T/not-numbers.txt'" \
    "$B" build --key u64 -n 10 -o "$T/filters/not-numbers.bf" "$T/not-numbers.txt"
check_cond "... and creates no file" "file created" test ! -e "$T/filters/not-numbers.bf"
expect_error "key_u64_refuses_out_of_range_numbers" "line 1" "$B" check --key u64 "$T/filters/numbers.bf" \
    <(echo 18446744073709551616)
expect_error "key_u64_refuses_negative_numbers" "line 1" "$B" check --key u64 "$T/filters/numbers.bf" <(echo -1)
expect_error "key_format_must_be_known" "--key" "$B" check --key float "$T/filters/numbers.bf" "$T/numbers.txt"
run "$B" build --kind fuse --key u64 -o "$T/filters/numbers-fuse.bf" "$T/numbers.txt"
run "$B" check --count --key u64 "$T/filters/numbers-fuse.bf" "$T/numbers.txt"
check_eq "key_u64_builds_static_filters_too" 1000 "$(count_of "$OUT" present)"

finish
