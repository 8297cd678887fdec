#!/usr/bin/env bash
# tests/cli/plan.sh — end-to-end test of `bloomkit plan`: the table, --json, argument errors.
#
#   bash tests/cli/plan.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

# ---------------------------------------------------------------------------------------------
# plan

run "$B" plan -n 50e9 -p 0.01
check_rc "plan -n 50e9 -p 0.01 exits 0" 0
classic=$(awk '$1 == "bloom" && $2 == "--layout" && $3 == "classic"' "$OUT")
check_cond "plan: classic layout needs 59.96 GB for 50e9 keys at 1%" "classic line: '$classic'" \
    test "${classic#*59.96 GB}" != "$classic"
check_cond "plan: all layouts listed (block)" "no 'bloom ' row" grep -q '^bloom  ' "$OUT"
check_in "plan: all layouts listed (split-block)" "$OUT" "bloom --layout split-block"
for kind in counting cuckoo scalable fuse; do
    check_cond "plan: a row for --kind $kind, with its memory" "no '$kind' row: $(head -c 200 "$OUT")" \
        awk -v k="$kind" '$1 == k && / [kMGT]?B / { found = 1 } END { exit !found }' "$OUT"
done
check_in "plan: a row for fuse --arity 4" "$OUT" "fuse --arity 4 "
check_in "plan: key count echoed" "$OUT" "50000000000 keys"

run "$B" plan -n 50e9 -p 0.01 --json
check_rc "plan --json exits 0" 0
check_in "plan --json has a \"kinds\" array" "$OUT" '"kinds": ['
# Kinds are spelled as build takes them: plan's rows can be pasted into a build command.
for kind in bloom "bloom --layout classic" "bloom --layout split-block" counting cuckoo scalable fuse "fuse --bits 16" \
    "fuse --arity 4" "fuse --bits 16 --arity 4"; do
    check_eq "plan --json has kind '$kind', possible" true "$(plan_value "$kind" possible)"
done
check_eq "plan --json: 10 kinds in all, one per filter type" 10 "$(awk '{ n += gsub(/"kind": /, "") } END { print n + 0 }' "$OUT")"
check_eq "plan --json classic bytes 59955966982" 59955966982 "$(plan_value "bloom --layout classic" bytes)"
check_eq "plan --json: fuse has 8-bit fingerprints at 1%" f=8 "$(plan_value fuse probes)"
check_eq "plan --json: counting can delete" "adds, deletes" "$(plan_value counting abilities)"
check_eq "plan --json: scalable can grow" "adds, grows" "$(plan_value scalable abilities)"
check_eq "plan --json: fuse is static" static "$(plan_value fuse abilities)"

run "$B" plan -n 1000 -p 1e-6 --json
check_rc "plan -p 1e-6 (beyond a fuse filter) exits 0" 0
check_eq "plan -p 1e-6: fuse is not possible" false "$(plan_value fuse possible)"
check_cond "plan -p 1e-6: the fuse entry says why" "why: '$(plan_value fuse why)'" test -n "$(plan_value fuse why)"
check_eq "plan -p 1e-6: bloom block still possible" true "$(plan_value bloom possible)"
run "$B" plan -n 1000 -p 1e-6
check_rc "plan -p 1e-6 table exits 0" 0
check_in "plan -p 1e-6 table: the fuse row says why not" "$OUT" "1/65536"

expect_success "plan -n 1 -p 1e-3 (smallest sensible) exits 0" "$B" plan -n 1 -p 1e-3
expect_success "plan --keys 1000000 --fpp 0.001 (long options)" "$B" plan --keys 1000000 --fpp 0.001

expect_error "plan -n 0 -> 2" "-n" "$B" plan -n 0 -p 0.01
expect_error "plan -n -5 -> 2" "-n" "$B" plan -n -5 -p 0.01
expect_error "plan -n abc -> 2" "abc" "$B" plan -n abc -p 0.01
expect_error "plan -n 1.5 -> 2" "1.5" "$B" plan -n 1.5 -p 0.01
expect_error "plan -n 1e30 (over 2^64) -> 2" "-n" "$B" plan -n 1e30 -p 0.01
expect_error "plan -n inf -> 2" "-n" "$B" plan -n inf -p 0.01
expect_error "plan -p 0 -> 2" "-p" "$B" plan -n 1000 -p 0
expect_error "plan -p 1 -> 2" "-p" "$B" plan -n 1000 -p 1
expect_error "plan -p nan -> 2" "nan" "$B" plan -n 1000 -p nan
expect_error "plan -p 2 -> 2" "-p" "$B" plan -n 1000 -p 2
expect_error "plan -p abc -> 2" "abc" "$B" plan -n 1000 -p abc
expect_error "plan -p -0.5 -> 2" "-p" "$B" plan -n 1000 -p -0.5
expect_error "plan without -n -> 2" "keys" "$B" plan -p 0.01

finish
