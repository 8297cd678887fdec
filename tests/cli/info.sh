#!/usr/bin/env bash
# tests/cli/info.sh — end-to-end test of `bloomkit info`: human and --json output, --verify,
# each kind.
#
#   bash tests/cli/info.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys_filter
need_kind_filter bloom counting cuckoo scalable fuse fuse4

# ---------------------------------------------------------------------------------------------
# info

run "$B" info "$F"
check_rc "info exits 0" 0
check_in "info mentions the layout" "$OUT" "layout"
check_in "info mentions bits" "$OUT" "bits"
check_in "info mentions the hash" "$OUT" "hash"
check_in "info names the block layout" "$OUT" "block layout"
check_cond "info prints nothing on stderr" "stderr: $(err_line)" test ! -s "$ERR"

run "$B" info --json "$F"
check_rc "info --json exits 0" 0
for key in layout bits hashes estimated_keys; do
    check_in "info --json has \"$key\"" "$OUT" "\"$key\": "
done
est=$(json_value "$OUT" estimated_keys)
check_cond "info --json estimated_keys is about 100000" "estimated_keys '$est'" \
    awk -v e="$est" 'BEGIN { exit !(e != "" && e + 0 > 95000 && e + 0 < 105000) }'
check_eq "info --json expected_keys" $N "$(json_value "$OUT" expected_keys)"
check_eq "info --json target_fpr" 0.01 "$(json_value "$OUT" target_fpr)"
check_eq "info --json file_bytes is the file size" "$(wc -c <"$F")" "$(json_value "$OUT" file_bytes)"
check_eq "info --json verified is false without --verify" false "$(json_value "$OUT" verified)"

run "$B" info --verify "$F"
check_rc "info --verify on a good file exits 0" 0
check_in "info --verify says the checksum was verified" "$OUT" "verified"
run "$B" info --verify --json "$F"
check_eq "info --verify --json: verified is true" true "$(json_value "$OUT" verified)"

# ---------------------------------------------------------------------------------------------
# info on each kind

describe_kind() {   # describe_kind LABEL TEXT: info's human output names the kind
    run "$B" info "$T/filters/kind-$1.bf"
    check_rc "info on a $1 filter exits 0" 0
    check_in "info describes a $1 filter ('$2')" "$OUT" "$2"
    check_cond "info on a $1 filter prints nothing on stderr" "stderr: $(err_line)" test ! -s "$ERR"
}
describe_kind bloom "Bloom filter, block layout"
describe_kind counting "counting Bloom filter"
describe_kind cuckoo "cuckoo filter"
describe_kind scalable "scalable Bloom filter"
describe_kind fuse "binary fuse filter"
describe_kind fuse4 "4-wise"
for label in counting cuckoo scalable fuse fuse4; do
    run "$B" info --verify "$T/filters/kind-$label.bf"
    check_rc "info --verify on a $label filter exits 0" 0
done

finish
