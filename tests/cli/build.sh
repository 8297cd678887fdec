#!/usr/bin/env bash
# tests/cli/build.sh — end-to-end test of `bloomkit build`: stdin and several inputs, layouts,
# seeds, kinds, fingerprint bits and arity, sizing without -n, threads, errors and safety.
#
#   bash tests/cli/build.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys
need_others
need_key_halves
need_empty_input
need_lf_filter

# ---------------------------------------------------------------------------------------------
# build

run "$B" build -n $N -p 0.01 -o "$F" "$KEYS"
check_rc "build 100k lines exits 0" 0
check_cond "build prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
check_cond "build wrote the filter file" "no $F" test -s "$F"

# ---------------------------------------------------------------------------------------------
# stdin and several inputs

run "$B" build -n $N -p 0.01 -o "$T/filters/stdin-dash.bf" - <"$KEYS"
check_rc "build from stdin ('-') exits 0" 0
check_same "build from stdin ('-') = build from the file" "$F" "$T/filters/stdin-dash.bf"

run "$B" build -n $N -p 0.01 -o "$T/filters/stdin-none.bf" <"$KEYS"
check_rc "build from stdin (no inputs) exits 0" 0
check_same "build from stdin (no inputs) = build from the file" "$F" "$T/filters/stdin-none.bf"

run "$B" build -n $N -p 0.01 -o "$T/filters/two.bf" "$T/keys-a.txt" "$T/keys-b.txt"
check_rc "build from two input files exits 0" 0
check_same "build from two files = build from their concatenation" "$F" "$T/filters/two.bf"

run "$B" build -n $N -p 0.01 -o "$T/filters/file-and-stdin.bf" "$T/keys-a.txt" - <"$T/keys-b.txt"
check_same "build from a file and stdin ('-') together" "$F" "$T/filters/file-and-stdin.bf"

# ---------------------------------------------------------------------------------------------
# layouts and seeds

for layout in block classic split-block; do
    LF=$T/filters/$layout.bf
    run "$B" build -n $N -p 0.01 --layout "$layout" -o "$LF" "$KEYS"
    check_rc "build --layout $layout exits 0" 0
    run "$B" check "$LF" "$KEYS"
    check_same "--layout $layout: every inserted line is found" "$KEYS" "$OUT"
    run "$B" check --count "$LF" "$OTHERS"
    lfp=$(awk -F '\t' '$1 == "present" { print $2 }' "$OUT")
    check_cond "--layout $layout: false positives <= 1.5%" "'$lfp' false positives" test "${lfp:-999999}" -le $FP_LIMIT
    run "$B" info --json "$LF"
    check_eq "info --json reports layout $layout" "$layout" "$(json_value "$OUT" layout)"
    run "$B" info "$LF"
    check_in "info reports layout $layout" "$OUT" "$layout layout"
    run "$B" plan -n $N -p 0.01 --json
    plan_kind="bloom --layout $layout"
    [[ $layout == block ]] && plan_kind=bloom
    plan_bits=$(plan_value "$plan_kind" bits)
    run "$B" info --json "$LF"
    check_eq "--layout $layout: the filter has the bits plan announced" "${plan_bits:-(none in plan)}" "$(json_value "$OUT" bits)"
done
check_same "the default layout is block" "$F" "$T/filters/block.bf"
check_cond "the layouts build different files" "classic = block" not_same "$T/filters/classic.bf" "$T/filters/block.bf"
expect_error "build --layout bogus -> 2" "bogus" "$B" build -n 10 --layout bogus -o "$T/filters/bogus.bf" "$KEYS"
check_cond "build --layout bogus creates no file" "file created" test ! -e "$T/filters/bogus.bf"
expect_error "build --layout Block (case matters) -> 2" "layout" "$B" build -n 10 --layout Block -o "$T/filters/bogus.bf" "$KEYS"

seed_case() {   # seed_case SEED EXPECTED_DECIMAL
    local SF=$T/filters/seed.bf
    run "$B" build -n 1000 -p 0.01 --seed "$1" -o "$SF" "$T/keys-small.txt"
    check_rc "build --seed $1 exits 0" 0
    run "$B" check "$SF" "$T/keys-small.txt"
    check_same "--seed $1: every inserted line is found" "$T/keys-small.txt" "$OUT"
    run "$B" info --json "$SF"
    check_eq "info --json reports seed $2 for --seed $1" "$2" "$(json_value "$OUT" seed)"
    run "$B" info "$SF"
    check_in "info reports seed $2 for --seed $1" "$OUT" "seed $2"
}
head -n 1000 "$KEYS" >"$T/keys-small.txt"
seed_case 12345 12345
seed_case 0xDEADbeef 3735928559
seed_case 0X10 16
seed_case 18446744073709551615 18446744073709551615
seed_case 0 0

run "$B" build -n 1000 -p 0.01 -o "$T/filters/seed-default.bf" "$T/keys-small.txt"
run "$B" build -n 1000 -p 0.01 --seed 0 -o "$T/filters/seed-0.bf" "$T/keys-small.txt"
check_same "the default seed is 0 (same file as --seed 0)" "$T/filters/seed-0.bf" "$T/filters/seed-default.bf"
run "$B" build -n 1000 -p 0.01 --seed 0 -o "$T/filters/seed-0-again.bf" "$T/keys-small.txt"
check_same "a build with a fixed seed is reproducible" "$T/filters/seed-0.bf" "$T/filters/seed-0-again.bf"
run "$B" build -n 1000 -p 0.01 --seed 1 -o "$T/filters/seed-1.bf" "$T/keys-small.txt"
check_cond "different seeds give different filters" "seed 0 and seed 1 files identical" \
    not_same "$T/filters/seed-0.bf" "$T/filters/seed-1.bf"

# One hash per kind for new files (xxh3-64-mum; split block's xxh64, as Parquet's): no --hash.
# Files under the other hashes exist (tests/cli/fixtures/): every reader answers from them, and an
# add keeps their hash.
hash_case() {   # hash_case FIXTURE HASH
    local HF=$T/filters/$1
    cp "$FIXTURES/$1" "$HF" || fail "$1: the fixture is there" "missing from $FIXTURES"
    run "$B" info --json "$HF"
    check_eq "$1: info --json reports hash $2" "$2" "$(json_value "$OUT" hash)"
    run "$B" check "$HF" "$T/numbers-1k.txt"
    check_same "$1: every line it was built of is found" "$T/numbers-1k.txt" "$OUT"
    run "$B" add "$HF" "$T/keys-10k.txt"
    check_rc "$1: add exits 0" 0
    run "$B" check --count "$HF" "$T/keys-10k.txt" "$T/numbers-1k.txt"
    check_eq "$1: after the add, every line is found" 11000 "$(count_of "$OUT" present)"
    run "$B" info --json "$HF"
    check_eq "$1: an add keeps the hash" "$2" "$(json_value "$OUT" hash)"
}
FIXTURES=$(dirname "${BASH_SOURCE[0]}")/fixtures
seq 1 1000 >"$T/numbers-1k.txt"
need_keys_10k
hash_case numbers-text-xxh3-mum.bkf xxh3-mum
hash_case numbers-text-xxh3-128.bkf xxh3-128
hash_case numbers-text-xxh3-mix.bkf xxh3-mix
hash_case numbers-text-xxh64.bkf xxh64
hash_case numbers-text-split-block-xxh3-64-mum.bkf xxh3-64-mum
run "$B" build -n 1000 -p 0.01 -o "$T/filters/numbers-default.bf" "$T/numbers-1k.txt"
run "$B" info --json "$T/filters/numbers-default.bf"
check_eq "new files hash with xxh3-64-mum" xxh3-64-mum "$(json_value "$OUT" hash)"
# The payloads (past the 128-byte header, which names the hash and so always differs).
check_cond "xxh3-mum and xxh3-64-mum set other bits for text" "the two payloads are identical" \
    not_same <(tail -c +129 "$FIXTURES/numbers-text-xxh3-mum.bkf") <(tail -c +129 "$T/filters/numbers-default.bf")
run "$B" build -n 1000 -p 0.01 --layout split-block -o "$T/filters/numbers-split.bf" "$T/numbers-1k.txt"
run "$B" info --json "$T/filters/numbers-split.bf"
check_eq "new split-block files hash with xxh64 (Parquet's)" xxh64 "$(json_value "$OUT" hash)"
expect_error "build --hash is no option: a kind's hash is not chosen" "--hash" \
    "$B" build --hash xxh3-mum -o "$T/filters/never.bf" "$T/keys-small.txt"
check_cond "a refused --hash leaves no file" "a file was written" test ! -e "$T/filters/never.bf"

for i in 1 2; do
    run "$B" build -n 1000 -p 0.01 --seed random -o "$T/filters/random-$i.bf" "$T/keys-small.txt"
    check_rc "build --seed random exits 0 (#$i)" 0
    run "$B" check "$T/filters/random-$i.bf" "$T/keys-small.txt"
    check_same "--seed random: every inserted line is found (#$i)" "$T/keys-small.txt" "$OUT"
    run "$B" info --json "$T/filters/random-$i.bf"
    random_seed[$i]=$(json_value "$OUT" seed)
done
check_cond "--seed random: info reports a numeric seed" "seed '${random_seed[1]}'" \
    test -n "${random_seed[1]}" -a "${random_seed[1]//[0-9]/}" = ""
check_cond "--seed random: two builds get different seeds" "both ${random_seed[1]}" \
    test "${random_seed[1]}" != "${random_seed[2]}"

for seed in abc -1 0x 0xZZ 18446744073709551616 12abc "1 " " 1" 1.5 ""; do
    expect_error "build --seed '$seed' -> 2" "--seed" "$B" build -n 10 --seed "$seed" -o "$T/filters/bad-seed.bf" "$T/keys-small.txt"
done
check_cond "a bad seed creates no file" "file created" test ! -e "$T/filters/bad-seed.bf"

# ---------------------------------------------------------------------------------------------
# kinds: counting Bloom, cuckoo, scalable Bloom and binary fuse filters next to bloom

# kind_case LABEL KIND FP_MIN FP_MAX [OPTIONS...]: builds KEYS as --kind KIND OPTIONS at -n 100000
# -p 0.01 into filters/kind-LABEL.bf; no false negatives, false positives over the 100k OTHERS
# in [FP_MIN, FP_MAX], and info --json names the kind.
kind_case() {
    local label=$1 kind=$2 lo=$3 hi=$4
    shift 4
    local name="--kind $kind${*:+ $*}" KF=$T/filters/kind-$label.bf kfp
    run "$B" build --kind "$kind" "$@" -n $N -p 0.01 -o "$KF" "$KEYS"
    check_rc "build $name exits 0" 0
    check_cond "build $name prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
    run "$B" check "$KF" "$KEYS"
    check_rc "$name: check of the inserted lines exits 0" 0
    check_same "$name: check prints every inserted line, in order (no false negatives)" "$KEYS" "$OUT"
    run "$B" check --count "$KF" "$OTHERS"
    kfp=$(count_of "$OUT" present)
    check_cond "$name: false positives over 100k other lines in [$lo, $hi]" "'$kfp' false positives" \
        test "${kfp:-999999}" -ge "$lo" -a "${kfp:-999999}" -le "$hi"
    run "$B" info --json "$KF"
    check_rc "$name: info --json exits 0" 0
    check_eq "$name: info --json \"kind\"" "$kind" "$(json_value "$OUT" kind)"
}
# At -p 0.01: bloom and counting ~1000 (sd ~32); cuckoo picks 12-bit fingerprints (~185);
# scalable's first stage is at p/2 (~500); fuse has 8-bit fingerprints: 1/256 = 0.39% (~391,
# sd ~20), whatever -p asked for above 1/256.
kind_case bloom bloom 1 $FP_LIMIT
kind_case counting counting 1 $FP_LIMIT
kind_case cuckoo cuckoo 1 $FP_LIMIT
kind_case scalable scalable 1 $FP_LIMIT
kind_case fuse fuse 290 500
kind_case fuse4 fuse 290 500 --arity 4
check_same "--kind bloom is the default" "$F" "$T/filters/kind-bloom.bf"

run "$B" info --json "$T/filters/kind-cuckoo.bf"
check_eq "info --json: cuckoo at -p 0.01 has 12-bit fingerprints" 12 "$(json_value "$OUT" fingerprint_bits)"
run "$B" info --json "$T/filters/kind-fuse.bf"
check_eq "info --json: fuse at -p 0.01 has 8-bit fingerprints" 8 "$(json_value "$OUT" fingerprint_bits)"
check_eq "info --json: fuse is 3-wise by default" 3 "$(json_value "$OUT" arity)"
check_eq "info --json: fuse slots by the key's own hash" direct64 "$(json_value "$OUT" slot_hashing)"
check_eq "info --json: fuse holds the 100000 keys" $N "$(json_value "$OUT" inserted_keys)"
run "$B" info --json "$T/filters/kind-fuse4.bf"
check_eq "info --json: fuse --arity 4 is 4-wise" 4 "$(json_value "$OUT" arity)"
run "$B" info --json "$T/filters/kind-scalable.bf"
check_eq "info --json: scalable -n 100000 holds its keys in 1 stage" 1 "$(stages_of "$OUT")"

# plan announces the memory that build then takes
run "$B" plan -n $N -p 0.01 --json
for pair in counting:counting cuckoo:cuckoo fuse:fuse "fuse4:fuse --arity 4"; do
    label=${pair%%:*}
    plan_bytes=$(plan_value "${pair#*:}" filter_bytes)
    run "$B" info --json "$T/filters/kind-$label.bf"
    check_eq "--kind ${pair#*:}: the filter has the bytes plan announced" "${plan_bytes:-(none in plan)}" "$(json_value "$OUT" filter_bytes)"
    run "$B" plan -n $N -p 0.01 --json
done

# Each kind from a file and from stdin, with and without -n (20k lines). Without -n the input
# is counted first (stdin spooled): the same filter as -n (its line count); scalable starts at
# 100000; fuse needs no count at all.
SMALL=$T/keys-20k.txt
head -n 20000 "$KEYS" >"$SMALL"
printf 'present\t20000\nabsent\t0\n' >"$T/expected-small.txt"
for kind in bloom counting cuckoo scalable fuse; do
    KF=$T/filters/small-$kind
    run "$B" build --kind $kind -o "$KF-file.bf" "$SMALL"
    check_rc "build --kind $kind without -n from a file exits 0" 0
    run "$B" check --count "$KF-file.bf" "$SMALL"
    check_same "--kind $kind without -n: every line is found" "$T/expected-small.txt" "$OUT"
    run "$B" build --kind $kind -o "$KF-pipe.bf" < <(cat "$SMALL")
    check_rc "build --kind $kind without -n from a pipe exits 0" 0
    check_same "--kind $kind without -n: from a pipe = from the file" "$KF-file.bf" "$KF-pipe.bf"
    run "$B" build --kind $kind -o "$KF-dash.bf" - <"$SMALL"
    check_same "--kind $kind without -n: from stdin ('-') = from the file" "$KF-file.bf" "$KF-dash.bf"
    run "$B" build --kind $kind -n 20000 -o "$KF-n-file.bf" "$SMALL"
    check_rc "build --kind $kind -n 20000 from a file exits 0" 0
    run "$B" build --kind $kind -n 20000 -o "$KF-n-pipe.bf" < <(cat "$SMALL")
    check_rc "build --kind $kind -n 20000 from a pipe exits 0" 0
    check_same "--kind $kind -n 20000: from a pipe = from the file" "$KF-n-file.bf" "$KF-n-pipe.bf"
    run "$B" check --count "$KF-n-pipe.bf" "$SMALL"
    check_same "--kind $kind -n 20000 from a pipe: every line is found" "$T/expected-small.txt" "$OUT"
    if [[ $kind == scalable ]]; then
        run "$B" build --kind $kind -n 100000 -o "$KF-n-file.bf" "$SMALL"
        check_same "--kind scalable without -n = -n 100000" "$KF-n-file.bf" "$KF-file.bf"
        check_cond "--kind scalable: -n 20000 and -n 100000 differ" "same file" not_same "$KF-n-pipe.bf" "$KF-file.bf"
    else
        check_same "--kind $kind without -n = -n 20000 (the line count)" "$KF-n-file.bf" "$KF-file.bf"
    fi
done
run "$B" info --json "$T/filters/small-cuckoo-pipe.bf"
check_eq "--kind cuckoo without -n from a pipe: sized for the 20000 lines" 20000 "$(json_value "$OUT" expected_keys)"
run "$B" build --kind counting -o "$T/filters/file-dash.bf" "$T/keys-a.txt" - <"$T/keys-b.txt"
check_rc "build without -n from a file and stdin ('-') exits 0" 0
check_same "... = the build of their concatenation with -n" "$T/filters/kind-counting.bf" "$T/filters/file-dash.bf"
TMPDIR=$T/no-such-dir run "$B" build -o "$T/filters/no-spool.bf" < <(cat "$SMALL")
check_cond "build without -n from a pipe, no usable TMPDIR -> 2" "exit $RC; stderr: $(err_line)" test $RC -eq 2 -a -s "$ERR"
check_cond "... and creates no output file" "file created" test ! -e "$T/filters/no-spool.bf"

# fingerprint bits and arity
for pair in cuckoo:8 cuckoo:12 cuckoo:16 fuse:8 fuse:16; do
    kind=${pair%%:*} bits=${pair#*:}
    KF=$T/filters/bits-$kind-$bits.bf
    run "$B" build --kind $kind --bits $bits -o "$KF" "$SMALL"
    check_rc "build --kind $kind --bits $bits exits 0" 0
    run "$B" check --count "$KF" "$SMALL"
    check_same "--kind $kind --bits $bits: every line is found" "$T/expected-small.txt" "$OUT"
    run "$B" info --json "$KF"
    check_eq "--kind $kind --bits $bits: info --json fingerprint_bits" "$bits" "$(json_value "$OUT" fingerprint_bits)"
done
run "$B" check --count "$T/filters/bits-fuse-16.bf" "$OTHERS"
kfp=$(count_of "$OUT" present)
check_cond "--kind fuse --bits 16: false positives over 100k lines <= 20 (1/65536)" "'$kfp' false positives" \
    test "${kfp:-999999}" -le 20
run "$B" build --kind fuse --bits 16 --arity 4 -p 1e-6 -o "$T/filters/fuse-16-4.bf" "$SMALL"
check_rc "build --kind fuse --bits 16 --arity 4 -p 1e-6 exits 0" 0
run "$B" check --count "$T/filters/fuse-16-4.bf" "$SMALL"
check_same "--kind fuse --bits 16 --arity 4: every line is found" "$T/expected-small.txt" "$OUT"
run "$B" info --json "$T/filters/fuse-16-4.bf"
check_eq "--kind fuse --bits 16 --arity 4: info --json arity" 4 "$(json_value "$OUT" arity)"
run "$B" build --kind fuse -p 1e-3 -o "$T/filters/fuse-p3.bf" "$SMALL"
run "$B" info --json "$T/filters/fuse-p3.bf"
check_eq "--kind fuse -p 1e-3 picks 16-bit fingerprints" 16 "$(json_value "$OUT" fingerprint_bits)"

KB=$T/filters/bad-kind.bf
expect_error "build --kind bogus -> 2" "bogus" "$B" build --kind bogus -o "$KB" "$SMALL"
expect_error "build --kind Bloom (case matters) -> 2" "kind" "$B" build --kind Bloom -o "$KB" "$SMALL"
expect_error "build --kind '' -> 2" "kind" "$B" build --kind "" -o "$KB" "$SMALL"
for kind in counting cuckoo scalable fuse; do
    expect_error "build --kind $kind --layout block -> 2" "--layout" "$B" build --kind $kind --layout block -o "$KB" "$SMALL"
done
for combo in "cuckoo 4" "cuckoo 10" "cuckoo 32" "fuse 12" "fuse 32" "bloom 8" "counting 8" "scalable 16"; do
    expect_error "build --kind ${combo% *} --bits ${combo#* } -> 2" "--bits" \
        "$B" build --kind ${combo% *} --bits ${combo#* } -o "$KB" "$SMALL"
done
expect_error "build --kind cuckoo --bits 0 -> 2 (0 is not 8, 12 or 16)" "--bits" \
    "$B" build --kind cuckoo --bits 0 -o "$T/filters/bits-0.bf" "$SMALL"
expect_error "build --kind fuse --bits abc -> 2" "--bits" "$B" build --kind fuse --bits abc -o "$KB" "$SMALL"
expect_error "build --kind fuse --bits -8 -> 2" "--bits" "$B" build --kind fuse --bits -8 -o "$KB" "$SMALL"
for combo in "fuse 2" "fuse 5" "fuse 0" "bloom 4" "counting 4" "cuckoo 4" "scalable 4"; do
    expect_error "build --kind ${combo% *} --arity ${combo#* } -> 2" "--arity" \
        "$B" build --kind ${combo% *} --arity ${combo#* } -o "$KB" "$SMALL"
done
expect_error "build --kind fuse --bits 8 --arity 5 -> 2" "--arity" "$B" build --kind fuse --bits 8 --arity 5 -o "$KB" "$SMALL"
expect_error "build --kind fuse -p 1e-6 (below 1/65536) -> 2" "fuse" "$B" build --kind fuse -p 1e-6 -o "$KB" "$SMALL"
check_cond "failed kind builds create no file" "file created" test ! -e "$KB"

need_keys_10k
expect_error "build --kind cuckoo -n 100 for 10000 lines -> 2" "full" \
    "$B" build --kind cuckoo -n 100 -o "$KB" "$T/keys-10k.txt"
check_cond "... and creates no output file" "file created" test ! -e "$KB"
cp "$T/filters/small-cuckoo-file.bf" "$T/filters/cuckoo-existing.bf"
expect_error "build --kind cuckoo -n 100 over an existing file -> 2" "full" \
    "$B" build --kind cuckoo -n 100 -o "$T/filters/cuckoo-existing.bf" "$T/keys-10k.txt"
check_same "... leaves the existing file byte-identical" "$T/filters/small-cuckoo-file.bf" "$T/filters/cuckoo-existing.bf"

# An empty input is refused where it would have to size the filter (bloom, counting, cuckoo
# without -n): a filter for nothing is a mistake to report, not to build silently. Scalable
# (grows) and fuse (built from the keys) need no count, and -n gives one.
for kind in bloom counting cuckoo; do
    expect_error "build --kind $kind from an empty input without -n is refused (it cannot be sized)" "empty" \
        "$B" build --kind $kind -o "$T/filters/empty-$kind.bf" "$T/empty.txt"
    check_cond "... and creates no file" "file created" test ! -e "$T/filters/empty-$kind.bf"
    run "$B" build --kind $kind -n 100 -o "$T/filters/empty-$kind.bf" "$T/empty.txt"
    check_rc "build --kind $kind -n 100 from an empty input exits 0" 0
    run "$B" check "$T/filters/empty-$kind.bf" "$SMALL"
    check_rc "--kind $kind from an empty input: nothing is present" 1
done
for kind in scalable fuse; do
    run "$B" build --kind $kind -o "$T/filters/empty-$kind.bf" "$T/empty.txt"
    check_rc "build --kind $kind from an empty input exits 0" 0
    run "$B" check "$T/filters/empty-$kind.bf" "$SMALL"
    check_rc "--kind $kind from an empty input: nothing is present" 1
done

# ---------------------------------------------------------------------------------------------
# build past -n

run "$B" build -n 10 -o "$T/filters/overfull.bf" "$T/keys-small.txt"
check_rc "build past -n exits 0" 0
check_in "build past -n warns that the filter is overfull" "$ERR" "warning"

# ---------------------------------------------------------------------------------------------
# threads: -t 1 and -t 2 build the same filter (4 inputs: at least 4 blocks for the workers)

need_key_parts
for kind in bloom counting; do
    for t in 1 2; do
        run "$B" build --kind $kind -t $t -n $N -p 0.01 -o "$T/filters/threads-$kind-$t.bf" "${PARTS[@]}"
        check_rc "build --kind $kind -t $t exits 0" 0
    done
    check_cond "--kind $kind: -t 1 and -t 2 set the same filter bits (from byte 129)" "payloads differ" \
        cmp -s <(tail -c +129 "$T/filters/threads-$kind-1.bf") <(tail -c +129 "$T/filters/threads-$kind-2.bf")
    check_same "--kind $kind: -t 1 and -t 2 build the same file (distinct lines)" \
        "$T/filters/threads-$kind-1.bf" "$T/filters/threads-$kind-2.bf"
    check_same "--kind $kind -t 1 from 4 parts = the build from the whole file" \
        "$T/filters/kind-$kind.bf" "$T/filters/threads-$kind-1.bf"
    run "$B" check "$T/filters/threads-$kind-2.bf" "$KEYS"
    check_same "--kind $kind -t 2: every line is found" "$KEYS" "$OUT"
done
expect_error "build -t abc -> 2" "" "$B" build -t abc -n 10 -o "$KB" "$T/lf.txt"

# ---------------------------------------------------------------------------------------------
# errors and safety

NEW=$T/filters/new.bf
expect_error "build with a missing input -> 2" "no-such-input.txt" "$B" build -n 10 -o "$NEW" "$T/no-such-input.txt"
check_cond "build with a missing input creates no output file" "$NEW exists" test ! -e "$NEW"
expect_error "build with a good and a missing input -> 2" "no-such-input.txt" \
    "$B" build -n 10 -o "$NEW" "$KEYS" "$T/no-such-input.txt"
check_cond "... and creates no output file" "$NEW exists" test ! -e "$NEW"

cp "$F" "$T/filters/existing.bf"
expect_error "build over an existing file with a missing input -> 2" "no-such-input.txt" \
    "$B" build -n 10 -o "$T/filters/existing.bf" "$T/lf.txt" "$T/no-such-input.txt"
check_same "a failed build leaves the existing output byte-identical" "$F" "$T/filters/existing.bf"
expect_error "build over an existing file with bad -n -> 2" "-n" \
    "$B" build -n 0 -o "$T/filters/existing.bf" "$T/lf.txt"
check_same "a build with bad -n leaves the existing output byte-identical" "$F" "$T/filters/existing.bf"
run "$B" build -n 100 -o "$T/filters/existing.bf" "$T/lf.txt"
check_same "a successful build replaces the existing output" "$T/filters/lf.bf" "$T/filters/existing.bf"

expect_error "build with an input directory -> 2" "$T" "$B" build -n 10 -o "$NEW" "$T"
check_cond "... and creates no output file" "$NEW exists" test ! -e "$NEW"
expect_error "build into a missing directory -> 2" "no-such-dir" "$B" build -n 10 -o "$T/no-such-dir/x.bf" "$T/lf.txt"
expect_error "build -o a directory -> 2" "" "$B" build -n 10 -o "$T/filters" "$T/lf.txt"
check_cond "build -o a directory leaves the directory" "not a directory any more" test -d "$T/filters"
expect_error "build without -o -> 2" "output" "$B" build -n 10 "$T/lf.txt"
run "$B" build -o "$T/filters/counted.bf" "$T/lf.txt"
check_rc "build without -n (counts the input) exits 0" 0
run "$B" info --json "$T/filters/counted.bf"
check_eq "build without -n is sized for the lines counted" 3 "$(json_value "$OUT" expected_keys)"
run "$B" build -n 3 -o "$T/filters/lf-3.bf" "$T/lf.txt"
check_same "build without -n = build -n (line count)" "$T/filters/lf-3.bf" "$T/filters/counted.bf"
expect_error "build -p 1 -> 2" "-p" "$B" build -n 10 -p 1 -o "$NEW" "$T/lf.txt"
expect_error "build -p -0 -> 2 (negative zero is no rate; named as typed)" "not '-0'" \
    "$B" build -n 10 -p -0 -o "$NEW" "$T/lf.txt"
check_cond "failed builds create no output file" "$NEW exists" test ! -e "$NEW"

no_temp_files "no temporary files left in the output directory" "$T/filters"
no_temp_files "no temporary files left in the work directory" "$T"

# ---------------------------------------------------------------------------------------------
# Sets of lines: repeats are one key

need_keys_10k
for copies in 9 20; do
    for ((i = 0; i < copies; i++)); do echo repeated; done >"$T/repeated.txt"
    cat "$T/keys-10k.txt" >>"$T/repeated.txt"
    run "$B" build --kind cuckoo -o "$T/filters/repeated.bf" "$T/repeated.txt"
    check_rc "cuckoo_build_takes_a_line_repeated_${copies}_times exits 0" 0
    run "$B" check "$T/filters/repeated.bf" <(echo repeated)
    check_rc "cuckoo_build_takes_a_line_repeated_${copies}_times: the line is found" 0
done
run bash -c "head -c 10000000 /dev/zero | tr '\\0' '\\n' | '$B' build --kind cuckoo -o '$T/filters/empty-lines.bf'"
check_rc "cuckoo_build_takes_10M_empty_lines exits 0" 0
run "$B" check "$T/filters/empty-lines.bf" <(echo)
check_rc "cuckoo_build_takes_10M_empty_lines: the empty line is found" 0

# The overfull warning counts distinct keys, not lines: 10k keys each given 3 times, sized for 10k.
cat "$T/keys-10k.txt" "$T/keys-10k.txt" "$T/keys-10k.txt" >"$T/keys-10k-x3.txt"
run "$B" build -n 10000 -o "$T/filters/x3.bf" "$T/keys-10k-x3.txt"
check_rc "overfull_warning_counts_distinct_keys: build exits 0" 0
check_cond "overfull_warning_counts_distinct_keys: no warning for 10000 distinct keys in 30000 lines" \
    "stderr: $(err_line)" test ! -s "$ERR"
run "$B" build -n 5000 -o "$T/filters/x3.bf" "$T/keys-10k-x3.txt"
check_in "overfull_warning_counts_distinct_keys: a real overfill is still reported" "$ERR" "distinct keys"

# ---------------------------------------------------------------------------------------------
# --memory: the filter fits the memory given. Alone it is sized for the lines counted at the
# rate that fits; with -p it chooses the keys; with -n the rate (as plan --memory announces).

MEM=65536
run "$B" build --memory 64K -o "$T/filters/mem.bf" "$SMALL"
check_rc "build --memory 64K exits 0" 0
run "$B" info --json "$T/filters/mem.bf"
check_eq "build --memory 64K (alone): sized for the 20000 lines counted" 20000 "$(json_value "$OUT" expected_keys)"
check_cond "build --memory 64K: info --json filter_bytes <= 65536" "filter_bytes '$(json_value "$OUT" filter_bytes)'" \
    test "$(json_value "$OUT" filter_bytes)" -le $MEM
mem_bits=$(json_value "$OUT" bits)
run "$B" plan -n 20000 --memory 64K --json
check_eq "build --memory 64K (alone): the bits plan -n 20000 --memory 64K announces" "$(plan_value bloom bits)" "$mem_bits"
run "$B" check --count "$T/filters/mem.bf" "$SMALL"
check_same "build --memory 64K: every line is found" "$T/expected-small.txt" "$OUT"
run "$B" build --memory 64K -o "$T/filters/mem-pipe.bf" < <(cat "$SMALL")
check_rc "build --memory 64K (alone) from a pipe exits 0" 0
check_same "build --memory 64K (alone) from a pipe = from the file" "$T/filters/mem.bf" "$T/filters/mem-pipe.bf"
run "$B" build --memory 64K -n 20000 -o "$T/filters/mem-n.bf" "$SMALL"
check_rc "build --memory 64K -n 20000 exits 0" 0
check_same "build --memory 64K -n 20000 = --memory 64K alone on 20000 lines" "$T/filters/mem.bf" "$T/filters/mem-n.bf"

run "$B" build --memory 64K -p 0.01 -o "$T/filters/mem-p.bf" "$SMALL"
check_rc "build --memory 64K -p 0.01 exits 0" 0
run "$B" plan -p 0.01 --memory 64K --json
plan_keys=$(plan_value bloom expected_keys)
run "$B" info --json "$T/filters/mem-p.bf"
check_eq "build --memory 64K -p 0.01: sized for the keys plan -p 0.01 --memory 64K announces" \
    "${plan_keys:-(none in plan)}" "$(json_value "$OUT" expected_keys)"
check_eq "build --memory 64K -p 0.01: target rate 0.01" 0.01 "$(json_value "$OUT" target_fpr)"
check_cond "build --memory 64K -p 0.01: info --json filter_bytes <= 65536" "filter_bytes '$(json_value "$OUT" filter_bytes)'" \
    test "$(json_value "$OUT" filter_bytes)" -le $MEM

run "$B" build --memory 1M -n 1000000 -o "$T/filters/mem-1m.bf" "$SMALL"
run "$B" info --json "$T/filters/mem-1m.bf"
check_eq "build --memory 1M -n 1000000: sized for -n" 1000000 "$(json_value "$OUT" expected_keys)"
check_cond "build --memory 1M -n 1000000: the rate that fits (~2%, as plan says)" "target_fpr '$(json_value "$OUT" target_fpr)'" \
    awk -v p="$(json_value "$OUT" target_fpr)" 'BEGIN { exit !(p > 0.015 && p < 0.025) }'
check_cond "build --memory 1M: info --json filter_bytes <= 1048576" "filter_bytes '$(json_value "$OUT" filter_bytes)'" \
    test "$(json_value "$OUT" filter_bytes)" -le 1048576

for kind in counting cuckoo scalable; do
    run "$B" build --kind $kind --memory 64K -o "$T/filters/mem-$kind.bf" "$SMALL"
    check_rc "build --kind $kind --memory 64K exits 0" 0
    run "$B" info --json "$T/filters/mem-$kind.bf"
    check_cond "build --kind $kind --memory 64K: info --json filter_bytes <= 65536" "filter_bytes '$(json_value "$OUT" filter_bytes)'" \
        test "$(json_value "$OUT" filter_bytes)" -le $MEM
    run "$B" check --count "$T/filters/mem-$kind.bf" "$SMALL"
    check_same "build --kind $kind --memory 64K: every line is found" "$T/expected-small.txt" "$OUT"
done

MB=$T/filters/mem-bad.bf
expect_error "build -n -p --memory (all three) is refused" "at most two" \
    "$B" build -n 20000 -p 0.01 --memory 64K -o "$MB" "$SMALL"
expect_error "build --memory too small for the keys is refused" "does not fit" "$B" build --memory 100 -n 20000 -o "$MB" "$SMALL"
expect_error "build --kind fuse --memory is refused (a fuse filter is sized by its keys)" "fuse" \
    "$B" build --kind fuse --memory 64K -o "$MB" "$SMALL"
for size in 1x 0 -5 abc; do
    expect_error "build --memory '$size' is refused" "--memory" "$B" build --memory "$size" -o "$MB" "$SMALL"
done
check_cond "refused --memory builds create no file" "file created" test ! -e "$MB"
expect_error "build --memory '' is refused (not taken as no --memory)" "--memory" \
    "$B" build --memory "" -o "$T/filters/mem-empty.bf" "$SMALL"

# ---------------------------------------------------------------------------------------------
# Compressed inputs (gzip, zstd), recognised by their first bytes, from files and from stdin

gzip -c "$SMALL" >"$T/keys-20k.txt.gz"
run "$B" build -n 20000 -o "$T/filters/gz.bf" "$T/keys-20k.txt.gz"
check_rc "build from a .gz file exits 0" 0
check_same "build from a .gz file = build from its text" "$T/filters/small-bloom-n-file.bf" "$T/filters/gz.bf"
run "$B" build -n 20000 -o "$T/filters/gz-stdin.bf" <"$T/keys-20k.txt.gz"
check_rc "build from gzip data on stdin exits 0" 0
check_same "build from gzip data on stdin = build from its text" "$T/filters/small-bloom-n-file.bf" "$T/filters/gz-stdin.bf"
run "$B" build -o "$T/filters/gz-counted.bf" "$T/keys-20k.txt.gz"
check_same "build without -n from a .gz file: sized for its lines (= from the text)" \
    "$T/filters/small-bloom-file.bf" "$T/filters/gz-counted.bf"
run "$B" build -o "$T/filters/gz-pipe-counted.bf" < <(cat "$T/keys-20k.txt.gz")
check_same "build without -n from gzip data in a pipe: sized for its lines (= from the text)" \
    "$T/filters/small-bloom-file.bf" "$T/filters/gz-pipe-counted.bf"
{ head -n 7000 "$SMALL" | gzip -c; tail -n +7001 "$SMALL" | gzip -c; } >"$T/members.gz"
run "$B" build -n 20000 -o "$T/filters/members.bf" "$T/members.gz"
check_rc "build from concatenated gzip members exits 0" 0
check_same "build from concatenated gzip members = build from the whole text" \
    "$T/filters/small-bloom-n-file.bf" "$T/filters/members.bf"
run "$B" build -n 20000 -o "$T/filters/gz-and-text.bf" "$T/keys-a.txt" "$T/keys-20k.txt.gz"
check_rc "build from a text file and a .gz file together exits 0" 0
run "$B" check --count "$T/filters/gz-and-text.bf" "$SMALL"
check_same "build from a text file and a .gz file: the .gz file's lines are found" "$T/expected-small.txt" "$OUT"

head -c 20000 "$T/keys-20k.txt.gz" >"$T/truncated.gz"
expect_error "build from a truncated .gz file -> 2, naming the damage" "damaged" \
    "$B" build -n 20000 -o "$T/filters/truncated.bf" "$T/truncated.gz"
check_in "build from a truncated .gz file names the file" "$ERR" "truncated.gz"
check_cond "... and creates no file" "file created" test ! -e "$T/filters/truncated.bf"
expect_error "build from truncated gzip data on stdin -> 2, naming the damage" "damaged" \
    "$B" build -n 20000 -o "$T/filters/truncated.bf" - <"$T/truncated.gz"
cp "$T/keys-20k.txt.gz" "$T/corrupt.gz"
flip_byte "$T/corrupt.gz" 5000
expect_error "build from a corrupt .gz file -> 2" "corrupt.gz" "$B" build -n 20000 -o "$T/filters/truncated.bf" "$T/corrupt.gz"
cp "$F" "$T/filters/gz-existing.bf"
expect_error "build over an existing file from a truncated .gz file -> 2" "damaged" \
    "$B" build -n 20000 -o "$T/filters/gz-existing.bf" "$T/truncated.gz"
check_same "... leaves the existing file byte-identical" "$F" "$T/filters/gz-existing.bf"

# gzip_followed_by_zeros_is_read_as_zcat_reads_it: a gzip file padded with zeros (as tape and
# some tools leave it) holds the lines zcat prints, and nothing more.
{ cat "$T/keys-20k.txt.gz"; head -c 1024 /dev/zero; } >"$T/padded.gz"
zcat "$T/padded.gz" >"$T/padded-zcat.txt" 2>/dev/null
check_same "gzip_followed_by_zeros_is_read_as_zcat_reads_it: (zcat reads the text)" "$SMALL" "$T/padded-zcat.txt"
run "$B" build -n 20000 -o "$T/filters/padded.bf" "$T/padded.gz"
check_rc "gzip_followed_by_zeros_is_read_as_zcat_reads_it: build exits 0" 0
check_same "gzip_followed_by_zeros_is_read_as_zcat_reads_it: build = build from the text" \
    "$T/filters/small-bloom-n-file.bf" "$T/filters/padded.bf"
run "$B" dedup "$T/padded.gz"
check_rc "gzip_followed_by_zeros_is_read_as_zcat_reads_it: dedup exits 0" 0
check_same "gzip_followed_by_zeros_is_read_as_zcat_reads_it: dedup prints what zcat does" "$T/padded-zcat.txt" "$OUT"
run "$B" build -n 20000 -o "$T/filters/padded-stdin.bf" <"$T/padded.gz"
check_same "gzip_followed_by_zeros_is_read_as_zcat_reads_it: from stdin too" \
    "$T/filters/small-bloom-n-file.bf" "$T/filters/padded-stdin.bf"

if command -v zstd >/dev/null; then
    zstd -q -c "$SMALL" >"$T/keys-20k.txt.zst"
    run "$B" build -n 20000 -o "$T/filters/zst.bf" "$T/keys-20k.txt.zst"
    check_rc "build from a .zst file exits 0" 0
    check_same "build from a .zst file = build from its text" "$T/filters/small-bloom-n-file.bf" "$T/filters/zst.bf"
    run "$B" build -o "$T/filters/zst-stdin.bf" <"$T/keys-20k.txt.zst"
    check_same "build without -n from zstd data on stdin = build from its text" \
        "$T/filters/small-bloom-file.bf" "$T/filters/zst-stdin.bf"
    head -c 5000 "$T/keys-20k.txt.zst" >"$T/truncated.zst"
    expect_error "build from a truncated .zst file -> 2, naming the damage" "damaged" \
        "$B" build -n 20000 -o "$T/filters/truncated.bf" "$T/truncated.zst"
else
    echo "# skipped: build from zstd inputs (no zstd)"
fi
no_temp_files "compressed inputs: no temporary files left" "$T/filters"

# ---------------------------------------------------------------------------------------------
# Sizes written with a suffix are exact, and more inputs than open files are allowed

for size in 4.1M:4100000 1.5K:1500 2.5e6:2500000 0.5M:500000; do
    run "$B" build -n "${size%%:*}" -o "$T/filters/sized.bf" "$SMALL"
    run "$B" info --json "$T/filters/sized.bf"
    check_eq "n_with_a_suffix_is_exact: -n ${size%%:*} is ${size##*:} expected keys" "${size##*:}" "$(json_value "$OUT" expected_keys)"
done
rm -f "$T/filters/sized.bf"

# inputs_are_opened_one_at_a_time: 1,100 inputs under a limit of 1,024 open files.
mkdir "$T/many-inputs"
awk -v d="$T/many-inputs" '{ print > (d "/" NR ".txt"); close(d "/" NR ".txt") }' <(head -n 1100 "$SMALL")
run bash -c "ulimit -n 1024 && exec '$B' build -o '$T/filters/many-inputs.bf' '$T/many-inputs'/*.txt"
check_rc "inputs_are_opened_one_at_a_time: build of 1100 inputs under ulimit -n 1024 exits 0" 0
run "$B" check --count "$T/filters/many-inputs.bf" <(head -n 1100 "$SMALL")
check_eq "inputs_are_opened_one_at_a_time: every line of the 1100 inputs is found" 1100 "$(count_of "$OUT" present)"
run bash -c "ulimit -n 1024 && exec '$B' dedup '$T/many-inputs'/*.txt"
check_rc "inputs_are_opened_one_at_a_time: dedup of 1100 inputs under ulimit -n 1024 exits 0" 0
check_eq "inputs_are_opened_one_at_a_time: dedup prints each of the 1100 lines" 1100 "$(lines_of "$OUT")"

# build makes a set of lines for a cuckoo filter too: a repeated line is stored once (told apart
# exactly, not by the filter's answer), so a filter sized for the distinct lines takes an input
# that repeats them, and removing each line once empties it.
for copy in 1 2 3 4 5; do seq -f 'repeated-%.0f' 1 100; done >"$T/repeated-5x.txt"
run "$B" build --kind cuckoo -n 100 -o "$T/filters/repeats.bf" "$T/repeated-5x.txt"
check_rc "build --kind cuckoo of 100 lines 5 times each, -n 100: one copy of each, exit 0" 0
run "$B" info --json "$T/filters/repeats.bf"
check_eq "build --kind cuckoo of 100 lines 5 times each holds 100 fingerprints" 100 "$(json_value "$OUT" inserted_keys)"
sort -u "$T/repeated-5x.txt" >"$T/repeated-once.txt"
run "$B" remove "$T/filters/repeats.bf" "$T/repeated-once.txt"
check_rc "removing each of them once" 0
run "$B" check --count "$T/filters/repeats.bf" "$T/repeated-once.txt"
check_eq "after removing each once, none is left" 0 "$(count_of "$OUT" present)"
seq 1000 | awk '{ for (i = 0; i < 3; i++) print }' >"$T/thrice.txt"
run "$B" build --kind cuckoo -o "$T/filters/thrice.bf" "$T/thrice.txt"
check_rc "build --kind cuckoo without -n of 1000 lines 3 times each" 0

# add keeps a copy each time a line comes (a line may already be in from before, and remove
# undoes each add): adding the same lines again and again fills the filter, and the message says why.
for copy in 1 2 3 4 5 6 7 8 9 10; do cat "$T/repeated-once.txt"; done >"$T/repeated-10x.txt"
expect_error "add of lines already in a cuckoo filter, 10 times each: full, and the message names the repeats" \
    "sort -u" "$B" add "$T/filters/repeats.bf" "$T/repeated-10x.txt"

finish
