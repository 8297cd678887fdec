#!/usr/bin/env bash
# tests/cli/readers.sh — a command reading a filter never answers from a file that changed under
# it: truncated or rewritten in place by another tool, it says so and exits 2; replaced by a
# rename (as bloomkit's own writers do), it keeps answering from the file it opened.
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

# check_while FILTER CHANGE...: runs check FILTER on KEYS fed through the FIFO, running CHANGE
# (a command) once check has the first half of the lines; sets RC, $OUT and $ERR.
check_while() {
    local filter=$1
    shift
    "$B" check --no-verify "$filter" "$R/lines" >"$OUT" 2>"$ERR" &
    local pid=$!
    exec 3>"$R/lines"
    head -n 50000 "$KEYS" >&3
    sleep 0.3
    "$@"
    tail -n +50001 "$KEYS" >&3
    exec 3>&-
    wait $pid
    RC=$?
}

cp "$F" "$R/truncated.bf"
check_while "$R/truncated.bf" truncate -s 4096 "$R/truncated.bf"
check_rc "filter_truncated_while_checking -> 2" 2
check_in "filter_truncated_while_checking says the file changed" "$ERR" "changed while it was being read"
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

finish
