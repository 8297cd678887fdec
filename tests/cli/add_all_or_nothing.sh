#!/usr/bin/env bash
# tests/cli/add_all_or_nothing.sh — bloomkit add is all or nothing: every line is read before the
# filter changes, so a bad line, a damaged input or a signal while it reads leaves the file
# byte-identical, and says it "was not changed"; a signal during the short commit waits for it,
# so the file is never left flagged as interrupted and never loses a key; and adds too large to
# wait in memory (over 4,194,304 lines) go through a copy of the file, all or nothing too.
#
#   bash tests/cli/add_all_or_nothing.sh /path/to/bloomkit
#
# The random-SIGTERM test makes BLOOMKIT_SIGTERM_TRIALS trials (default 18).
# Harness, test data and fixtures: lib.sh.
SIGTERM_TRIALS=${BLOOMKIT_SIGTERM_TRIALS:-18}
source "$(dirname "$0")/lib.sh" "$@"

need_keys
A=$T/a
mkdir "$A"
seq 1 100000 >"$A/numbers.txt"
NUM=$A/numbers.bkf                  # a Bloom filter of u64 keys (updated in place)
NUMC=$A/numbers-counting.bkf        # a counting filter of u64 keys (rewritten)
fixture_build "numbers.bkf" "$NUM" --key u64 -n 1000000 -o "$NUM" "$A/numbers.txt"
fixture_build "numbers-counting.bkf" "$NUMC" --kind counting --key u64 -n 200000 -o "$NUMC" "$A/numbers.txt"
TXT=$A/text.bkf                     # a Bloom filter of KEYS (text)
TXTC=$A/text-counting.bkf           # a counting filter of KEYS
fixture_build "text.bkf" "$TXT" -n 1000000 -o "$TXT" "$KEYS"
fixture_build "text-counting.bkf" "$TXTC" --kind counting -n 400000 -o "$TXTC" "$KEYS"

# unchanged LABEL FILE BEFORE OLD_LINES: the last run failed (exit != 0), said the file "was not
# changed", left FILE byte-identical to BEFORE, and check still finds every line of OLD_LINES.
unchanged() {
    local label=$1 file=$2 before=$3 old=$4
    check_cond "$label: exits non-zero" "exit $RC" test $RC -ne 0
    check_in "$label: says the file was not changed" "$ERR" "was not changed"
    check_same "$label: the file is byte-identical" "$before" "$file"
    run "$B" check --count "$file" "$old"
    check_rc "$label: check still works (exit 0)" 0
    check_eq "$label: every old key is found" "$(lines_of "$old")" "$(count_of "$OUT" present)"
}

# ---------------------------------------------------------------------------------------------
# A bad line after good ones

{ seq 100001 150000; echo 12x; seq 150001 150100; } >"$A/bad-at-50001.txt"
for file in "$NUM" "$NUMC"; do
    label="add_with_a_bad_line_changes_nothing ($(basename "$file"))"
    cp "$file" "$A/before.bkf"
    run "$B" add "$file" "$A/bad-at-50001.txt"
    check_rc "$label: exit 2" 2
    check_in "$label: names the line" "$ERR" "line 50001 of '$A/bad-at-50001.txt'"
    unchanged "$label" "$file" "$A/before.bkf" "$A/numbers.txt"
    run "$B" add "$file" - <"$A/bad-at-50001.txt"
    unchanged "$label (from stdin)" "$file" "$A/before.bkf" "$A/numbers.txt"
done

# ---------------------------------------------------------------------------------------------
# A damaged .gz input (truncated, or corrupt in the middle): the lines before the damage are not
# added either

seq -f 'gz-%.0f' 1 200000 | gzip -c >"$A/lines.gz"
head -c $(($(stat -c %s "$A/lines.gz") / 2)) "$A/lines.gz" >"$A/truncated.gz"
cp "$A/lines.gz" "$A/corrupt.gz"
zero_bytes "$A/corrupt.gz" $(($(stat -c %s "$A/lines.gz") / 2)) 64
for file in "$TXT" "$TXTC"; do
    for input in truncated corrupt; do
        label="add_from_a_damaged_gz_changes_nothing ($input .gz, $(basename "$file"))"
        cp "$file" "$A/before.bkf"
        run "$B" add "$file" "$A/$input.gz"
        check_rc "$label: exit 2" 2
        check_in "$label: names the input" "$ERR" "$input.gz"
        unchanged "$label" "$file" "$A/before.bkf" "$KEYS"
    done
done

# ---------------------------------------------------------------------------------------------
# A signal while add reads a slow input (a pipe that stays open): it dies by the signal (128+N),
# saying the file was not changed, and the file is byte-identical. The signal comes once the
# add is reading: 10,000 lines, more than a pipe holds, have gone into the FIFO.

mkfifo "$A/slow"
for signal in TERM INT HUP; do
    number=$(kill -l $signal)
    for file in "$TXT" "$TXTC"; do
        label="add_stopped_while_reading_changes_nothing (SIG$signal, $(basename "$file"))"
        cp "$file" "$A/before.bkf"
        # trap - INT: as from a terminal (bash starts a background command with SIGINT ignored)
        (trap - INT; exec "$B" add "$file" <"$A/slow" >"$OUT" 2>"$ERR") &
        pid=$!
        exec 3>"$A/slow"
        seq -f 'slow-%.0f' 1 10000 >&3
        kill -s $signal $pid
        { wait $pid; } 2>/dev/null
        RC=$?
        exec 3>&-
        check_rc "$label: dies by the signal" $((128 + number))
        unchanged "$label" "$file" "$A/before.bkf" "$KEYS"
        no_temp_files "$label: no temporary file left" "$A"
    done
done

# ---------------------------------------------------------------------------------------------
# SIGTERM at random moments of many adds to a Bloom filter of 24 MB (-n 20M: the commit touches
# every chunk, most of the run), one after the other on the same file: a third of them in the
# first tenth of the run (reading, mostly), a third anywhere in it, a third aimed at its commit
# (sent as soon as the update flag is seen). Each add of 100,000 new
# lines either changed nothing (killed while reading: the file byte-identical, and it said so)
# or is complete (every one of its lines found): a signal in the commit waits for its end. The
# file is never left flagged as interrupted, verifies, and keeps every key: KEYS after each
# trial, and every line of every add that went in at the end. The waits below for the add (its
# lock held, its update flag set) end when it has ended too: they never assume it is still there.

R=$A/random.bkf
fixture_build "random.bkf" "$R" -n 20000000 -o "$R" "$KEYS"
cp "$KEYS" "$A/committed.txt"
sigterm_failures=0 sigterm_unchanged=0 sigterm_committed=0 sigterm_ended=0 sigterm_aimed=0 sigterm_in_commit=0
sigterm_silent=0
sigterm_fail() {
    sigterm_failures=$((sigterm_failures + 1))
    echo "# SIGTERM trial $1: $2"
}
# locked_or_gone FILE PID: the add PID holds its writer lock on FILE (flock -n finds it busy), or
# has ended.
locked_or_gone() {
    flock -n -E 75 "$1" true 2>/dev/null
    [[ $? -eq 75 ]] || gone "$2"
}
# flagged_or_gone PID: the add PID has set its update flag on $R (it is in its commit), or has ended.
flagged_or_gone() { update_flag_set "$R" || gone "$1"; }
# batch TRIAL: its 100,000 new lines in $A/batch.txt
batch() { seq -f "batch-$1-%.0f" 1 100000 >"$A/batch.txt"; }
length=0
for timing in 1 2; do
    batch timing-$timing
    started=${EPOCHREALTIME/./}
    "$B" add "$R" "$A/batch.txt" 2>/dev/null
    RC=$?
    took=$((${EPOCHREALTIME/./} - started))
    [[ $timing -eq 1 || $took -lt $length ]] && length=$took
    cat "$A/batch.txt" >>"$A/committed.txt"
done
check_rc "sigterm_at_random_moments_loses_nothing: a whole add, timed, exits 0 ($((length / 1000)) ms)" 0
for ((trial = 1; trial <= SIGTERM_TRIALS; trial++)); do
    batch $trial
    cp "$R" "$A/before.bkf"
    started=${EPOCHREALTIME/./}
    "$B" add "$R" "$A/batch.txt" >/dev/null 2>"$A/sigterm.err" &
    pid=$!
    if ((trial % 3 == 0)); then
        sigterm_aimed=$((sigterm_aimed + 1))
        deadline=$((SECONDS + WAIT_SECONDS))
        until flagged_or_gone $pid || ((SECONDS >= deadline)); do :; done
        if update_flag_set "$R"; then
            kill -TERM $pid 2>/dev/null && sigterm_in_commit=$((sigterm_in_commit + 1))
        fi
    else
        # in the first tenth of the run (reading, mostly), or anywhere in it — counted from the
        # moment the add holds its writer lock: a signal before the command has even started
        # (a sanitizer's start-up takes a while) finds no handler to say anything
        deadline=$((SECONDS + WAIT_SECONDS))
        until locked_or_gone "$R" $pid || ((SECONDS >= deadline)); do :; done
        started=${EPOCHREALTIME/./}
        span=$((trial % 3 == 1 ? length / 10 : length * 11 / 10))
        delay=$(((RANDOM << 15 | RANDOM) % (span + 1)))
        rest=$((started + delay - ${EPOCHREALTIME/./}))
        if ((rest > 0)); then
            printf -v rest '%d.%06d' $((rest / 1000000)) $((rest % 1000000))
            sleep "$rest"
        fi
        kill -TERM $pid 2>/dev/null
    fi
    { wait $pid; } 2>/dev/null
    rc=$?
    [[ $rc -eq 0 || $rc -eq 143 ]] || sigterm_fail $trial "exit $rc: neither ended nor stopped by SIGTERM"
    [[ $rc -eq 0 ]] && sigterm_ended=$((sigterm_ended + 1))
    if "$B" info --json "$R" >"$A/info.json" 2>"$A/info.err"; then
        [[ $(json_value "$A/info.json" interrupted_update) == false ]] ||
            sigterm_fail $trial "the file is left flagged as interrupted (exit $rc)"
    else
        sigterm_fail $trial "info fails: $(head -c 160 "$A/info.err")"
    fi
    if cmp -s "$R" "$A/before.bkf"; then
        sigterm_unchanged=$((sigterm_unchanged + 1))
        [[ $rc -eq 0 ]] && sigterm_fail $trial "the add exited 0 but the file is unchanged"
        [[ $rc -eq 143 ]] && ! grep -q 'was not changed' "$A/sigterm.err" && sigterm_silent=$((sigterm_silent + 1))
    else
        sigterm_committed=$((sigterm_committed + 1))
        "$B" check --count "$R" "$A/batch.txt" >"$A/count" 2>"$A/count.err"
        [[ $(count_of "$A/count" present) == 100000 ]] ||
            sigterm_fail $trial "the file changed, but holds $(count_of "$A/count" present) of the add's 100000 lines (exit $rc): $(head -c 160 "$A/count.err")"
        cat "$A/batch.txt" >>"$A/committed.txt"
    fi
    "$B" info --verify "$R" >/dev/null 2>"$A/verify.err" || sigterm_fail $trial "the file does not verify: $(head -c 160 "$A/verify.err")"
    "$B" check --count "$R" "$KEYS" >"$A/count" 2>/dev/null
    [[ $(count_of "$A/count" present) == "$N" ]] || sigterm_fail $trial "a key the file held is missing"
done
echo "# SIGTERM test: $SIGTERM_TRIALS trials ($sigterm_aimed aimed at the commit, $sigterm_in_commit of them sent while the" \
    "flag was set); $sigterm_ended ended before the signal; $sigterm_unchanged left the file unchanged, $sigterm_committed committed"
check_eq "sigterm_at_random_moments_loses_nothing: every add ended or died by SIGTERM, the file never left interrupted, each add whole or not at all, every key kept" \
    0 $sigterm_failures
run "$B" check --count "$R" "$A/committed.txt"
check_eq "sigterm_at_random_moments_loses_nothing: every line of every add that went in is found" \
    "$(lines_of "$A/committed.txt")" "$(count_of "$OUT" present)"
check_eq "sigterm_at_random_moments_loses_nothing: an add stopped before its commit says the file was not changed" \
    0 $sigterm_silent
no_temp_files "sigterm_at_random_moments_loses_nothing: no temporary file left" "$A"

# ---------------------------------------------------------------------------------------------
# Adds of more than 4,194,304 lines (what an add keeps in memory) go through a spool of digests
# ($TMPDIR) and a copy of the file: such an add works (every line then found, the file sealed,
# its key format kept); a bad line at its very end, or a SIGTERM while it runs, leave the file
# byte-identical; no temporary is left, in the filter's directory or in $TMPDIR.

BIG=$A/big.bkf
seq 1 100 >"$A/hundred.txt"
fixture_build "big.bkf" "$BIG" --key u64 -n 10000000 -o "$BIG" "$A/hundred.txt"
seq 1000001 5200000 >"$A/4.2M.txt"
mkdir "$A/spool"
cp "$BIG" "$A/big-before.bkf"
started=${EPOCHREALTIME/./}
run env TMPDIR="$A/spool" "$B" add "$BIG" "$A/4.2M.txt"
big_length=$((${EPOCHREALTIME/./} - started))
check_rc "add_of_more_lines_than_memory_holds_works: add of 4,200,000 lines exits 0 ($((big_length / 1000)) ms)" 0
run "$B" check --count "$BIG" "$A/4.2M.txt" "$A/hundred.txt"
check_eq "add_of_more_lines_than_memory_holds_works: every line is found, old and new" 4200100 "$(count_of "$OUT" present)"
run "$B" info --verify --json "$BIG"
check_rc "add_of_more_lines_than_memory_holds_works: the file verifies" 0
check_eq "add_of_more_lines_than_memory_holds_works: not flagged as interrupted" false "$(json_value "$OUT" interrupted_update)"
check_eq "add_of_more_lines_than_memory_holds_works: its key format is kept" u64 "$(json_value "$OUT" key_format)"
check_eq "add_of_more_lines_than_memory_holds_works: inserted_keys counts them" 4200100 "$(json_value "$OUT" inserted_keys)"
no_temp_files "add_of_more_lines_than_memory_holds_works: no temporary file left beside the filter" "$A"
check_eq "add_of_more_lines_than_memory_holds_works: no spool left in \$TMPDIR" "" "$(ls -A "$A/spool")"

cp "$A/big-before.bkf" "$BIG"
{ seq 1000001 5200000; echo 'not-a-number'; } >"$A/4.2M-bad-at-the-end.txt"
run env TMPDIR="$A/spool" "$B" add "$BIG" "$A/4.2M-bad-at-the-end.txt"
check_rc "add_of_more_lines_than_memory_holds_with_a_bad_last_line: exit 2" 2
check_in "add_of_more_lines_than_memory_holds_with_a_bad_last_line: names the line" "$ERR" "line 4200001"
unchanged "add_of_more_lines_than_memory_holds_with_a_bad_last_line" "$BIG" "$A/big-before.bkf" "$A/hundred.txt"
no_temp_files "add_of_more_lines_than_memory_holds_with_a_bad_last_line: no temporary file left beside the filter" "$A"
check_eq "add_of_more_lines_than_memory_holds_with_a_bad_last_line: no spool left in \$TMPDIR" "" "$(ls -A "$A/spool")"

# SIGTERM once it has read most of the lines (three quarters of a whole run, counted from the
# moment it holds its writer lock, its handlers in place): spooling or writing the copy. Sent
# earlier or later, or after its end, what is checked holds all the same.
"$B" add "$BIG" "$A/4.2M.txt" >/dev/null 2>"$ERR" &
pid=$!
wait_until locked_or_gone "$BIG" $pid
delay=$((big_length * 3 / 4))
printf -v delay '%d.%06d' $((delay / 1000000)) $((delay % 1000000))
sleep "$delay"
kill -TERM $pid 2>/dev/null
{ wait $pid; } 2>/dev/null
RC=$?
label="add_of_more_lines_than_memory_holds_stopped_by_sigterm"
check_cond "$label: ended or died by SIGTERM" "exit $RC" test $RC -eq 0 -o $RC -eq 143
run "$B" info --verify --json "$BIG"
check_rc "$label: the file verifies" 0
check_eq "$label: not flagged as interrupted" false "$(json_value "$OUT" interrupted_update)"
if cmp -s "$A/big-before.bkf" "$BIG"; then
    pass "$label: the file is byte-identical (stopped before the copy replaced it)"
    check_cond "$label: ... and it said the file was not changed" "exit $RC; stderr: $(err_line)" \
        bash -c "[[ $RC -eq 0 ]] || grep -q 'was not changed' '$ERR'"
else
    run "$B" check --count "$BIG" "$A/4.2M.txt"
    check_eq "$label: the file changed, so it is the complete new one" 4200000 "$(count_of "$OUT" present)"
fi
run "$B" check --count "$BIG" "$A/hundred.txt"
check_eq "$label: every old key is found" 100 "$(count_of "$OUT" present)"
no_temp_files "$label: no temporary file left" "$A"

finish
