#!/usr/bin/env bash
# tests/cli/check.sh — end-to-end test of `bloomkit check`: no false negatives, bounded false
# positives, --absent, --count, exit codes, stdin and several inputs, missing inputs.
#
#   bash tests/cli/check.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys_filter
need_others
need_mixed
need_key_halves

# ---------------------------------------------------------------------------------------------
# check: no false negatives, bounded false positives, --absent, --count, exit codes

run "$B" check "$F" "$KEYS"
check_rc "check of the inserted lines exits 0" 0
check_same "check prints every inserted line, in order (no false negatives)" "$KEYS" "$OUT"
check_eq "check output has exactly 100000 lines (buffered output complete)" $N "$(lines_of "$OUT")"

"$B" check "$F" "$KEYS" 2>/dev/null | cat >"$T/piped.txt"
check_same "check through a pipe: complete output" "$KEYS" "$T/piped.txt"

run "$B" check "$F" "$OTHERS"
fp=$(lines_of "$OUT")
check_cond "false positives over 100k other lines <= 1.5% at -p 0.01" "$fp false positives" test "$fp" -le $FP_LIMIT
check_cond "false positives are not zero (the filter is not exact)" "$fp false positives" test "$fp" -gt 0
check_cond "false positives printed are lines of the input" "unexpected lines" \
    awk 'NR == FNR { seen[$0] = 1; next } !($0 in seen) { exit 1 }' "$OTHERS" "$OUT"

run "$B" check "$F" "$MIXED"
check_rc "check of mixed lines exits 0" 0
cp "$OUT" "$T/present.txt"
run "$B" check --absent "$F" "$MIXED"
check_rc "check --absent of mixed lines exits 0" 0
cp "$OUT" "$T/absent.txt"
check_eq "present + absent = lines checked" $((2 * N)) $(($(lines_of "$T/present.txt") + $(lines_of "$T/absent.txt")))
check_cond "--absent prints exactly the complement, in input order" "the two outputs do not interleave into the input" \
    awk -v pf="$T/present.txt" -v af="$T/absent.txt" '
        BEGIN { hp = (getline p < pf) > 0; ha = (getline a < af) > 0 }
        { if (hp && $0 == p) hp = (getline p < pf) > 0
          else if (ha && $0 == a) ha = (getline a < af) > 0
          else exit 1 }
        END { if (hp || ha) exit 1 }' "$MIXED"
check_cond "--absent never prints an inserted line" "an inserted line reported absent" \
    awk '/^key-/ { exit 1 }' "$T/absent.txt"
check_eq "check of mixed lines: present = 100000 keys + false positives" $((N + fp)) "$(lines_of "$T/present.txt")"

run "$B" check --count "$F" "$MIXED"
check_rc "check --count exits 0 when something is present" 0
printf 'present\t%d\nabsent\t%d\n' $((N + fp)) $((N - fp)) >"$T/expected-count.txt"
check_same "check --count prints present/absent totals" "$T/expected-count.txt" "$OUT"

run "$B" check --count "$F" "$KEYS"
printf 'present\t%d\nabsent\t0\n' $N >"$T/expected-count.txt"
check_same "check --count of inserted lines: all present" "$T/expected-count.txt" "$OUT"

run "$B" check --count --absent "$F" "$KEYS"
check_rc "check --count --absent with nothing absent exits 1" 1
check_same "check --count --absent still prints the totals" "$T/expected-count.txt" "$OUT"

run "$B" check --absent "$F" "$KEYS"
check_rc "check --absent over inserted lines only exits 1" 1
check_cond "check --absent over inserted lines prints nothing" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"

need_empty_input
run "$B" check "$F" "$T/empty.txt"
check_rc "check of an empty input exits 1" 1
check_cond "check of an empty input prints nothing" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"

run "$B" check --count "$F" "$T/empty.txt"
check_rc "check --count of an empty input exits 1" 1
printf 'present\t0\nabsent\t0\n' >"$T/expected-count.txt"
check_same "check --count of an empty input prints zero totals" "$T/expected-count.txt" "$OUT"

printf 'nothing-here-1\nnothing-here-2\n' >"$T/absent-lines.txt"
run "$B" check "$F" "$T/absent-lines.txt"
check_rc "check with no line present exits 1" 1

# ---------------------------------------------------------------------------------------------
# stdin and several inputs

run "$B" check "$F" <"$KEYS"
check_rc "check from stdin (no inputs) exits 0" 0
check_same "check from stdin prints every line" "$KEYS" "$OUT"

run "$B" check "$F" - <"$KEYS"
check_same "check from stdin ('-') prints every line" "$KEYS" "$OUT"

# The filter straight from build through a pipe: bloomkit build -o - KEYS | bloomkit check - KEYS
"$B" build -o - "$KEYS" 2>"$T/pipe-build.err" | "$B" check - "$KEYS" >"$T/pipe-check.out" 2>"$T/pipe-check.err"
pipe_status="${PIPESTATUS[*]}"
check_eq "build -o - | check - exits 0 on both sides" "0 0" "$pipe_status"
check_same "build -o - | check -: every line is found" "$KEYS" "$T/pipe-check.out"

run "$B" check "$F" "$T/keys-b.txt" "$T/keys-a.txt"
check_rc "check of two files exits 0" 0
cat "$T/keys-b.txt" "$T/keys-a.txt" >"$T/expected.txt"
check_same "check of two files prints both, in argument order" "$T/expected.txt" "$OUT"

# ---------------------------------------------------------------------------------------------
# missing inputs

expect_error "check with a missing input -> 2" "no-such-input.txt" "$B" check "$F" "$T/no-such-input.txt"
expect_error "check with a good and a missing input -> 2 (nothing printed)" "no-such-input.txt" \
    "$B" check "$F" "$KEYS" "$T/no-such-input.txt"

# ---------------------------------------------------------------------------------------------
# check --count --json: the totals as one line of JSON on stdout

run "$B" check --count --json "$F" "$MIXED"
check_rc "check --count --json exits 0 when something is present" 0
check_eq "check --count --json prints one line" 1 "$(lines_of "$OUT")"
check_cond "check --count --json prints a JSON object" "stdout: $(head -c 100 "$OUT")" \
    awk 'NR == 1 && /^\{.*\}$/ { ok = 1 } END { exit !ok }' "$OUT"
check_eq "check --count --json: present = 100000 keys + false positives" $((N + fp)) "$(json_value "$OUT" present)"
check_eq "check --count --json: absent" $((N - fp)) "$(json_value "$OUT" absent)"
check_eq "check --count --json: the filter checked" "$F" "$(json_value "$OUT" file)"
check_eq "check --count --json: the command" check "$(json_value "$OUT" command)"
check_cond "check --count --json prints nothing on stderr" "stderr: $(err_line)" test ! -s "$ERR"

run "$B" check --count --json "$F" - <"$KEYS"
check_rc "check --count --json from stdin exits 0" 0
check_eq "check --count --json of inserted lines: all present" "$N 0" "$(json_value "$OUT" present) $(json_value "$OUT" absent)"
run "$B" check --count --json --absent "$F" "$KEYS"
check_rc "check --count --json --absent with nothing absent exits 1" 1
check_eq "check --count --json --absent still prints the totals" "$N 0" "$(json_value "$OUT" present) $(json_value "$OUT" absent)"
run "$B" check --count --json "$F" "$T/empty.txt"
check_rc "check --count --json of an empty input exits 1" 1
check_eq "check --count --json of an empty input: zero totals" "0 0" "$(json_value "$OUT" present) $(json_value "$OUT" absent)"
run "$B" check --count --json - "$T/keys-a.txt" <"$F"
check_eq "check --count --json with the filter from stdin: present" 50000 "$(json_value "$OUT" present)"
expect_error "check --count --json with a missing input -> 2 (no JSON on stdout)" "no-such-input.txt" \
    "$B" check --count --json "$F" "$T/no-such-input.txt"

finish
