#!/usr/bin/env bash
# tests/cli/general.sh — end-to-end test of the bloomkit command: usage errors, --help,
# --version, output errors (a full disk), errors that stop a run at once, ignored signals.
#
#   bash tests/cli/general.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys_filter
need_lf_filter

NEW=$T/filters/new.bf

# ---------------------------------------------------------------------------------------------
# usage: unknown subcommands and options, missing arguments, --help, --version

expect_error "unknown subcommand -> 2" "frobnicate" "$B" frobnicate
expect_error "no subcommand -> 2" "" "$B"
expect_error "unknown option of check -> 2" "--bogus" "$B" check --bogus "$F" "$KEYS"
expect_error "unknown option of build -> 2" "--frob" "$B" build --frob -n 10 -o "$NEW" "$T/lf.txt"
expect_error "unknown global option -> 2" "--nope" "$B" --nope plan -n 10
expect_error "info with two filters -> 2" "" "$B" info "$F" "$F"
expect_error "check without a filter argument -> 2" "" "$B" check
expect_error "-n without a value -> 2" "" "$B" plan -n

run "$B" --help
check_rc "--help exits 0" 0
check_in "--help lists the subcommands" "$OUT" "check"
check_in "--help lists remove" "$OUT" "remove"
for sub in plan build add remove check info; do
    run "$B" $sub --help
    check_rc "$sub --help exits 0" 0
done
run "$B"
check_rc "bare_bloomkit_prints_usage -> 2" 2
check_in "bare_bloomkit_prints_usage: the subcommands" "$ERR" "Subcommands:"
expect_error "argument_errors_have_the_bloomkit_prefix (unknown option)" "bloomkit: " "$B" plan -n 10 --no-such-option
expect_error "argument_errors_have_the_bloomkit_prefix (missing value)" "bloomkit: " "$B" plan -n
expect_error "tiny_rates_print_as_written (-p 1e-300)" "1e-300" "$B" plan -n 1000 -p 1e-300
expect_error "huge_counts_name_the_real_limit (-n 18446744073709551615)" "2^64 bits" \
    "$B" plan -n 18446744073709551615 -p 0.01
run "$B" plan -n 10M -p 1%
check_rc "numbers_as_people_write_them: plan -n 10M -p 1% exits 0" 0
check_in "numbers_as_people_write_them: 10M is ten million" "$OUT" "10000000 keys"
run "$B" plan -n 10_000_000 -p 0.1%
check_in "numbers_as_people_write_them: 10_000_000 at 0.1%" "$OUT" "10000000 keys at a false-positive rate of 0.1%"
expect_error "a_pipe_given_as_the_filter_is_read_as_a_stream (empty)" "empty" "$B" check <(true) "$KEYS"
run "$B" check <(cat "$F") "$KEYS"
check_rc "a_pipe_given_as_the_filter_is_read_as_a_stream (a filter): check exits 0" 0
check_eq "a_pipe_given_as_the_filter_is_read_as_a_stream: every line found" $N "$(lines_of "$OUT")"

# A progress line on a terminal must not be drawn into the data when stdout is that terminal.
if script -qfc true /dev/null >/dev/null 2>&1; then
    script -qfc "'$B' check '$F' '$KEYS'" /dev/null >"$T/tty-out" 2>&1
    check_cond "progress_never_garbles_stdout_on_the_same_terminal" "a progress line in the output" \
        bash -c "! grep -q 'checking' '$T/tty-out'"
    check_eq "progress_never_garbles_stdout_on_the_same_terminal: every line printed" $N \
        "$(tr -d '\r' <"$T/tty-out" | grep -c '^key-')"
fi

run "$B" --version
check_rc "--version exits 0" 0
check_in "--version names bloomkit" "$OUT" "bloomkit"

# ---------------------------------------------------------------------------------------------
# output errors: a full disk is an error (2), not a crash or a silent success

if [[ -w /dev/full ]]; then
    { "$B" check "$T/filters/lf.bf" "$T/lf.txt" >/dev/full 2>"$ERR"; } 2>/dev/null
    RC=$?
    check_rc "check with a small output to a full disk -> 2" 2
    { "$B" check "$F" "$KEYS" >/dev/full 2>"$ERR"; } 2>/dev/null
    RC=$?
    check_rc "check with a large output to a full disk -> 2" 2
    check_in "... with a bloomkit message about writing" "$ERR" "bloomkit: cannot write"
    { "$B" plan -n 1000 >/dev/full 2>"$ERR"; } 2>/dev/null
    RC=$?
    check_rc "plan to a full disk -> 2" 2
fi

# ---------------------------------------------------------------------------------------------
# errors_stop_the_run_at_once: a line that cannot be read as a key (--key u64, the first line)
# ends the run at once with exit 2, whatever -t: an endless input (yes) does not keep it reading,
# and neither does an input that stays open and sends nothing more (the reader is not left
# waiting on it while the other threads have already failed).

for threads in 1 2; do
    run bash -c "(echo bad; yes 1) | timeout 120 '$B' build -t $threads --key u64 -n 1000 -o '$NEW'"
    check_rc "errors_stop_the_run_at_once: (echo bad; yes 1) | build -t $threads --key u64 -n 1000 -> 2, not the timeout's 124" 2
    check_in "errors_stop_the_run_at_once: build -t $threads names the line" "$ERR" "line 1"
done
check_cond "errors_stop_the_run_at_once: build creates no file" "file created" test ! -e "$NEW"

# stop_check LABEL COMMAND...: runs COMMAND (a bloomkit subcommand and its arguments, reading
# the FIFO $T/stop-input) while this shell holds the FIFO open after writing one bad line, and
# keeps it open until COMMAND has ended: it must exit 2 on its own. Were it to wait for more
# input it would wait for ever; `timeout 120` then ends it (exit 124), and the check fails.
mkfifo "$T/stop-input"
seq 1 100 >"$T/numbers.txt"
"$B" build --key u64 -o "$T/filters/numbers.bf" "$T/numbers.txt" 2>/dev/null
"$B" build --kind counting --key u64 -o "$T/filters/numbers-counting.bf" "$T/numbers.txt" 2>/dev/null
stop_check() {
    local label=$1 pid
    shift
    timeout 120 "$B" "$@" >"$OUT" 2>"$ERR" &
    pid=$!
    exec 5<>"$T/stop-input"   # read-write: opening it never waits for the reader
    echo bad >&5
    { wait $pid; } 2>/dev/null
    RC=$?
    exec 5>&-
    if [[ $RC -eq 2 ]]; then
        pass "errors_stop_the_run_at_once: (echo bad; input kept open) | $label -> 2, not waiting for more"
    else
        fail "errors_stop_the_run_at_once: (echo bad; input kept open) | $label -> 2, not waiting for more" \
            "exit $RC (124: still waiting after 120 s); stderr: $(err_line)"
    fi
}
for threads in 1 2; do
    stop_check "dedup -t $threads --key u64" dedup -t $threads --key u64 "$T/stop-input"
    stop_check "dedup -t $threads --state (u64)" dedup -t $threads --state "$T/filters/numbers.bf" "$T/stop-input"
    stop_check "check -t $threads (u64)" check -t $threads "$T/filters/numbers.bf" "$T/stop-input"
    stop_check "subtract -t $threads --key u64 (A streamed)" subtract -t $threads --key u64 "$T/stop-input" "$T/numbers.txt"
    stop_check "intersect -t $threads --key u64 (B streamed)" intersect -t $threads --key u64 "$T/numbers.txt" "$T/stop-input"
    stop_check "add -t $threads (a counting filter, u64)" add -t $threads "$T/filters/numbers-counting.bf" "$T/stop-input"
    stop_check "build -t $threads --key u64 -n 1000" build -t $threads --key u64 -n 1000 -o "$NEW" "$T/stop-input"
    # Without -n build counts its input first; a line that is no number is known all the same.
    stop_check "build -t $threads --key u64 (no -n)" build -t $threads --key u64 -o "$NEW" "$T/stop-input"
done
stop_check "add (a Bloom filter, in place, u64)" add "$T/filters/numbers.bf" "$T/stop-input"
stop_check "remove (u64)" remove "$T/filters/numbers-counting.bf" "$T/stop-input"

# A signal ignored when bloomkit starts stays ignored: `nohup bloomkit …` survives the hangup.
# The SIGHUP is sent once bloomkit has set up its signal handling: /proc/PID/status then shows
# it ignoring SIGXFSZ (SigIgn bit 24), which it does after it has handled SIGINT, SIGTERM and
# SIGHUP (neither nohup nor the shell ignores it).
need_keys
mkfifo "$T/hup-fifo"
nohup "$B" dedup <"$T/hup-fifo" >"$T/hup.out" 2>/dev/null &
hup_pid=$!
exec 4>"$T/hup-fifo"
echo first >&4
# handlers_set PID: the process PID ignores SIGXFSZ (or has ended).
handlers_set() {
    local ignored
    gone "$1" && return 0
    ignored=$(awk '$1 == "SigIgn:" { print $2 }' "/proc/$1/status" 2>/dev/null)
    [[ -n $ignored ]] && (((16#$ignored >> 24) & 1))
}
wait_until handlers_set $hup_pid || fail "nohup bloomkit: its signal handling set up" "not after $WAIT_SECONDS s"
kill -HUP $hup_pid 2>/dev/null
echo second >&4
exec 4>&-
{ wait $hup_pid; } 2>/dev/null
RC=$?
check_rc "nohup bloomkit: SIGHUP is ignored, the job ends normally" 0
check_eq "nohup bloomkit: every line written" "first second" "$(tr '\n' ' ' <"$T/hup.out" | sed 's/ $//')"

# Progress goes to stderr's terminal for work that writes no data on stdout (build, add), even
# when stdout is that same terminal; a job whose lines go to that terminal draws none among them.
# Never in a log, unless --progress: then a line a second. (script(1) gives the command a terminal.)
need_keys
if command -v script >/dev/null; then
    script -qec "'$B' build -n $N -o '$T/progress.bf' '$KEYS'" /dev/null >"$T/tty.out" 2>&1
    check_cond "progress_on_a_terminal: build shows it" "got: $(head -c 200 "$T/tty.out")" grep -q "adding" "$T/tty.out"
    script -qec "'$B' dedup '$KEYS'" /dev/null >"$T/tty.out" 2>&1
    check_cond "progress_on_a_terminal: not among dedup's lines" "got: $(grep -a -m1 deduplicating "$T/tty.out")" \
        bash -c "! grep -aq deduplicating '$T/tty.out'"
else
    echo "# skipped: progress on a terminal (no script(1))"
fi
run "$B" build -n $N -o "$T/progress.bf" "$KEYS"
check_cond "progress_never_in_a_log" "stderr: $(err_line)" bash -c "! grep -q adding '$ERR'"
# The line is due once a second has gone by since the job started adding, at the next lines it
# adds: half the lines go through a FIFO (more than a pipe holds, so once they are written the
# build is adding), then after a pause of more than a second the rest. However slow or fast the
# machine, the rest comes more than a second after the build started adding.
mkfifo "$T/progress-input"
"$B" build --progress -n $N -o "$T/progress.bf" <"$T/progress-input" >"$OUT" 2>"$ERR" &
pid=$!
exec 5>"$T/progress-input"
head -n 50000 "$KEYS" >&5
sleep 1.5
tail -n +50001 "$KEYS" >&5
exec 5>&-
{ wait $pid; } 2>/dev/null
RC=$?
check_rc "progress_in_a_log_with_--progress: build exits 0" 0
check_cond "progress_in_a_log_with_--progress: a line of its own" "stderr: $(err_line)" grep -q "^bloomkit: adding" "$ERR"

# --memory alone sizes dedup's filter for the input's lines (counted first, stdin spooled).
need_keys
run "$B" dedup --memory 1M "$KEYS" "$KEYS"
check_rc "dedup_memory_alone -> 0" 0
check_eq "dedup_memory_alone: each line once" "$N" "$(lines_of "$OUT")"
run bash -c "cat '$KEYS' '$KEYS' | '$B' dedup --memory 1M"
check_eq "dedup_memory_alone from stdin: each line once" "$N" "$(lines_of "$OUT")"

finish
