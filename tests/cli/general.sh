#!/usr/bin/env bash
# tests/cli/general.sh — end-to-end test of the bloomkit command: usage errors, --help,
# --version, and output errors (a full disk).
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

finish
