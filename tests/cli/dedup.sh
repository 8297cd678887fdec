#!/usr/bin/env bash
# tests/cli/dedup.sh — end-to-end test of `bloomkit dedup`: the first time each line is seen (as
# awk '!seen[$0]++'), --invert, stdin, several and compressed inputs, --state across runs, a
# killed and restarted run, checkpoints while the input is idle, signals, the lock,
# --line-buffered, the summary, the exit status (as grep's: 1 when no line is printed), errors.
#
#   bash tests/cli/dedup.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

D=$T/dedup
mkdir "$D"

# repeats.txt: 3000 lines, 490 distinct (URLs and empty lines), most of them repeated, in an
# irregular order. Exactness: a line is wrongly taken for a repeat with the filter's FPR at the
# moment it comes. The default filter (scalable, its first stage 100000 keys at 0.5%) holds at
# most 490 keys here: its FPR stays below 1e-12, so the expected total over the 490 new lines is
# below 1e-9 and the comparison with awk is exact. Where a filter is sized by -n, -p 1e-6 bounds
# that total to 490 x 1e-6 < 0.001.
REPEATS=$T/repeats.txt
seq 1 3000 | awk '{ v = ($1 * $1) % 997; if (v % 50 == 0) print ""; else print "http://example.com/page-" v }' >"$REPEATS"
awk '!seen[$0]++' "$REPEATS" >"$T/firsts.txt"         # what dedup prints
awk 'seen[$0]++' "$REPEATS" >"$T/repeats-only.txt"     # what dedup --invert prints
DISTINCT=$(lines_of "$T/firsts.txt")
head -n 1500 "$REPEATS" >"$T/repeats-a.txt"
tail -n +1501 "$REPEATS" >"$T/repeats-b.txt"

# fresh_fifo NAME: a new FIFO $D/NAME.
fresh_fifo() { rm -f "$D/$1"; mkfifo "$D/$1"; }

# ---------------------------------------------------------------------------------------------
# The first time each line is seen, in input order

run "$B" dedup "$REPEATS"
check_rc "dedup exits 0" 0
check_same "dedup = awk '!seen[\$0]++' (each line once, first occurrence, input order)" "$T/firsts.txt" "$OUT"

run "$B" dedup --invert "$REPEATS"
check_rc "dedup --invert exits 0" 0
check_same "dedup --invert = awk 'seen[\$0]++' (only the repeats, every time)" "$T/repeats-only.txt" "$OUT"
for threads in 1 2; do
    run "$B" dedup --invert -t $threads "$T/firsts.txt"
    check_rc "dedup --invert -t $threads of lines without a repeat prints nothing: exit 1 (as grep)" 1
    check_cond "dedup --invert -t $threads of lines without a repeat prints nothing" "stdout: $(head -c 100 "$OUT")" \
        test ! -s "$OUT"
done

run "$B" dedup --kind bloom -n 1000 -p 1e-6 "$REPEATS"
check_rc "dedup --kind bloom -n 1000 -p 1e-6 exits 0" 0
check_same "dedup with a fixed Bloom filter = awk" "$T/firsts.txt" "$OUT"
run "$B" dedup -n 1000 -p 1e-6 "$REPEATS"
check_same "dedup -n (a Bloom filter without --kind) = awk" "$T/firsts.txt" "$OUT"
run "$B" dedup --kind scalable -n 100 -p 1e-6 "$REPEATS"
check_same "dedup --kind scalable -n 100 (grows past 100) = awk" "$T/firsts.txt" "$OUT"
run "$B" dedup --memory 64K -p 0.01 "$REPEATS"
check_rc "dedup --memory 64K -p 0.01 exits 0" 0
check_same "dedup --memory 64K -p 0.01 (room for ~52000 keys at 1%; 490 here) = awk" "$T/firsts.txt" "$OUT"
run "$B" dedup --json --memory 64K -p 0.01 "$REPEATS"
bytes=$(json_value "$ERR" filter_bytes)
check_cond "dedup --memory 64K: the filter takes at most 65536 bytes" "filter_bytes '$bytes'" test "${bytes:-999999}" -le 65536
run "$B" dedup --memory 64K -n 1000 "$REPEATS"
check_same "dedup --memory 64K -n 1000 (the rate 64K allows) = awk" "$T/firsts.txt" "$OUT"

run "$B" dedup <"$REPEATS"
check_same "dedup from stdin (no inputs) = awk" "$T/firsts.txt" "$OUT"
run "$B" dedup - <"$REPEATS"
check_same "dedup from stdin ('-') = awk" "$T/firsts.txt" "$OUT"
run "$B" dedup "$T/repeats-a.txt" "$T/repeats-b.txt"
check_same "dedup of two files = awk over their concatenation (repeats across files held back)" "$T/firsts.txt" "$OUT"
run "$B" dedup "$T/repeats-a.txt" - <"$T/repeats-b.txt"
check_same "dedup of a file and stdin ('-') = awk over their concatenation" "$T/firsts.txt" "$OUT"
run "$B" dedup --invert "$T/repeats-a.txt" "$T/repeats-b.txt"
check_same "dedup --invert of two files = awk 'seen[\$0]++' over their concatenation" "$T/repeats-only.txt" "$OUT"

printf 'a\n\nb\n\na' >"$T/no-final-newline.txt"
run "$B" dedup "$T/no-final-newline.txt"
check_eq "dedup: empty lines are a key; a last line without newline is a line" "$(printf 'a\n\nb')" "$(<"$OUT")"

printf '7\n007\n8\n7\n' >"$T/numbers.txt"
run "$B" dedup --key u64 "$T/numbers.txt"
check_eq "dedup --key u64: 7 and 007 are the same key" "$(printf '7\n8')" "$(<"$OUT")"
printf '7\nabc\n8\n' >"$T/bad-numbers.txt"
expect_error "dedup --key u64 with a line that is not a number -> 2" "line 2" "$B" dedup --key u64 "$T/bad-numbers.txt"

need_empty_input
run "$B" dedup "$T/empty.txt"
check_rc "dedup of an empty input exits 1 (no line printed, as grep)" 1
check_cond "dedup of an empty input prints nothing" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
run "$B" dedup </dev/null
check_rc "dedup of an empty stdin exits 1" 1

# Compressed inputs, recognised by their first bytes
gzip -c "$REPEATS" >"$T/repeats.txt.gz"
run "$B" dedup "$T/repeats.txt.gz"
check_rc "dedup of a .gz file exits 0" 0
check_same "dedup of a .gz file = awk over its text" "$T/firsts.txt" "$OUT"
run "$B" dedup <"$T/repeats.txt.gz"
check_same "dedup of gzip data on stdin = awk over its text" "$T/firsts.txt" "$OUT"
if command -v zstd >/dev/null; then
    zstd -q -c "$REPEATS" >"$T/repeats.txt.zst"
    run "$B" dedup --invert "$T/repeats.txt.zst"
    check_same "dedup --invert of a .zst file = awk over its text" "$T/repeats-only.txt" "$OUT"
else
    echo "# skipped: dedup of a .zst file (no zstd)"
fi

# ---------------------------------------------------------------------------------------------
# Threads hash while one inserts and prints in input order: the output does not depend on -t.
# 300000 lines, a third of them repeats, over several of the reader's blocks.

awk 'BEGIN { for (i = 0; i < 300000; i++) printf "url-%d\n", (i * 7919) % 200000 }' >"$T/many.txt"
awk '!seen[$0]++' "$T/many.txt" >"$T/many-firsts.txt"
for kind in bloom scalable; do
    sizing=$([[ $kind == bloom ]] && echo "-n 200000 -p 1e-9" || echo "-p 1e-9")
    for threads in 1 2 5; do
        run "$B" dedup --kind $kind $sizing -t $threads "$T/many.txt"
        check_same "dedup --kind $kind -t $threads = awk" "$T/many-firsts.txt" "$OUT"
    done
    run "$B" dedup --kind $kind $sizing -t 3 --invert - <"$T/many.txt"
    check_same "dedup --kind $kind -t 3 --invert from a pipe = awk's repeats" <(awk 'seen[$0]++' "$T/many.txt") "$OUT"
done

# ---------------------------------------------------------------------------------------------
# The summary: on stderr, human or --json

run "$B" dedup --json "$REPEATS"
check_same "dedup --json: stdout still holds the lines" "$T/firsts.txt" "$OUT"
check_eq "dedup --json: lines_read" 3000 "$(json_value "$ERR" lines_read)"
check_eq "dedup --json: lines_written" "$DISTINCT" "$(json_value "$ERR" lines_written)"
check_eq "dedup --json: new_keys" "$DISTINCT" "$(json_value "$ERR" new_keys)"
run "$B" dedup --json --invert "$REPEATS"
check_eq "dedup --json --invert: lines_written counts the repeats" "$(lines_of "$T/repeats-only.txt")" \
    "$(json_value "$ERR" lines_written)"
check_eq "dedup --json --invert: new_keys still counts the new lines" "$DISTINCT" "$(json_value "$ERR" new_keys)"
run "$B" dedup "$REPEATS"
check_in "dedup: the summary on stderr says the lines read" "$ERR" "3000 lines read"
check_in "dedup: the summary on stderr says the lines written" "$ERR" "$DISTINCT lines written"

# The estimate of new lines wrongly taken for repeats: 20000 distinct lines through a filter
# sized for 10000 at 1% drop ~580 of them (measured: 550-600 over seeds); the estimate, a sum of
# the filter's FPR as the lines came, must be of that order.
seq -f 'key-%.0f' 1 20000 >"$T/keys-20k.txt"
run "$B" dedup --json -n 10000 -p 0.01 "$T/keys-20k.txt"
dropped=$((20000 - $(lines_of "$OUT")))
estimate=$(json_value "$ERR" expected_false_positives)
check_cond "dedup past -n: some new lines are wrongly dropped (the filter is not exact)" "$dropped dropped" test $dropped -gt 100
check_cond "dedup --json: the estimate of wrongly dropped lines is within 2x of the $dropped dropped" \
    "estimate '$estimate'" awk -v e="${estimate:-0}" -v d=$dropped 'BEGIN { exit !(e >= d / 2 && e <= d * 2) }'

# dedup_over_full_says_so: 100,000 distinct lines through a filter sized for 1000 (-n 1000) fill
# it: most new lines are wrongly dropped. dedup warns that the filter holds more than it was
# sized for, and its estimate of the lines wrongly taken for repeats is of the order of those
# dropped (within 2x; never a small number beside them, never nan).
seq -f 'distinct-%.0f' 1 100000 >"$T/distinct-100k.txt"
run "$B" dedup --json -n 1000 "$T/distinct-100k.txt"
check_rc "dedup_over_full_says_so: exits 0" 0
check_in "dedup_over_full_says_so: warns on stderr that the filter was sized for less" "$ERR" "sized for"
dropped=$((100000 - $(lines_of "$OUT")))
estimate=$(json_value "$ERR" expected_false_positives)
check_cond "dedup_over_full_says_so: most new lines were dropped (the test's premise)" "$dropped dropped" test $dropped -gt 50000
check_cond "dedup_over_full_says_so: the --json estimate of wrongly dropped lines is within 2x of the $dropped dropped" \
    "estimate '$estimate'" awk -v e="${estimate:-0}" -v d=$dropped 'BEGIN { exit !(e >= d / 2 && e <= d * 2) }'
check_cond "dedup_over_full_says_so: no nan in the summary" "$(grep -i nan "$ERR" | head -c 200)" \
    bash -c "! grep -qi nan '$ERR'"
run "$B" dedup -n 1000 "$T/distinct-100k.txt"
check_in "dedup_over_full_says_so (text summary): warns that the filter was sized for less" "$ERR" "sized for"
said=$(grep -o '~[0-9.e+]* new lines wrongly taken' "$ERR" | sed 's/^~\([0-9.e+]*\) .*/\1/')
check_cond "dedup_over_full_says_so (text summary): its estimate is within 2x of the $dropped dropped" \
    "stderr: $(grep wrongly "$ERR" | head -c 200)" awk -v e="${said:-0}" -v d=$dropped 'BEGIN { exit !(e >= d / 2 && e <= d * 2) }'

# ---------------------------------------------------------------------------------------------
# --state: the lines seen persist across runs

S=$D/seen.bf
run "$B" dedup --state "$S" "$T/repeats-a.txt"
check_rc "dedup --state (a new file) exits 0" 0
cp "$OUT" "$T/state-run-1.txt"
check_same "dedup --state, first run = awk over its input" <(awk '!seen[$0]++' "$T/repeats-a.txt") "$T/state-run-1.txt"
check_cond "dedup --state creates the state file" "no $S" test -s "$S"
run "$B" info --json "$S"
check_eq "dedup --state: without -n the state is a scalable filter" scalable "$(json_value "$OUT" kind)"
run "$B" dedup --state "$S" "$REPEATS"
check_rc_as_grep "dedup --state, second run exits as grep (0 when it printed a line, 1 when none)"
cp "$OUT" "$T/state-run-2.txt"
awk 'NR == FNR { printed[$0] = 1; next } !($0 in printed) && !seen[$0]++' "$T/state-run-1.txt" "$REPEATS" >"$T/expected.txt"
check_same "dedup --state, second run prints only the lines the first did not, in order" "$T/expected.txt" "$T/state-run-2.txt"
check_same "dedup --state: the two runs together = awk over all the input" "$T/firsts.txt" \
    <(cat "$T/state-run-1.txt" "$T/state-run-2.txt")
run "$B" info --json "$S"
check_eq "dedup --state: the state holds each distinct line once" "$DISTINCT" "$(json_value "$OUT" inserted_keys)"
run "$B" dedup --state "$S" "$REPEATS"
check_rc "dedup --state, third run over the same lines exits 1 (no line printed)" 1
check_cond "dedup --state, third run over the same lines prints nothing" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
run "$B" dedup --invert --state "$S" "$T/repeats-a.txt"
check_same "dedup --invert --state: every line seen before is printed" "$T/repeats-a.txt" "$OUT"
no_temp_files "dedup --state leaves no temporary file" "$D"

run "$B" dedup --state "$D/bloom-state.bf" -n 1000 -p 1e-6 "$T/repeats-a.txt"
run "$B" info --json "$D/bloom-state.bf"
check_eq "dedup --state -n: the state is a Bloom filter" bloom "$(json_value "$OUT" kind)"
check_eq "dedup --state -n: sized for -n" 1000 "$(json_value "$OUT" expected_keys)"
run "$B" dedup --state "$D/bloom-state.bf" "$REPEATS"
check_same "dedup --state with a Bloom filter, second run: only the lines not printed before" "$T/expected.txt" "$OUT"

# A filter made by build is a state: the lines in it are never printed, and dedup adds the rest.
"$B" build -n 1000 -p 1e-6 -o "$D/built.bf" "$T/repeats-a.txt" 2>/dev/null
run "$B" dedup --state "$D/built.bf" "$REPEATS"
check_rc_as_grep "dedup --state with a filter made by build exits as grep"
check_same "dedup --state with a filter made by build: only the lines not in it" "$T/expected.txt" "$OUT"
run "$B" check --count "$D/built.bf" "$T/firsts.txt"
check_eq "dedup --state updates a filter made by build: it now holds every line" "$DISTINCT" "$(count_of "$OUT" present)"

# ---------------------------------------------------------------------------------------------
# --line-buffered: the consumer at the other end of a pipe sees each line at once

fresh_fifo lb-in
fresh_fifo lb-out
"$B" dedup --line-buffered <"$D/lb-in" >"$D/lb-out" 2>/dev/null &
pid=$!
exec 3>"$D/lb-in" 4<"$D/lb-out"
echo "http://example.com/first" >&3
got=""
IFS= read -r -t "$WAIT_SECONDS" -u 4 got
check_eq "--line-buffered: the first line comes out while the input is still open" "http://example.com/first" "$got"
printf 'http://example.com/first\nhttp://example.com/second\n' >&3
got=""
IFS= read -r -t "$WAIT_SECONDS" -u 4 got
check_eq "--line-buffered: a repeat is held back, the next new line comes out at once" "http://example.com/second" "$got"
exec 3>&-
got=""
IFS= read -r -t "$WAIT_SECONDS" -u 4 got
check_eq "--line-buffered: nothing more once the input ends" "" "$got"
exec 4<&-
{ wait $pid; } 2>/dev/null
RC=$?
check_rc "dedup --line-buffered exits 0 at the end of its input" 0

# Without it the output into a pipe is written in blocks (the check above can fail). The line
# cannot come out while the input is open, however long one waits: a second is enough to look.
fresh_fifo lb-in
fresh_fifo lb-out
"$B" dedup <"$D/lb-in" >"$D/lb-out" 2>/dev/null &
pid=$!
exec 3>"$D/lb-in" 4<"$D/lb-out"
echo "http://example.com/first" >&3
got=""
IFS= read -r -t 1 -u 4 got
check_eq "without --line-buffered, into a pipe: the line waits for more (block buffering)" "" "$got"
exec 3>&-
IFS= read -r -t "$WAIT_SECONDS" -u 4 got
check_eq "without --line-buffered: the line comes out when the input ends" "http://example.com/first" "$got"
exec 4<&-
{ wait $pid; } 2>/dev/null

# A first line shorter than a filter file's 8-byte signature (here: a number) comes out at once too.
fresh_fifo lb-in
fresh_fifo lb-out
"$B" dedup --line-buffered --key u64 <"$D/lb-in" >"$D/lb-out" 2>/dev/null &
pid=$!
exec 3>"$D/lb-in" 4<"$D/lb-out"
echo 42 >&3
got=""
IFS= read -r -t "$WAIT_SECONDS" -u 4 got
check_eq "--line-buffered: a short first line (3 bytes) comes out while the input is still open" 42 "$got"
exec 3>&-
cat <&4 >/dev/null
exec 4<&-
{ wait $pid; } 2>/dev/null

# ---------------------------------------------------------------------------------------------
# A run killed (kill -9) and restarted: lines come slowly through a FIFO, checkpoints every 0.2 s;
# the kill comes once a checkpoint holds a line (the FIFO held open until then, the run cannot
# end before it). Whatever the pace, what is checked holds: the pauses between lines only make
# kills between two checkpoints likely.
#
# The state saved at a checkpoint holds only lines already printed (the output is flushed
# before each save); so after a restart on the whole input every line has been printed by one
# of the two runs, and no line printed before the last checkpoint is printed again (lines
# printed after it may be).

# url-N for N in a shuffled order with repeats: 40 lines, the first 20 fed to the killed run.
for i in $(seq 1 40); do echo "http://example.com/url-$(((i * 7) % 25))"; done >"$T/crawl.txt"
head -n 20 "$T/crawl.txt" >"$T/crawl-sent.txt"
awk '!seen[$0]++' "$T/crawl-sent.txt" >"$T/crawl-sent-firsts.txt"
sort -u "$T/crawl.txt" >"$T/crawl-distinct.txt"

# state_holds_a_line STATE: the state saved at a checkpoint holds one of the lines sent at least.
state_holds_a_line() {
    [[ -s $1 ]] && "$B" check "$1" "$T/crawl-sent.txt" 2>/dev/null | grep -q .
}

# killed_and_restarted LABEL OPTIONS...: the test above, dedup run with OPTIONS.
killed_and_restarted() {
    local label=$1
    shift
    local name="killed and restarted dedup --state${*:+ $*} ($label output)" KS=$D/killed-$label.bf
    local P1=$D/killed-$label-1.txt P2=$D/killed-$label-2.txt HELD=$D/killed-$label-held.txt line pid
    fresh_fifo crawl
    "$B" dedup --state "$KS" --checkpoint 0.2 "$@" <"$D/crawl" >"$P1" 2>/dev/null &
    pid=$!
    exec 3>"$D/crawl"
    while IFS= read -r line; do
        printf '%s\n' "$line" >&3
        sleep 0.1
    done <"$T/crawl-sent.txt"
    wait_until state_holds_a_line "$KS" || fail "$name: a checkpoint holding a line" "none after $WAIT_SECONDS s"
    kill -9 $pid 2>/dev/null
    { wait $pid; } 2>/dev/null
    RC=$?
    exec 3>&-
    check_rc "$name: run 1 killed by SIGKILL" 137
    "$B" check "$KS" "$T/crawl-sent.txt" 2>/dev/null | sort -u >"$HELD"
    check_cond "$name: a checkpoint was saved before the kill" "the state holds nothing" test -s "$HELD"
    check_cond "$name: run 1 printed lines in order, each once" "run 1 printed: $(head -c 100 "$P1")" \
        cmp -s "$P1" <(head -n "$(lines_of "$P1")" "$T/crawl-sent-firsts.txt")
    check_eq "$name: every line the saved state holds was printed by run 1 (flushed before the save)" "" \
        "$(comm -23 "$HELD" <(sort -u "$P1") | head -n 3 | tr '\n' ' ')"
    run "$B" dedup --state "$KS" "$T/crawl.txt"
    check_rc "$name: run 2 on the whole input exits 0" 0
    cp "$OUT" "$P2"
    check_eq "$name: no line run 1 printed and the state holds is printed again by run 2" "" \
        "$(comm -12 <(comm -12 <(sort -u "$P1") "$HELD") <(sort -u "$P2") | head -n 3 | tr '\n' ' ')"
    check_eq "$name: every line is printed by one of the two runs" "" \
        "$(comm -23 "$T/crawl-distinct.txt" <(sort -u "$P1" "$P2") | head -n 3 | tr '\n' ' ')"
    no_temp_files "$name: no temporary file left" "$D"
}
killed_and_restarted line-buffered --line-buffered
killed_and_restarted block-buffered

# ---------------------------------------------------------------------------------------------
# dedup_state_is_saved_while_the_input_is_idle: a burst of lines, then the feed stays open and
# sends nothing (a crawler between two bursts). The state is saved within --checkpoint seconds of
# the lines being printed though no more input comes, and the output (block-buffered here: no
# --line-buffered, not a terminal) is flushed before the save; so after kill -9 and a restart no
# line printed is printed again. This shell holds the FIFO open (fd 3), so the run cannot end on
# its own, and polls the state (for up to WAIT_SECONDS) until it holds every line of the burst.

head -n 300 "$REPEATS" >"$T/burst.txt"
awk '!seen[$0]++' "$T/burst.txt" >"$T/burst-firsts.txt"
burst_distinct=$(lines_of "$T/burst-firsts.txt")
for threads in 1 2; do
    name="dedup_state_is_saved_while_the_input_is_idle (-t $threads)"
    IS=$D/idle-$threads.bf
    fresh_fifo idle
    "$B" dedup --state "$IS" --checkpoint 1 -t $threads <"$D/idle" >"$D/idle-$threads.txt" 2>/dev/null &
    pid=$!
    exec 3>"$D/idle"
    cat "$T/burst.txt" >&3
    held=0
    deadline=$((SECONDS + WAIT_SECONDS))
    while ((SECONDS < deadline)); do
        "$B" check --count "$IS" "$T/burst-firsts.txt" >"$D/idle-count.txt" 2>/dev/null
        held=$(count_of "$D/idle-count.txt" present)
        [[ ${held:-0} -eq $burst_distinct ]] && break
        sleep 0.1
    done
    check_eq "$name: the state holds every line of the burst, the feed open and idle" "$burst_distinct" "${held:-0}"
    kill -9 $pid 2>/dev/null
    { wait $pid; } 2>/dev/null
    RC=$?
    exec 3>&-
    check_rc "$name: killed by SIGKILL while its input was open" 137
    check_same "$name: every line the state holds was printed, each once (the output flushed before the save)" \
        "$T/burst-firsts.txt" "$D/idle-$threads.txt"
    run "$B" dedup --state "$IS" "$T/burst.txt"
    check_rc "$name: the restart over the same lines prints none: exit 1" 1
    check_cond "$name: no line printed before the kill is printed again" "printed again: $(head -c 100 "$OUT")" \
        test ! -s "$OUT"
done
no_temp_files "dedup_state_is_saved_while_the_input_is_idle: no temporary file left" "$D"

# ---------------------------------------------------------------------------------------------
# SIGTERM, SIGINT, SIGHUP: the state is saved, the exit code is 128+N

# printed_all_or_gone FILE N PID: FILE holds N lines, or the process PID has ended.
printed_all_or_gone() { { [[ -e $1 ]] && (($(lines_of "$1") >= $2)); } || gone "$3"; }
for sig in TERM INT HUP; do
    SS=$D/signal-$sig.bf
    fresh_fifo signal
    # trap - INT: as from a terminal (bash starts a background command with SIGINT ignored, and
    # bloomkit, like every program, leaves a signal ignored at its start ignored)
    (trap - INT; exec "$B" dedup --json --line-buffered --state "$SS" <"$D/signal" >"$D/signal-$sig.txt" 2>"$D/signal.err") &
    pid=$!
    exec 3>"$D/signal"
    head -n 12 "$T/crawl.txt" >&3
    # Running, its handlers in place, and every line read: the 12 lines are distinct, each
    # printed (--line-buffered) once read. Then at least 0.6 s more, which the summary's seconds
    # must cover however slow the machine.
    wait_until printed_all_or_gone "$D/signal-$sig.txt" 12 $pid ||
        fail "SIG$sig: the 12 lines printed before the signal" "not after $WAIT_SECONDS s"
    sleep 0.6
    kill -s $sig $pid
    { wait $pid; } 2>/dev/null
    RC=$?
    exec 3>&-
    code=$((128 + $(kill -l $sig)))
    check_rc "dedup --state stopped by SIG$sig exits $code" $code
    check_same "SIG$sig: the lines read before the signal were printed, each once" <(head -n 12 "$T/crawl.txt" | awk '!seen[$0]++') \
        "$D/signal-$sig.txt"
    check_eq "SIG$sig: the --json summary counts the lines read" 12 "$(json_value "$D/signal.err" lines_read)"
    check_eq "SIG$sig: the --json summary names the signal" "$(kill -l $sig)" "$(json_value "$D/signal.err" signal)"
    if [[ $sig == TERM ]]; then
        seconds=$(json_value "$D/signal.err" seconds)
        check_cond "SIG$sig: the --json summary's seconds cover the run (over 0.5 s)" "seconds '$seconds'" \
            awk -v s="${seconds:-0}" 'BEGIN { exit !(s >= 0.5) }'
    fi
    run "$B" check --count "$SS" "$D/signal-$sig.txt"
    check_eq "SIG$sig: the state saved holds every line printed" "$(lines_of "$D/signal-$sig.txt")" "$(count_of "$OUT" present)"
    run "$B" dedup --state "$SS" "$T/crawl.txt"
    awk 'NR == FNR { printed[$0] = 1; next } !($0 in printed) && !seen[$0]++' "$D/signal-$sig.txt" "$T/crawl.txt" >"$T/expected.txt"
    check_same "SIG$sig: the restart prints only the lines not printed before" "$T/expected.txt" "$OUT"
done
no_temp_files "signals: no temporary file left" "$D"

# ---------------------------------------------------------------------------------------------
# The writer lock: held on the state for the whole run

# lock_case LABEL: a dedup --state is running on $D/lock-LABEL.bf; a second one with --no-wait is refused.
lock_case() {
    local LS=$D/lock-$1.bf pid
    fresh_fifo lock
    # An output of its own per case: the one of the case before must not pass for this one's.
    "$B" dedup --line-buffered --state "$LS" <"$D/lock" >"$D/lock-$1.out" 2>/dev/null &
    pid=$!
    exec 3>"$D/lock"
    echo "http://example.com/locked" >&3
    wait_for "$D/lock-$1.out" || fail "lock case $1: the first dedup printed nothing within $WAIT_SECONDS s" ""
    expect_error "a second dedup --no-wait on the state of a running one is refused ($1)" "another bloomkit" \
        "$B" dedup --no-wait --state "$LS" "$REPEATS"
    exec 3>&-
    { wait $pid; } 2>/dev/null
}
"$B" dedup --state "$D/lock-existing.bf" </dev/null 2>/dev/null
lock_case existing
lock_case new

# ---------------------------------------------------------------------------------------------
# Errors: exit 2, a message, nothing on stdout, the state untouched

for kind in cuckoo counting fuse bogus; do
    expect_error "dedup --kind $kind is refused" "$kind" "$B" dedup --kind $kind "$REPEATS"
done
# --memory alone: the input's lines are counted first, and the rate is the one the memory allows.
run "$B" dedup --memory 1M "$REPEATS"
check_same "dedup --memory alone (sized for the input's lines) = awk" "$T/firsts.txt" "$OUT"
run "$B" dedup --kind bloom --memory 1M "$REPEATS"
check_same "dedup --kind bloom --memory alone = awk" "$T/firsts.txt" "$OUT"
expect_error "dedup --kind bloom without -n is refused" "-n" "$B" dedup --kind bloom "$REPEATS"
expect_error "dedup --kind scalable --memory is refused (it grows)" "--memory" "$B" dedup --kind scalable --memory 1M -p 0.01 "$REPEATS"
expect_error "dedup -n -p --memory together are refused" "at most two" "$B" dedup -n 1000 -p 0.01 --memory 1M "$REPEATS"
expect_error "dedup with a missing input -> 2" "no-such-input.txt" "$B" dedup "$T/no-such-input.txt"
for seconds in 0 -1 abc; do
    expect_error "dedup --checkpoint $seconds is refused" "--checkpoint" "$B" dedup --state "$D/checkpoint.bf" --checkpoint "$seconds" "$REPEATS"
done
check_cond "a refused --checkpoint creates no state" "state created" test ! -e "$D/checkpoint.bf"

need_text_file
cp "$T/text.bf" "$D/text-state.bf"
expect_error "dedup --state on a file that is not a filter is refused" "not a bloomkit filter" \
    "$B" dedup --state "$D/text-state.bf" "$REPEATS"
check_same "... and leaves it untouched" "$T/text.bf" "$D/text-state.bf"
for kind in counting cuckoo fuse; do
    "$B" build --kind $kind -o "$D/$kind-state.bf" "$T/firsts.txt" 2>/dev/null
    cp "$D/$kind-state.bf" "$D/$kind-before.bf"
    expect_error "dedup --state on a $kind filter is refused" "$kind" "$B" dedup --state "$D/$kind-state.bf" "$REPEATS"
    check_same "... and leaves it untouched ($kind)" "$D/$kind-before.bf" "$D/$kind-state.bf"
done
expect_error "dedup --state '' (an empty name) is refused, not run without a state" "--state" "$B" dedup --state "" "$REPEATS"
mkdir "$D/state-dir"
expect_error "dedup --state onto a directory is refused" "directory" "$B" dedup --state "$D/state-dir" "$REPEATS"
check_cond "... and leaves the directory" "not a directory any more" test -d "$D/state-dir"
expect_error "dedup --state into a missing directory is refused before any line is printed" "$D/no-such-dir" \
    "$B" dedup --state "$D/no-such-dir/seen.bf" "$REPEATS"

# dedup_state_in_an_unwritable_directory_fails_at_once: the state could never be saved, so dedup
# refuses before it reads (or prints) a line, not at its first checkpoint or at the end. Its
# input is a pipe that stays open and sends nothing: a dedup that waited for it would hang
# (until `timeout 120` ends it: exit 124).
# As root the check must be made by another user (nobody).
fresh_fifo unwritable-input
mkdir -m 0755 "$D/read-only"
if [[ $(id -u) -eq 0 ]]; then
    if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
        as_nobody=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
    elif id nobody >/dev/null 2>&1 && su nobody -s /bin/bash -c true 2>/dev/null; then
        as_nobody=(su nobody -s /bin/bash -c '"$0" "$@"')
    else
        as_nobody=()
    fi
else
    chmod 0555 "$D/read-only"
    as_nobody=(env)
fi
if [[ ${#as_nobody[@]} -gt 0 ]]; then
    chmod 0755 "$T"
    chmod 0666 "$D/unwritable-input"
    exec 3<>"$D/unwritable-input"   # a writer that never writes: the pipe stays open
    run timeout 120 "${as_nobody[@]}" "$B" dedup --state "$D/read-only/seen.bf" "$D/unwritable-input"
    exec 3>&-
    chmod 0700 "$T"
    check_rc "dedup_state_in_an_unwritable_directory_fails_at_once: exit 2" 2
    check_cond "dedup_state_in_an_unwritable_directory_fails_at_once: at once, without waiting for input (not the timeout's 124)" \
        "exit $RC" test $RC -ne 124
    check_in "dedup_state_in_an_unwritable_directory_fails_at_once: names the directory" "$ERR" "$D/read-only"
    check_cond "dedup_state_in_an_unwritable_directory_fails_at_once: prints nothing on stdout" \
        "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
    check_cond "dedup_state_in_an_unwritable_directory_fails_at_once: creates no state" "state created" \
        test ! -e "$D/read-only/seen.bf"
else
    echo "# skipped: dedup_state_in_an_unwritable_directory_fails_at_once (root, and no user nobody to run it as)"
fi

cp "$S" "$D/seen-before.bf"
expect_error "dedup --state with an input that fails -> 2" "no-such-input.txt" \
    "$B" dedup --state "$S" "$T/no-such-input.txt"
check_same "... and leaves the state untouched" "$D/seen-before.bf" "$S"
no_temp_files "errors: no temporary file left" "$D"

finish
