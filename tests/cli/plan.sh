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
check_eq "plan --json prints one line" 1 "$(lines_of "$OUT")"
check_eq "plan --json: 11 kinds in all, one per filter type" 11 "$(awk '{ n += gsub(/"flags": /, "") } END { print n + 0 }' "$OUT")"
check_eq "plan --json: an entry names its kind" bloom "$(plan_value "bloom --layout classic" kind)"
check_eq "plan --json classic filter_bytes 59955966982" 59955966982 "$(plan_value "bloom --layout classic" filter_bytes)"
check_eq "plan --json: fuse has 8-bit fingerprints at 1%" 8 "$(plan_value fuse fingerprint_bits)"
check_eq "plan --json: the classic layout has 7 hashes at 1%" 7 "$(plan_value "bloom --layout classic" hashes)"
check_eq "plan --json: counting can delete" '["adds", "deletes"]' "$(plan_value counting abilities)"
check_eq "plan --json: scalable can grow" '["adds", "grows"]' "$(plan_value scalable abilities)"
check_eq "plan --json: fuse is static" '["static"]' "$(plan_value fuse abilities)"

run "$B" plan -n 1000 -p 1e-6 --json
check_rc "plan -p 1e-6 (beyond a fuse filter) exits 0" 0
check_eq "plan -p 1e-6: fuse is not possible" false "$(plan_value fuse possible)"
check_cond "plan -p 1e-6: the fuse entry says why" "why: '$(plan_value fuse why)'" test -n "$(plan_value fuse why)"
check_eq "plan -p 1e-6: bloom block still possible" true "$(plan_value bloom possible)"
run "$B" plan -n 1000 -p 1e-6
check_rc "plan -p 1e-6 table exits 0" 0
check_in "plan -p 1e-6 table: the fuse row says why not" "$OUT" "1/65536"

# plan_at_a_rate_near_1: any rate below 1 is a rate: plan -n 1000 -p 0.999 lists every kind
# (the smallest filter of each), with numbers, never nan.
run "$B" plan -n 1000 -p 0.999
check_rc "plan_at_a_rate_near_1: plan -n 1000 -p 0.999 exits 0" 0
for kind in bloom counting cuckoo scalable fuse; do
    check_cond "plan_at_a_rate_near_1: a row for --kind $kind, with its memory" "no '$kind' row: $(head -c 200 "$OUT")" \
        awk -v k="$kind" '$1 == k && / [kMGT]?B / { found = 1 } END { exit !found }' "$OUT"
done
check_cond "plan_at_a_rate_near_1: no nan in the table" "$(grep -i nan "$OUT" | head -c 200)" bash -c "! grep -qi nan '$OUT'"
run "$B" plan -n 1000 -p 0.999 --json
check_rc "plan_at_a_rate_near_1: plan --json exits 0" 0
check_eq "plan_at_a_rate_near_1: --json lists the 11 kinds" 11 "$(awk '{ n += gsub(/"flags": /, "") } END { print n + 0 }' "$OUT")"
check_eq "plan_at_a_rate_near_1: --json: bloom is possible" true "$(plan_value bloom possible)"
check_cond "plan_at_a_rate_near_1: no nan in the JSON" "$(grep -i nan "$OUT" | head -c 200)" bash -c "! grep -qi nan '$OUT'"

expect_success "plan -n 1 -p 1e-3 (smallest sensible) exits 0" "$B" plan -n 1 -p 1e-3
expect_success "plan --keys 1000000 --fpr 0.001 (long options)" "$B" plan --keys 1000000 --fpr 0.001
run "$B" plan --keys 1000000 --fpp 0.001
check_rc "plan --fpp (the old name) still works, for one release" 0
check_in "plan --fpp: ... and warns that it goes" "$ERR" "old name of --fpr"

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

# ---------------------------------------------------------------------------------------------
# plan --memory: with -n, the rate each kind reaches in that memory; with -p, the keys it holds

# all_within BYTES: every possible entry of plan --json (in $OUT) takes at most BYTES bytes.
all_within() {
    awk -v max="$1" 'BEGIN { RS = "{" } /"possible": true/ { if (!match($0, /"filter_bytes": [0-9]+/)) exit 1
        if (substr($0, RSTART + 16, RLENGTH - 16) + 0 > max) exit 1; n++ } END { exit !(n > 0) }' "$OUT"
}

run "$B" plan -n 100000 --memory 128K
check_rc "plan -n 100000 --memory 128K exits 0" 0
check_in "plan -n --memory: the table says the keys and the memory" "$OUT" "100000 keys in"
run "$B" plan -n 100000 --memory 128K --json
check_rc "plan -n 100000 --memory 128K --json exits 0" 0
check_eq "plan -n --memory --json: memory_bytes (128K = 131072)" 131072 "$(json_value "$OUT" memory_bytes)"
check_eq "plan -n --memory --json: expected_keys" 100000 "$(json_value "$OUT" expected_keys)"
check_eq "plan -n --memory --json: target_fpr null" null "$(json_value "$OUT" target_fpr)"
check_eq "plan -n --memory --json: bloom uses all of the memory" 131072 "$(plan_value bloom filter_bytes)"
check_cond "plan -n --memory --json: every possible kind fits in the memory" "an entry over 131072 bytes" all_within 131072
check_cond "plan -n 100000 --memory 128K: bloom's rate ~0.78% (10.5 bits/key)" "expected_fpr '$(plan_value bloom expected_fpr)'" \
    awk -v p="$(plan_value bloom expected_fpr)" 'BEGIN { exit !(p > 0.005 && p < 0.01) }'
check_eq "plan -n 100000 --memory 128K: fuse --bits 16 does not fit" false "$(plan_value "fuse --bits 16" possible)"
check_cond "... and the entry says why" "why: '$(plan_value "fuse --bits 16" why)'" test -n "$(plan_value "fuse --bits 16" why)"

run "$B" plan -p 0.01 --memory 1M
check_rc "plan -p 0.01 --memory 1M exits 0" 0
check_in "plan -p --memory: the table says the rate" "$OUT" "at a false-positive rate of 1%"
check_cond "plan -p --memory: the table's bloom row has the keys" "bloom row: $(grep '^bloom ' "$OUT")" \
    awk '$1 == "bloom" && $2 == 845797 { found = 1 } END { exit !found }' "$OUT"
run "$B" plan -p 0.01 --memory 1M --json
check_rc "plan -p 0.01 --memory 1M --json exits 0" 0
check_eq "plan -p --memory --json: target_fpr" 0.01 "$(json_value "$OUT" target_fpr)"
check_eq "plan -p --memory --json: memory_bytes (1M = 1048576)" 1048576 "$(json_value "$OUT" memory_bytes)"
check_eq "plan -p --memory --json: expected_keys null (each kind has its own)" null "$(json_value "$OUT" expected_keys)"
check_eq "plan -p 0.01 --memory 1M --json: bloom holds 845797 keys" 845797 "$(plan_value bloom expected_keys)"
check_cond "plan -p --memory --json: every possible kind fits in the memory" "an entry over 1048576 bytes" all_within 1048576
for kind in bloom "bloom --layout classic" counting; do
    most=$(plan_value "$kind" expected_keys)
    check_cond "plan -p --memory: $kind's rate at its keys is at most the rate asked" "expected_fpr '$(plan_value "$kind" expected_fpr)'" \
        awk -v p="$(plan_value "$kind" expected_fpr)" 'BEGIN { exit !(p > 0 && p <= 0.01) }'
    run "$B" plan -n "${most:-1}" -p 0.01 --json
    check_cond "plan -p --memory: $kind's ${most:-?} keys at 1% fit in 1M (plan -n)" "filter_bytes '$(plan_value "$kind" filter_bytes)'" \
        test "$(plan_value "$kind" filter_bytes)" -le 1048576
    run "$B" plan -n $((${most:-1} + 1)) -p 0.01 --json
    check_cond "plan -p --memory: one key more does not fit (the most keys)" "filter_bytes '$(plan_value "$kind" filter_bytes)'" \
        test "$(plan_value "$kind" filter_bytes)" -gt 1048576
    run "$B" plan -p 0.01 --memory 1M --json
done
check_cond "plan -p --memory: the classic layout holds more keys than block" \
    "classic $(plan_value "bloom --layout classic" expected_keys), block $(plan_value bloom expected_keys)" \
    test "$(plan_value "bloom --layout classic" expected_keys)" -gt "$(plan_value bloom expected_keys)"

run "$B" plan -p 0.01 --memory 10 --json
check_rc "plan -p 0.01 --memory 10 (bytes) exits 0" 0
check_eq "plan -p 0.01 --memory 10: the classic layout holds 8 keys" 8 "$(plan_value "bloom --layout classic" expected_keys)"
check_eq "plan -p 0.01 --memory 10: no block Bloom filter fits" false "$(plan_value bloom possible)"
check_in "... and the entry says not even one key fits" "$OUT" "not even one key"

for size in 1K 1KB 1KiB 1.5K; do
    run "$B" plan -n 100 --memory "$size" --json
    check_rc "plan --memory $size exits 0" 0
done
run "$B" plan -n 100 --memory 1K --json
check_eq "plan --memory 1K is 1024 bytes" 1024 "$(json_value "$OUT" memory_bytes)"
run "$B" plan -n 100 --memory 1KiB --json
check_eq "plan --memory 1KiB is 1024 bytes" 1024 "$(json_value "$OUT" memory_bytes)"

expect_error "plan --memory alone -> 2" "-n or -p" "$B" plan --memory 1M
expect_error "plan -n -p --memory (all three) -> 2" "at most two" "$B" plan -n 100 -p 0.01 --memory 1M
expect_error "plan --memory 1x -> 2" "--memory" "$B" plan -n 100 --memory 1x
expect_error "plan --memory 0 -> 2" "--memory" "$B" plan -n 100 --memory 0
expect_error "plan --memory -1M -> 2" "--memory" "$B" plan -n 100 --memory -1M

finish
