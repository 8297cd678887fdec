#!/usr/bin/env bash
# tests/cli/writers.sh — the commands that write a filter file never lose a key and never leave
# a half-written file: inputs that are not regular files, concurrent writers and the lock,
# symlinks and special files, permissions, signals and kill -9, full disks and file-size limits.
#
#   bash tests/cli/writers.sh /path/to/bloomkit
#
# The crash test makes BLOOMKIT_CRASH_TRIALS trials (default 50; `make test CRASH_TRIALS=500`).
# Harness, test data and fixtures: lib.sh.
CRASH_TRIALS=${BLOOMKIT_CRASH_TRIALS:-50}
source "$(dirname "$0")/lib.sh" "$@"

need_keys
need_others
need_keys_filter
need_key_halves
W=$T/w
mkdir "$W"

# every_line_found NAME FILTER LINES: check finds every line of LINES.
every_line_found() {
    run "$B" check --count "$2" "$3"
    check_eq "$1" "$(lines_of "$3")" "$(count_of "$OUT" present)"
}

# ---------------------------------------------------------------------------------------------
# Inputs that are not regular files are read once, and counted from a spooled copy

run "$B" build -o "$W/procsub.bf" <(cat "$KEYS")
check_rc "build_from_process_substitution_without_n exits 0" 0
every_line_found "build_from_process_substitution_without_n: every line found" "$W/procsub.bf" "$KEYS"
run "$B" info --json "$W/procsub.bf"
check_eq "build_from_process_substitution_without_n: sized for the lines" $N "$(json_value "$OUT" expected_keys)"

run "$B" build -o "$W/devstdin.bf" /dev/stdin <"$KEYS"
check_rc "build_from_dev_stdin_without_n exits 0" 0
every_line_found "build_from_dev_stdin_without_n: every line found" "$W/devstdin.bf" "$KEYS"

mkfifo "$W/fifo"
(cat "$KEYS" >"$W/fifo" &)
run timeout 60 "$B" build -o "$W/fifo.bf" "$W/fifo"
check_rc "build_from_fifo_without_n exits 0 (and does not hang)" 0
every_line_found "build_from_fifo_without_n: every line found" "$W/fifo.bf" "$KEYS"

(cat "$KEYS" >"$W/fifo" &)
run timeout 60 "$B" build --kind counting -o "$W/fifo-counting.bf" "$W/fifo"
check_rc "build_from_fifo_without_n --kind counting exits 0" 0
every_line_found "build_from_fifo_without_n --kind counting: every line found" "$W/fifo-counting.bf" "$KEYS"

# ---------------------------------------------------------------------------------------------
# A filter given where lines are expected

expect_error "input_that_is_a_filter_is_refused (add)" "merge" "$B" add "$F" "$F"
expect_error "input_that_is_a_filter_is_refused (build)" "merge" "$B" build -o "$W/from-filter.bf" "$F"
check_cond "... and build creates no file" "file created" test ! -e "$W/from-filter.bf"
expect_error "input_that_is_a_filter_is_refused (check, from stdin)" "merge" "$B" check "$F" - <"$F"

# ---------------------------------------------------------------------------------------------
# Concurrent writers: the lock

for trial in 1 2 3; do
    cp "$F" "$W/shared.bf"
    "$B" add "$W/shared.bf" "$T/keys-a.txt" 2>"$W/add-a.err" &
    pid_a=$!
    "$B" add "$W/shared.bf" "$OTHERS" 2>"$W/add-b.err" &
    pid_b=$!
    wait $pid_a; rc_a=$?
    wait $pid_b; rc_b=$?
    check_cond "concurrent_adds_both_survive (trial $trial): both exit 0" "exits $rc_a, $rc_b" test $rc_a -eq 0 -a $rc_b -eq 0
    every_line_found "concurrent_adds_both_survive (trial $trial): the first add's lines" "$W/shared.bf" "$T/keys-a.txt"
    every_line_found "concurrent_adds_both_survive (trial $trial): the second add's lines" "$W/shared.bf" "$OTHERS"
done

cp "$F" "$W/locked.bf"
flock "$W/locked.bf" sleep 4 &
holder=$!
sleep 0.5
expect_error "writer_lock_no_wait_fails_at_once" "another bloomkit" "$B" add --no-wait "$W/locked.bf" "$OTHERS"
run "$B" add "$W/locked.bf" "$OTHERS"
check_rc "writer_lock_waits_for_the_holder: add exits 0 once the lock is free" 0
check_in "writer_lock_waits_for_the_holder: says it is waiting" "$ERR" "waiting for another bloomkit"
wait $holder
every_line_found "writer_lock_waits_for_the_holder: the lines are in" "$W/locked.bf" "$OTHERS"
expect_error "writer_lock_no_wait (build -o onto a locked file)" "another bloomkit" \
    bash -c "flock '$W/locked.bf' sleep 2 & sleep 0.5; '$B' build --no-wait -n 10 -o '$W/locked.bf' '$KEYS'"
wait

# ---------------------------------------------------------------------------------------------
# Symlinks, special files, permissions, paths

cp "$F" "$W/real.bf"
ln -s real.bf "$W/link.bf"
run "$B" add "$W/link.bf" "$OTHERS"
check_rc "add_through_symlink exits 0" 0
check_cond "add_through_symlink keeps the link" "not a link" test -L "$W/link.bf"
every_line_found "add_through_symlink updates the real file" "$W/real.bf" "$OTHERS"
run "$B" build -n 1000 -o "$W/link.bf" "$T/keys-b.txt"
check_rc "build_onto_symlink exits 0" 0
check_cond "build_onto_symlink keeps the link" "not a link" test -L "$W/link.bf"
every_line_found "build_onto_symlink replaces the real file" "$W/real.bf" "$T/keys-b.txt"

expect_error "output_onto_device_is_refused (-o /dev/null)" "regular" "$B" build -n 10 -o /dev/null "$KEYS"
check_cond "output_onto_device_is_refused: /dev/null is still a device" "not a device" test -c /dev/null
expect_error "output_onto_fifo_is_refused" "FIFO" "$B" build -n 10 -o "$W/fifo" "$KEYS"
check_cond "output_onto_fifo_is_refused: the FIFO is still a FIFO" "not a FIFO" test -p "$W/fifo"
expect_error "output_onto_directory_is_refused (-o dir/)" "$W/" "$B" build -n 10 -o "$W/" "$KEYS"
expect_error "output_into_missing_directory names the path typed" "$W/no/such/f.bf" \
    "$B" build -n 10 -o "$W/no/such/f.bf" "$KEYS"
run "$B" build -n 10 -o - "$KEYS"
check_rc "output_dash_writes_stdout exits 0" 0
check_cond "output_dash_writes_stdout: no file named '-'" "a file '-' exists" test ! -e ./-
check_cond "output_dash_writes_stdout: stdout holds a filter" "not a filter" \
    bash -c "'$B' info - <'$OUT' >/dev/null"

cp "$F" "$W/mode.bf"
chmod 640 "$W/mode.bf"
run "$B" add "$W/mode.bf" "$OTHERS"
check_eq "replaced_file_keeps_its_mode" 640 "$(stat -c %a "$W/mode.bf")"

if [[ $(id -u) -eq 0 ]] && id nobody >/dev/null 2>&1; then
    # As root the permission check must be made by another user: nobody, in a directory it may
    # write, on a file it may not.
    P=$T/public
    mkdir -m 0777 "$P"
    chmod 0755 "$T"
    cp "$F" "$P/root-owned.bf"
    chmod 0644 "$P/root-owned.bf"
    before=$(cksum <"$P/root-owned.bf")
    run setpriv --reuid=nobody --regid=nogroup --clear-groups "$B" add "$P/root-owned.bf" "$OTHERS"
    check_cond "unwritable_file_is_refused -> 2 (like cp)" "exit $RC; stderr: $(err_line)" test $RC -eq 2
    check_in "unwritable_file_is_refused: says why" "$ERR" "permission denied"
    check_eq "unwritable_file_is_refused: the file is untouched" "$before" "$(cksum <"$P/root-owned.bf")"
    no_temp_files "unwritable_file_is_refused: no temporary file left" "$P"
    chmod 0700 "$T"
else
    cp "$F" "$W/readonly.bf"
    chmod 0444 "$W/readonly.bf"
    expect_error "unwritable_file_is_refused -> 2 (like cp)" "permission denied" "$B" add "$W/readonly.bf" "$OTHERS"
fi

# ---------------------------------------------------------------------------------------------
# File-size limit and full disk: a message naming the file, exit 2, nothing left behind

run bash -c "ulimit -f 64; exec '$B' build -n 1e6 -o '$W/too-big.bf' '$KEYS'"
check_cond "file_size_limit_is_an_error (ulimit -f) -> 2" "exit $RC" test $RC -eq 2
check_in "file_size_limit_is_an_error names the file" "$ERR" "cannot write '$W/too-big.bf'"
check_in "file_size_limit_is_an_error says why" "$ERR" "file too large"
check_cond "file_size_limit_is_an_error: no file" "file created" test ! -e "$W/too-big.bf"
no_temp_files "file_size_limit_is_an_error: no temporary file left" "$W"

if unshare -rm true 2>/dev/null; then
    # A counting filter: it is rewritten (a Bloom filter's add in place needs no new space).
    mkdir "$W/small-disk"
    need_kind_filter counting
    cp "$T/filters/kind-counting.bf" "$W/small.bf"
    run unshare -rm bash -c "mount -t tmpfs -o size=$(($(stat -c %s "$W/small.bf") * 3 / 2)) none '$W/small-disk' && cp '$W/small.bf' '$W/small-disk/f.bf' &&
        '$B' add '$W/small-disk/f.bf' '$OTHERS'; rc=\$?; cmp -s '$W/small.bf' '$W/small-disk/f.bf' || rc=99;
        ls -a '$W/small-disk' | grep -c tmp- >&2; exit \$rc"
    check_cond "full_disk_is_an_error -> 2, the old file intact" "exit $RC; stderr: $(err_line)" test $RC -eq 2
    check_in "full_disk_is_an_error says why" "$ERR" "no space left on device"
    check_cond "full_disk_is_an_error: no temporary file left" "stderr: $(tail -n 1 "$ERR")" test "$(tail -n 1 "$ERR")" = 0
else
    echo "# skipped: full_disk_is_an_error (no user namespaces to mount a small tmpfs)"
fi

# ---------------------------------------------------------------------------------------------
# Threads

run timeout 30 "$B" build -t 100000 -o "$W/threads.bf" "$KEYS"
check_cond "thread_count_is_capped: -t 100000 -> 2 at once" "exit $RC" test $RC -eq 2
check_in "thread_count_is_capped: names the limit" "$ERR" "at most"
run timeout 30 bash -c "ulimit -u 1; exec '$B' add -t 4 '$W/real.bf' '$OTHERS'"
check_cond "failed_thread_start_is_an_error_not_a_hang -> 2 (or 0 if the threads started)" "exit $RC" \
    test $RC -eq 2 -o $RC -eq 0

# ---------------------------------------------------------------------------------------------
# Signals and kill -9: the target is the old file or the complete new one, and nothing is left

# An add into a Bloom filter updates it in place; interrupted, the file holds every key it held
# before and either verifies or says that an update was interrupted, and the next add seals it
# again. A rewrite (here: a counting filter) leaves the old file or the complete new one.
need_kind_filter counting
for signal in TERM INT HUP; do
    for target in "$F" "$T/filters/kind-counting.bf"; do
        cp "$target" "$W/signal.bf"
        before=$(cksum <"$W/signal.bf")
        "$B" add "$W/signal.bf" "$OTHERS" "$OTHERS" "$OTHERS" 2>/dev/null &
        pid=$!
        sleep 0.05
        kill -s $signal $pid 2>/dev/null
        wait $pid
        label="interrupted_add_loses_no_key (SIG$signal, $(basename "$target"))"
        run "$B" info --verify "$W/signal.bf"
        check_cond "$label: verifies, or says an update was interrupted" "exit $RC; $(err_line)" \
            test $RC -eq 0 -o \( $RC -eq 2 -a -n "$(grep -l 'update in place was interrupted' "$ERR")" \)
        run "$B" check --no-verify --count "$W/signal.bf" "$KEYS"
        check_eq "$label: every key it held is found" $N "$(count_of "$OUT" present)"
        if [[ $(cksum <"$W/signal.bf") != "$before" && $target != "$F" ]]; then
            run "$B" check --count "$W/signal.bf" "$OTHERS"
            check_eq "$label: a rewritten file is the complete new one" $N "$(count_of "$OUT" present)"
        fi
        run "$B" add "$W/signal.bf" /dev/null
        run "$B" info --verify "$W/signal.bf"
        check_rc "$label: the next add seals it again" 0
        no_temp_files "$label: no temporary file left" "$W"
    done
done

# The crash test: kill -9 at random moments of build, of add in place (a Bloom filter) and of
# add by rewrite (a counting filter). Afterwards every key the file held is there, the file
# verifies (or, after an add in place, says the update was interrupted, and the next add seals
# it), a rewritten file is the old one or the complete new one, and no temporary is left.
crash_failures=0 crash_new=0 crash_interrupted=0
crash_fail() {
    crash_failures=$((crash_failures + 1))
    echo "# crash trial $1: $2"
}
for ((trial = 1; trial <= CRASH_TRIALS; trial++)); do
    case $((trial % 3)) in
        0) target=$F; cp "$F" "$W/crash.bf"; "$B" add "$W/crash.bf" "$OTHERS" 2>/dev/null & ;;
        1) target=$T/filters/kind-counting.bf; cp "$target" "$W/crash.bf"; "$B" add "$W/crash.bf" "$OTHERS" 2>/dev/null & ;;
        2) target=$F; cp "$F" "$W/crash.bf"; "$B" build -n 200000 -o "$W/crash.bf" "$OTHERS" "$KEYS" 2>/dev/null & ;;
    esac
    pid=$!
    before=$(cksum <"$target")
    sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    if ! "$B" info --verify "$W/crash.bf" >/dev/null 2>"$W/crash-err"; then
        if grep -q 'update in place was interrupted' "$W/crash-err"; then
            crash_interrupted=$((crash_interrupted + 1))
            "$B" add "$W/crash.bf" /dev/null 2>/dev/null
            "$B" info --verify "$W/crash.bf" >/dev/null 2>&1 || crash_fail $trial "an interrupted add was not sealed again"
        else
            crash_fail $trial "the file does not verify: $(head -c 160 "$W/crash-err")"
        fi
    fi
    "$B" check --no-verify --count "$W/crash.bf" "$KEYS" >"$W/crash-count" 2>/dev/null
    [[ $(count_of "$W/crash-count" present) == $N ]] || crash_fail $trial "a key the file held is missing"
    if [[ $((trial % 3)) -ne 0 && $(cksum <"$W/crash.bf") != "$before" ]]; then
        crash_new=$((crash_new + 1))
        "$B" check --count "$W/crash.bf" "$OTHERS" >"$W/crash-count" 2>/dev/null
        [[ $(count_of "$W/crash-count" present) == $N ]] || crash_fail $trial "a new file that misses keys"
    fi
    left=$(cd "$W" && compgen -G '.*.tmp-*' | head -n 1)
    if [[ -n $left ]]; then
        crash_fail $trial "left behind $left"
        rm -f "$W"/.*.tmp-*
    fi
done
echo "# crash test: $CRASH_TRIALS trials; $crash_new rewrites killed after the new file was in place;" \
    "$crash_interrupted adds in place interrupted"
check_eq "kill_9_at_random_moments: $CRASH_TRIALS trials, no key lost, every file verified or sealed again, no temporary left" \
    0 "$crash_failures"

finish
