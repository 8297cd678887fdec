#!/usr/bin/env bash
# tests/cli/redis.sh — end-to-end test of `bloomkit redis`: create/add/check against a real
# redis-server agree with a local filter of the same keys (check's output and exit codes); the key
# format recorded at create and push and used by add and check; info; push and pull byte-identical,
# drop; a windowed filter (--window) found within its window and gone after it, by --now or the
# server's clock, answering as its pulled file; a lost record restored, never a reason to wipe; keys of other data never overwritten; a
# claim taken over only with --take-over; a deleted shard, a stopped server and a wrong password
# are errors (exit 2), never "absent"; passwords (of any character) never shown, whatever is
# wrong with the address, and passed out of sight of ps; a --timeout below 1 ms is 1 ms, not
# none; --url, $BLOOMKIT_REDIS_URL and --cluster on a 3-master cluster; --replicas refused
# without replicas.
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

# not_in FILE TEXT: FILE does not contain TEXT.
not_in() { ! grep -qF -- "$2" "$1"; }

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

# Integer keys: the format is recorded at create, and add and check use it unless told; 007 and
# 7 are one key.
expect_success "create (numbers)" "$B" redis create ids -n 1000 --key u64 --url "$URL"
check_in "the metadata records the key format" <(redis-cli -p "$PORT" GET ids:meta) "keys u64"
printf '7\n42\n' | "$B" redis add ids --url "$URL"
run "$B" redis check ids --url "$URL" <<<"007"
check_eq "the recorded --key u64: 007 is 7" "007" "$(cat "$OUT")"
expect_error "check --key text against integers" "contradicts 'ids'" "$B" redis check ids --key text --url "$URL" <<<"7"
expect_error "add --key u64 to a filter of text" "contradicts 'users'" "$B" redis add users --key u64 --url "$URL" <<<"7"
expect_error "create with another key format" "keys u64 in Redis, text asked" "$B" redis create ids -n 1000 --url "$URL"
seq 1 1000 >"$R/numbers.txt"
expect_success "build a file of numbers" "$B" build --key u64 -n 1000 -o "$R/numbers.bkf" "$R/numbers.txt"
expect_success "push it, --key saying what a file of no record holds" "$B" redis push "$R/numbers.bkf" numbers --url "$URL" --key u64
run "$B" redis check numbers --count --url "$URL" <<<"0042"
check_in "the pushed file's key format is used" "$OUT" "present	1"

# $BLOOMKIT_REDIS_URL is the default address.
BLOOMKIT_REDIS_URL=$URL run "$B" redis check users --count "$KEYS"
check_rc "BLOOMKIT_REDIS_URL" 0

# --- info -------------------------------------------------------------------------------------

run "$B" redis info users --json --url "$URL"
check_rc "info --json" 0
check_cond "info --json: the keys are estimated" "$(cat "$OUT")" \
    awk -v n="$(json_value "$OUT" estimated_keys)" 'BEGIN { exit !(n > 99000 && n < 101000) }'
check_eq "info --json: the seed as a string" '"0"' "$(grep -o '"seed": "[0-9]*"' "$OUT" | cut -d' ' -f2)"
run "$B" redis info users --url "$URL"
check_in "info" "$OUT" "sized for       100000 keys at 1%"
check_in "info: the key format" "$OUT" "keys            text"

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
check_same "pull of a pushed file: byte for byte" "$F" "$R/back.bkf"

expect_success "drop" "$B" redis drop pushed --url "$URL"
check_eq "drop removes every key" "0" "$(redis-cli -p "$PORT" --scan --pattern 'pushed:*' | wc -l)"
run "$B" redis drop pushed --url "$URL"
check_rc "drop of no filter: exit 1" 1
expect_error "check of no filter" "no filter named pushed" "$B" redis check pushed "$KEYS" --url "$URL"

# --- the record lost, other data, claims ------------------------------------------------------

# NAME:meta goes first under allkeys-lru (it is read only at open), or is deleted: the next
# create (every instance may run one at start) restores it from the shards, never wipes them.
redis-cli -p "$PORT" DEL users:meta >/dev/null
expect_success "create after the record was lost" "$B" redis create users -n $N -p 1% --url "$URL"
run "$B" redis check users --count "$KEYS" --url "$URL"
check_in "... and every key is still there" "$OUT" "present	100000"
redis-cli -p "$PORT" DEL users:meta >/dev/null
run "$B" redis check users --count "$KEYS" --url "$URL"
check_in "check after the record was lost" "$OUT" "present	100000"

redis-cli -p "$PORT" HSET session:0 user alice >/dev/null
redis-cli -p "$PORT" RPUSH session:1 event >/dev/null
expect_error "create over keys of other data" "session:0 exists and is a hash" \
    "$B" redis create session -n $N --shard-size 64KiB --url "$URL"
expect_error "push over keys of other data" "refusing to overwrite" "$B" redis push "$F" session --shard-size 64KiB --url "$URL"
check_eq "... which are left as they were" "hash list 0" \
    "$(redis-cli -p "$PORT" TYPE session:0) $(redis-cli -p "$PORT" TYPE session:1) $(redis-cli -p "$PORT" EXISTS session:meta)"

# A claim left by a creator that died a minute ago: refused, then taken over when asked.
expect_success "create (a model)" "$B" redis create model -n 1000 --url "$URL"
old=$(( $(redis-cli -p "$PORT" TIME | head -n 1) * 1000 - 60000 ))
claim=$(redis-cli -p "$PORT" GET model:meta |
    sed -e 's/^state ready$/state creating\nowner 0123456789abcdef0123456789abcdef/' -e "s/^written .*/written $old/")
printf '%s\n' "$claim" | redis-cli -p "$PORT" -x SET claimed:meta >/dev/null
expect_error "create over a stale claim" "take its claim over or drop what it left (bloomkit redis create or push --take-over; bloomkit redis drop)" \
    "$B" redis create claimed -n 1000 --url "$URL"
check_in "... saying whose and how old" "$ERR" "process 01234567… (its last progress 6"
expect_success "create --take-over" "$B" redis create claimed -n 1000 --take-over --url "$URL"
check_in "... which makes it ready" <(redis-cli -p "$PORT" GET claimed:meta) "state ready"

expect_error "a name with a hash tag" "hash tag ('{eu}')" "$B" redis create 'users{eu}' -n 1000 --url "$URL"

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

expect_error "--replicas without replicas" "0 of 1 replicas" "$B" redis add users --replicas 1 --timeout 0.5 --url "$URL" <<<"x"

redis-cli -p "$PORT" ACL SETUSER app on '>app-pw' '~*' '+@all' >/dev/null
expect_success "an ACL user in the URL" "$B" redis check users --count "$KEYS" --url "redis://app:app-pw@127.0.0.1:$PORT"
expect_error "a wrong password" "refused the credentials" "$B" redis check users "$KEYS" --url "redis://app:nope@127.0.0.1:$PORT"
expect_error "a bad URL" "bad Redis address" "$B" redis check users "$KEYS" --url "http://127.0.0.1"

# Passwords: never shown, and given out of sight of ps.
expect_error "a bad URL with a password" "redis://app:***@127.0.0.1:x" \
    "$B" redis check users "$KEYS" --url "redis://app:TopSecret@127.0.0.1:x"
check_cond "... which is not shown" "$(cat "$ERR")" not_in "$ERR" TopSecret
BLOOMKIT_REDIS_URL="redis://app:TopSecret@127.0.0.1:x" run "$B" redis check users "$KEYS"
check_rc "a bad \$BLOOMKIT_REDIS_URL" 2
check_cond "... whose password is not shown" "$(cat "$ERR")" not_in "$ERR" TopSecret
printf 'app-pw\n' >"$R/password"
expect_success "--password-file" "$B" redis check users --count "$KEYS" --url "$URL" --user app --password-file "$R/password"
BLOOMKIT_REDIS_PASSWORD=app-pw run "$B" redis check users --count "$KEYS" --url "$URL" --user app
check_rc "\$BLOOMKIT_REDIS_PASSWORD" 0
printf 'TopSecret\n' >"$R/wrong"
expect_error "a wrong password from a file" "refused the credentials of user 'app'" \
    "$B" redis check users "$KEYS" --url "$URL" --user app --password-file "$R/wrong"
check_cond "... which is not shown" "$(cat "$ERR")" not_in "$ERR" TopSecret
expect_error "a password given twice" "given twice" \
    "$B" redis check users "$KEYS" --url "redis://app:app-pw@127.0.0.1:$PORT" --password-file "$R/password"
# A password may hold ',' then '/' (and '@', ':', '#', '?'): the credentials end at the last '@',
# and the address is the server's, not two addresses cut inside the password.
redis-cli -p "$PORT" ACL SETUSER odd on '>Top,Se/cr@e:t#?' '~*' '+@all' >/dev/null
expect_success "a password holding , / @ : # ?" \
    "$B" redis check users --count "$KEYS" --url "redis://odd:Top,Se/cr@e:t#?@127.0.0.1:$PORT"
expect_error "a wrong password holding , and /" "refused the credentials of user 'app'" \
    "$B" redis info users --url "redis://app:TopSecret,x/y@127.0.0.1:$PORT"
check_cond "... which is not shown" "$(cat "$ERR")" not_in "$ERR" TopSecret
# Whatever is wrong with an address, its password is in no message: parsed, refused at connect
# time, as --url, --cluster or $BLOOMKIT_REDIS_URL.
refused_unshown() { [[ $RC -eq 2 && -s $ERR ]] && not_in "$ERR" Secret; }
for bad in "redis://app:TopSecret,x/y@127.0.0.1:x" "redis://app:TopSecret,x/y" "redis://app:TopSecret" \
    "redis://:TopSecret" "redis://app:TopSecret/3" "redis://app:Top@Secret@127.0.0.1:x" "redis://app:TopSecret@" \
    "redis://app:Top#Secret@:1" "redis://app:TopSecret@127.0.0.1:$PORT," ",redis://app:TopSecret@127.0.0.1:$PORT" \
    "unix://app:TopSecret" "http://app:Top,Secret@h" "redis://app:Top,Secret/x@127.0.0.1:1" \
    "redis://app:Top,Secret@127.0.0.1:$PORT,127.0.0.1:1"; do
    run "$B" redis info users --url "$bad"
    check_cond "--url '${bad//Secret/…}': exit 2, no password" "exit $RC: $(err_line)" refused_unshown
    run "$B" redis info users --cluster "$bad"
    check_cond "--cluster '${bad//Secret/…}': exit 2, no password" "exit $RC: $(err_line)" refused_unshown
done
BLOOMKIT_REDIS_URL="redis://app:TopSecret,x/y@127.0.0.1:x" run "$B" redis info users
check_cond "a bad \$BLOOMKIT_REDIS_URL with ',' and '/' in its password: exit 2, no password" \
    "exit $RC: $(err_line)" refused_unshown

expect_error "--url and --cluster" "not both" "$B" redis check users "$KEYS" --url "$URL" --cluster "127.0.0.1:$PORT"
expect_error "--cluster on a plain server" "not a cluster node: connect without cluster mode (--url, not --cluster)" "$B" redis check users "$KEYS" --cluster "127.0.0.1:$PORT"

# A timeout below a millisecond is 1 ms, never none at all: against a server that stops
# answering (SIGSTOP), the command fails at once instead of waiting for ever ('timeout' ends it
# if it does wait).
expect_error "--timeout 0" "--timeout must be a number of seconds above 0" "$B" redis info users --timeout 0 --url "$URL"
expect_error "--timeout nan" "not 'nan'" "$B" redis info users --timeout nan --url "$URL"
# --- a windowed filter: generations by the server's clock, or --now --------------------------

expect_success "create --window" "$B" redis create seen -n $N --window 1d --generations 4 --shard-size 64KiB --url "$URL"
check_in "create --window describes the window" "$ERR" "window 1d in 4 generations"
check_in "the metadata says windowed" <(redis-cli -p "$PORT" GET seen:meta) "kind windowed"
expect_error "create again with another window" "window (ms) 86400000 in Redis, 3600000 asked" \
    "$B" redis create seen -n $N --window 1h --url "$URL"
expect_error "--generations without --window" "give --window too" "$B" redis create x -n 10 --generations 2 --url "$URL"
expect_error "--generations 0" "1 to 64 generations" "$B" redis create x -n 10 --window 1h --generations 0 --url "$URL"
run "$B" redis add seen "$KEYS" --url "$URL" --now 2030-01-01T00:00:00Z
check_rc "add at --now" 0
run "$B" redis check seen "$KEYS" --count --url "$URL" --now 2030-01-01T23:59:59Z
check_in "every key is found within its window" "$OUT" "present	100000"
run "$B" redis check seen "$KEYS" --count --url "$URL" --now 2030-01-02T06:00:00Z
check_in "and forgotten by W(1 + 1/G)" "$OUT" "present	0"
# The same answers as a local windowed filter: pull it, check the file at the same time.
run "$B" redis check seen "$MIXED" --url "$URL" --now 2030-01-01T12:00:00Z
cp "$OUT" "$R/seen-remote.txt"
expect_success "pull a windowed filter" "$B" redis pull seen -o "$R/seen.bkf" --url "$URL"
run "$B" check "$R/seen.bkf" "$MIXED" --now 2030-01-01T12:00:00Z
check_same "check on the pulled windowed filter answers alike" "$R/seen-remote.txt" "$OUT"
expect_success "push it back" "$B" redis push "$R/seen.bkf" seen-copy --shard-size 64KiB --url "$URL"
run "$B" redis check seen-copy "$MIXED" --url "$URL" --now 2030-01-01T12:00:00Z
check_same "the pushed copy answers alike" "$R/seen-remote.txt" "$OUT"
run "$B" redis info seen --url "$URL" --now 2030-01-01T12:00:00Z
check_in "info: the window" "$OUT" "window          1d in 4 generations of 6h"
check_in "info: the live generation" "$OUT" "1 live of 5 at 2030-01-01T12:00:00Z"
check_in "info: its age" "$OUT" "from 2030-01-01T00:00:00Z (12h ago)"
# Without --now, the server's clock: a line added now is found now.
echo "added by the server's clock" | run "$B" redis add seen --url "$URL"
check_rc "add by the server's clock" 0
echo "added by the server's clock" | run "$B" redis check seen --url "$URL"
check_rc "found by the server's clock" 0
redis-cli -p "$PORT" DEL seen:1 >/dev/null
expect_error "a windowed filter with a deleted shard" "seen:1 of filter seen is missing" \
    "$B" redis check seen "$KEYS" --url "$URL" --now 2030-01-01T12:00:00Z
expect_success "drop a windowed filter" "$B" redis drop seen --url "$URL"
check_eq "drop leaves none of its keys" "" "$(redis-cli -p "$PORT" --scan --pattern 'seen:*')"

read -r server_pid <"$REDIS_DIR/$PORT/redis.pid"
kill -STOP "$server_pid"
run timeout 120 "$B" redis info users --timeout 0.0004 --url "$URL"
kill -CONT "$server_pid"
check_cond "--timeout 0.0004 is 1 ms, not none: exit 2" "exit $RC: $(err_line)" test "$RC" -eq 2
check_cond "... saying so" "$(err_line)" grep -qE "no reply within 1 ms|cannot connect.*timed out" "$ERR"

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
nodes=$(json_value "$OUT" nodes | grep -o '"[^"]*"' | grep -c .)
check_eq "info lists the 3 nodes" 3 "$nodes"
expect_error "a cluster node without --cluster" "connect in cluster mode (--cluster)" "$B" redis check crawl "$KEYS" --url "redis://127.0.0.1:$first"

finish
