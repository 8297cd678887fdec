#!/usr/bin/env bash
# tests/cli/readers.sh — a command reading a filter never answers from a file that changed under
# it: truncated or rewritten in place by another tool, it says so and exits 2; replaced by a
# rename (as bloomkit's own writers do), it keeps answering from the file it opened; updated in
# place by bloomkit add, it waits out each commit and answers from the whole file.
#
#   bash tests/cli/readers.sh /path/to/bloomkit
#
# The lines come through a FIFO, so the filter can be changed at a known moment: after check has
# opened it and answered the first lines, before it reads the rest.
source "$(dirname "$0")/lib.sh" "$@"

need_keys
need_keys_filter
R=$T/r
mkdir "$R"
mkfifo "$R/lines"

# has_open PID FILE: the process PID has FILE open (or mapped).
has_open() {
    local fd
    for fd in /proc/"$1"/fd/*; do [[ $(readlink "$fd" 2>/dev/null) == "$2" ]] && return 0; done
    grep -qF " $2" "/proc/$1/maps" 2>/dev/null
}
open_or_gone() { has_open "$@" || gone "$1"; }

# check_while FILTER CHANGE...: runs check FILTER on KEYS fed through the FIFO, running CHANGE
# (a command) once check has the first half of the lines (more than a pipe holds: once they
# are written, check is reading them, the filter open); sets RC, $OUT and $ERR.
check_while() {
    local filter=$1
    shift
    "$B" check --no-verify "$filter" "$R/lines" >"$OUT" 2>"$ERR" &
    local pid=$!
    exec 3>"$R/lines"
    head -n 50000 "$KEYS" >&3
    wait_until open_or_gone $pid "$(readlink -f "$filter")"
    "$@"
    tail -n +50001 "$KEYS" >&3
    exec 3>&-
    wait $pid
    RC=$?
}

cp "$F" "$R/truncated.bf"
check_while "$R/truncated.bf" truncate -s 4096 "$R/truncated.bf"
check_rc "filter_truncated_while_checking -> 2" 2
check_in "filter_truncated_while_checking says the file was truncated or rewritten" "$ERR" "truncated or rewritten in place"
check_in "filter_truncated_while_checking names the file" "$ERR" "$R/truncated.bf"

cp "$F" "$R/rewritten.bf"
size=$(stat -c %s "$R/rewritten.bf")
check_while "$R/rewritten.bf" dd if=/dev/zero of="$R/rewritten.bf" bs=4096 seek=1 count=$(((size - 4096) / 4096)) \
    conv=notrunc status=none
check_rc "filter_rewritten_in_place_while_checking -> 2" 2
check_in "filter_rewritten_in_place_while_checking says the file changed" "$ERR" "changed while it was being read"

cp "$F" "$R/replaced.bf"
need_others
check_while "$R/replaced.bf" "$B" build -n 200000 -o "$R/replaced.bf" "$OTHERS"
check_rc "filter_replaced_by_rename_while_checking: check exits 0" 0
check_eq "filter_replaced_by_rename_while_checking: every line found in the file it opened" $N "$(lines_of "$OUT")"

cp "$F" "$R/info.bf"
run "$B" info --verify "$R/info.bf"
check_rc "info --verify of an unchanged file exits 0" 0

# readers_see_in_place_adds_whole: a loop of small adds (3 lines each) updates a Bloom filter of
# 30 MB in place while check and info --verify read it, 20 times each at least: the readers start
# once the first add is done, and go on until 5 adds are, however the machine shares its time
# between them. An update in place is one short commit under an exclusive lock, which readers
# wait out: every reader exits 0, says nothing on stderr (no "corrupt", "interrupted" or "changed
# while it was being read"), and finds every line added before it started.
RA=$R/adds.bf
fixture_build "adds.bf" "$RA" -n 25M -o "$RA" "$KEYS"
echo 0 >"$R/added"
(
    i=0
    while [[ -d $R && ! -e $R/stop-adds && $i -lt 100000 ]]; do
        i=$((i + 1))
        printf 'added-%d-1\nadded-%d-2\nadded-%d-3\n' $i $i $i | "$B" add "$RA" 2>>"$R/adds.err" ||
            echo "add $i exited $?" >>"$R/adds.err"
        echo $i >"$R/added.tmp" && mv "$R/added.tmp" "$R/added"   # the adds done, as one write
    done
) &
adder=$!
reader_failures=0
reader_fail() {
    reader_failures=$((reader_failures + 1))
    [[ $reader_failures -le 5 ]] && echo "# reader run $1: $2"
}
adds_done() { test "$(<"$R/added")" -ge "$1"; }
wait_until adds_done 1 || fail "readers_see_in_place_adds_whole: the first add" "not done after $WAIT_SECONDS s"
readers_deadline=$((SECONDS + WAIT_SECONDS))
for ((r = 1; r <= 20 || ($(<"$R/added") < 5 && SECONDS < readers_deadline); r++)); do
    done_adds=$(<"$R/added")
    awk -v n="$done_adds" 'BEGIN { for (i = 1; i <= n; i++) printf "added-%d-1\nadded-%d-2\nadded-%d-3\n", i, i, i }' \
        >"$R/added-before.txt"
    "$B" check --count "$RA" "$R/added-before.txt" "$KEYS" >"$R/check.out" 2>"$R/check.err"
    rc=$?
    [[ $rc -eq 0 ]] || reader_fail $r "check exited $rc: $(head -c 200 "$R/check.err")"
    [[ -s $R/check.err ]] && reader_fail $r "check said on stderr: $(head -c 200 "$R/check.err")"
    present=$(count_of "$R/check.out" present)
    [[ $rc -ne 0 || $present == $((3 * done_adds + N)) ]] ||
        reader_fail $r "check found $present of the $((3 * done_adds + N)) lines added before it started"
    "$B" info --verify "$RA" >"$R/info.out" 2>"$R/info.err"
    rc=$?
    [[ $rc -eq 0 ]] || reader_fail $r "info --verify exited $rc: $(head -c 200 "$R/info.err")"
    [[ -s $R/info.err ]] && reader_fail $r "info --verify said on stderr: $(head -c 200 "$R/info.err")"
    [[ $rc -ne 0 ]] || grep -q 'checksum verified' "$R/info.out" || reader_fail $r "info --verify did not say verified"
    "$B" check --no-verify "$RA" <(echo key-1) >/dev/null 2>"$R/mapped.err"
    rc=$?
    [[ $rc -eq 0 && ! -s $R/mapped.err ]] || reader_fail $r "check --no-verify exited $rc: $(head -c 200 "$R/mapped.err")"
done
touch "$R/stop-adds"
wait $adder
check_cond "readers_see_in_place_adds_whole: the adds ran meanwhile (and exited 0)" \
    "$(<"$R/added") adds; $(head -c 200 "$R/adds.err" 2>/dev/null)" \
    test "$(<"$R/added")" -ge 5 -a ! -s "$R/adds.err"
check_eq "readers_see_in_place_adds_whole: 20 runs or more of check and of info --verify, every one exit 0, silent, finding every line added before it" \
    0 $reader_failures
run "$B" info --verify "$RA"
check_rc "readers_see_in_place_adds_whole: the file verifies after the adds" 0

finish
