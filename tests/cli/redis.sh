#!/usr/bin/env bash
# tests/cli/redis.sh — end-to-end test of `bloomkit redis`: create/add/check against a real
# redis-server agree with a local filter of the same keys (check's output and exit codes), info,
# push and pull byte-identical, drop; a deleted shard, a stopped server and a wrong password are
# errors (exit 2), never "absent"; --url, $BLOOMKIT_REDIS_URL and --cluster on a 3-master
# cluster; --replicas refused without replicas.
#
#   bash tests/cli/redis.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh; servers: redis_lib.sh.
source "$(dirname "$0")/lib.sh" "$@"
source "$(dirname "$0")/redis_lib.sh"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    echo "skipped: redis-server is not installed (scripts/install-deps.sh installs it; make test does)"
    finish
fi

need_keys
need_others
need_mixed
need_keys_filter
R=$T/redis
mkdir "$R"

redis_start_standalone S || finish
URL=$REDIS_URL
PORT=$REDIS_PORT

# --- create, add, check -----------------------------------------------------------------------

expect_success "create" "$B" redis create users -n $N -p 1% --url "$URL"
check_in "create describes the filter on stderr" "$ERR" "in 1 shard"
check_eq "create leaves stdout empty" "" "$(cat "$OUT")"
check_in "the metadata explains itself" <(redis-cli -p "$PORT" GET users:meta) "kind block"
expect_success "create again, alike, opens it" "$B" redis create users -n $N -p 1% --url "$URL"
expect_error "create again with another rate" "fpr 0.01 in Redis, 0.001 asked" \
    "$B" redis create users -n $N -p 0.1% --url "$URL"
expect_error "create without -n" "-n is required" "$B" redis create nameless --url "$URL"

run "$B" redis add users "$KEYS" --url "$URL"
check_rc "add" 0
run "$B" redis check users "$KEYS" --url "$URL"
check_rc "check: every added line is present" 0
check_same "check prints every added line" "$KEYS" "$OUT"

# The same answers as check on a local filter of the same keys and geometry: pull it, compare.
run "$B" redis check users "$MIXED" --url "$URL"
cp "$OUT" "$R/remote.txt"
expect_success "pull" "$B" redis pull users -o "$R/users.bkf" --url "$URL"
run "$B" check "$R/users.bkf" "$MIXED"
check_same "check on the pulled filter answers alike" "$R/remote.txt" "$OUT"
run "$B" redis check users "$OTHERS" --count --url "$URL"
present=$(count_of "$OUT" present)
check_cond "FPR on target ($present of $N absent lines)" "$present > $FP_LIMIT" test "$present" -le $FP_LIMIT
run "$B" redis check users --absent --url "$URL" <"$KEYS"
check_rc "--absent on added lines selects none: exit 1" 1
run "$B" redis check users --count --json "$KEYS" --url "$URL"
check_in "check --count --json" "$OUT" '"present": 100000, "absent": 0'

# Integer keys: 007 and 7 are one key.
expect_success "create (numbers)" "$B" redis create ids -n 1000 --url "$URL"
printf '7\n42\n' | "$B" redis add ids --key u64 --url "$URL"
run "$B" redis check ids --key u64 --url "$URL" <<<"007"
check_eq "--key u64: 007 is 7" "007" "$(cat "$OUT")"

# $BLOOMKIT_REDIS_URL is the default address.
BLOOMKIT_REDIS_URL=$URL run "$B" redis check users --count "$KEYS"
check_rc "BLOOMKIT_REDIS_URL" 0

# --- info -------------------------------------------------------------------------------------

run "$B" redis info users --json --url "$URL"
check_rc "info --json" 0
check_cond "info --json: the keys are estimated" "$(cat "$OUT")" \
    awk -v n="$(json_value "$OUT" approximate_count)" 'BEGIN { exit !(n > 99000 && n < 101000) }'
check_eq "info --json: the seed as a string" '"0"' "$(grep -o '"seed": "[0-9]*"' "$OUT" | cut -d' ' -f2)"
run "$B" redis info users --url "$URL"
check_in "info" "$OUT" "sized for       100000 keys at 1%"

# --- push, pull, drop -------------------------------------------------------------------------

expect_success "push a local filter" "$B" redis push "$F" pushed --shard-size 64KiB --url "$URL"
check_in "push says where" "$ERR" "shards"
expect_success "pull it back" "$B" redis pull pushed -o "$R/back.bkf" --url "$URL"
run "$B" check "$R/back.bkf" "$MIXED"
cp "$OUT" "$R/back.txt"
run "$B" check "$F" "$MIXED"
check_same "pushed and pulled: the same answers" "$OUT" "$R/back.txt"
run "$B" redis check pushed "$MIXED" --url "$URL"
check_same "the pushed filter answers in Redis as the file does" "$R/back.txt" "$OUT"
expect_error "push onto an existing name" "already exists" "$B" redis push "$F" pushed --url "$URL"
fixture_build "cuckoo" "$R/cuckoo.bkf" --kind cuckoo -n $N -o "$R/cuckoo.bkf" "$KEYS"
expect_error "push a cuckoo filter" "not a block Bloom filter" "$B" redis push "$R/cuckoo.bkf" c --url "$URL"
"$B" redis pull pushed -o - --url "$URL" >"$R/stdout.bkf" 2>/dev/null
check_same "pull -o - writes the filter to stdout" "$R/back.bkf" "$R/stdout.bkf"

expect_success "drop" "$B" redis drop pushed --url "$URL"
check_eq "drop removes every key" "0" "$(redis-cli -p "$PORT" --scan --pattern 'pushed:*' | wc -l)"
run "$B" redis drop pushed --url "$URL"
check_rc "drop of no filter: exit 1" 1
expect_error "check of no filter" "no filter named pushed" "$B" redis check pushed "$KEYS" --url "$URL"

# --- fail-closed ------------------------------------------------------------------------------

expect_success "create (several shards)" "$B" redis create sharded -n $N --shard-size 64KiB --url "$URL"
"$B" redis add sharded "$KEYS" --url "$URL" 2>/dev/null
redis-cli -p "$PORT" DEL sharded:1 >/dev/null
expect_error "a deleted shard is an error, not absent" "sharded:1 of filter sharded is missing" \
    "$B" redis check sharded "$KEYS" --url "$URL"
expect_error "--absent on a deleted shard too" "missing" "$B" redis check sharded --absent "$KEYS" --url "$URL"
expect_error "--count on a deleted shard too" "missing" "$B" redis check sharded --count "$KEYS" --url "$URL"
expect_error "info on a deleted shard" "missing" "$B" redis info sharded --url "$URL"
expect_error "pull of a deleted shard" "missing" "$B" redis pull sharded -o "$R/lost.bkf" --url "$URL"
check_cond "no file from a failed pull" "$R/lost.bkf exists" test ! -e "$R/lost.bkf"

expect_error "--replicas without replicas" "0 of 1 replicas" "$B" redis add users --replicas 1 --url "$URL" <<<"x"

redis-cli -p "$PORT" ACL SETUSER app on '>app-pw' '~*' '+@all' >/dev/null
expect_success "an ACL user in the URL" "$B" redis check users --count "$KEYS" --url "redis://app:app-pw@127.0.0.1:$PORT"
expect_error "a wrong password" "refused the credentials" "$B" redis check users "$KEYS" --url "redis://app:nope@127.0.0.1:$PORT"
expect_error "a bad URL" "bad Redis address" "$B" redis check users "$KEYS" --url "http://127.0.0.1"
expect_error "--url and --cluster" "not both" "$B" redis check users "$KEYS" --url "$URL" --cluster "127.0.0.1:$PORT"
expect_error "--cluster on a plain server" "not a cluster node" "$B" redis check users "$KEYS" --cluster "127.0.0.1:$PORT"

redis_stop "$REDIS_DIR"
expect_error "a stopped server" "cannot connect" "$B" redis check users "$KEYS" --url "$URL"

# --- a cluster --------------------------------------------------------------------------------

redis_start_cluster C 3 0 || finish
expect_success "create on a cluster" "$B" redis create crawl -n $N --shard-size 64KiB --cluster "$REDIS_SEEDS"
run "$B" redis add crawl "$KEYS" --cluster "$REDIS_SEEDS"
check_rc "add on a cluster" 0
first=${REDIS_MASTERS%% *}
run "$B" redis check crawl "$KEYS" --count --cluster "127.0.0.1:$first"
check_in "check on a cluster, from one seed" "$OUT" "present	100000"
run "$B" redis info crawl --json --cluster "$REDIS_SEEDS"
nodes=$(json_value "$OUT" nodes | tr ',' '\n' | grep -c .)
check_eq "info lists the 3 nodes" 3 "$nodes"
expect_error "a cluster node without --cluster" "--cluster" "$B" redis check crawl "$KEYS" --url "redis://127.0.0.1:$first"

finish
