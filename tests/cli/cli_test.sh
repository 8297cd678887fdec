#!/usr/bin/env bash
# tests/cli/cli_test.sh — end-to-end test of the bloomkit command.
#
#   bash tests/cli/cli_test.sh /path/to/bloomkit
#
# Self-contained: works in its own temporary directory (removed on exit), uses only bash,
# coreutils and awk, no network. Prints "ok - name" / "not ok - name (details)" per check and
# finally "N passed, M failed"; exits 1 when anything failed.
#
# Exit codes under test (as grep's): check exits 0 when at least one line was selected, 1 when
# none, 2 on any error; remove exits 0 when at least one line was removed, 1 when none, 2 on
# error; the other subcommands exit 0 on success, 2 on error. Errors go to stderr, with nothing
# on stdout.
set -u

if [[ $# -ne 1 || ! -x $1 ]]; then
    echo "usage: bash $0 /path/to/bloomkit" >&2
    exit 2
fi
B=$1
[[ $B == */* ]] || B=./$B
case $B in /*) ;; *) B=$PWD/$B ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-cli-test.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
export LC_ALL=C

# ---------------------------------------------------------------------------------------------
# Harness

passed=0
failed=0
RC=0     # exit code of the last run
OUT=$T/out
ERR=$T/err

pass() { echo "ok - $1"; passed=$((passed + 1)); }
fail() { echo "not ok - $1 (${2//$'\n'/ })"; failed=$((failed + 1)); }

# run CMD...: runs it with stdout to $OUT and stderr to $ERR (stdin as given by the caller); the
# exit code goes to RC (128+N when killed by signal N; the shell's own report of that is muted).
run() { { "$@" >"$OUT" 2>"$ERR"; } 2>/dev/null; RC=$?; }

# The first line of stderr, for failure details.
err_line() { local line=""; IFS= read -r line <"$ERR"; printf '%s' "${line:0:160}"; }

# file_contains FILE TEXT: FILE holds TEXT (case-insensitive). For small files only.
file_contains() {
    local content
    content=$(<"$1")
    [[ ${content,,} == *"${2,,}"* ]]
}

lines_of() { local n; n=$(wc -l <"$1"); echo $((n)); }

# check_rc NAME EXPECTED: the last run exited EXPECTED.
check_rc() {
    if [[ $RC -eq $2 ]]; then pass "$1"; else fail "$1" "exit $RC, expected $2; stderr: $(err_line)"; fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
    if [[ $2 == "$3" ]]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}

# check_same NAME EXPECTED_FILE ACTUAL_FILE: byte-identical files.
check_same() {
    if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$(cmp "$2" "$3" 2>&1 | head -n 1)"; fi
}

# not_same A B: the files differ.
not_same() { ! cmp -s "$1" "$2"; }

# check_in NAME FILE TEXT: FILE contains TEXT (case-insensitive).
check_in() {
    if file_contains "$2" "$3"; then pass "$1"; else fail "$1" "'$3' not found in: $(head -c 200 "$2")"; fi
}

# check_cond NAME DETAILS CONDITION...: the command CONDITION succeeds.
check_cond() {
    local name=$1 details=$2
    shift 2
    if "$@"; then pass "$name"; else fail "$name" "$details"; fi
}

# expect_error NAME TEXT CMD...: CMD exits 2, prints nothing on stdout and a message on stderr
# that contains TEXT (case-insensitive; empty TEXT: any message).
expect_error() {
    local name=$1 text=$2
    shift 2
    run "$@"
    if [[ $RC -ne 2 ]]; then
        fail "$name" "exit $RC, expected 2; stderr: $(err_line)"
    elif [[ -s $OUT ]]; then
        fail "$name" "stdout not empty: $(head -c 100 "$OUT")"
    elif [[ ! -s $ERR ]]; then
        fail "$name" "no message on stderr"
    elif [[ -n $text ]] && ! file_contains "$ERR" "$text"; then
        fail "$name" "stderr lacks '$text': $(err_line)"
    else
        pass "$name"
    fi
}

# expect_success NAME CMD...: CMD exits 0.
expect_success() {
    local name=$1
    shift
    run "$@"
    check_rc "$name" 0
}

# no_temp_files NAME DIR: no leftover ".*.tmp-*" files from atomic saves in DIR.
no_temp_files() {
    local left
    left=$(cd "$2" && compgen -G '.*.tmp-*' | head -n 3 | tr '\n' ' ')
    if [[ -z $left ]]; then pass "$1"; else fail "$1" "left behind: $left"; fi
}

# flip_byte FILE OFFSET: replaces the byte at OFFSET by its complement, in place.
flip_byte() {
    local value
    value=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' \n')
    printf "\\x$(printf '%02x' $((255 - value)))" | dd of="$1" bs=1 seek="$2" count=1 conv=notrunc status=none
}

# json_value FILE KEY: the value of a top-level "KEY": value in one-line JSON (numbers / strings).
json_value() {
    awk -v key="\"$2\": " '{ i = index($0, key); if (i == 0) exit; s = substr($0, i + length(key));
        if (substr(s, 1, 1) == "\"") { s = substr(s, 2); print substr(s, 1, index(s, "\"") - 1) }
        else { match(s, /^[^,}]*/); print substr(s, 1, RLENGTH) } }' "$1"
}

# plan_value KIND KEY: the value of "KEY" in the entry of plan --json's "kinds" array (in $OUT)
# whose "kind" is KIND (numbers / strings).
plan_value() {
    awk -v kind="\"kind\": \"$1\"," -v key="\"$2\": " 'BEGIN { RS = "{" }
        index($0, kind) == 1 { i = index($0, key); if (i == 0) exit; s = substr($0, i + length(key));
            if (substr(s, 1, 1) == "\"") { s = substr(s, 2); print substr(s, 1, index(s, "\"") - 1) }
            else { match(s, /^[^,}]*/); print substr(s, 1, RLENGTH) }
            exit }' "$OUT"
}

# count_of FILE WHAT: the number that check --count printed for WHAT (present / absent).
count_of() { awk -F '\t' -v what="$2" '$1 == what { print $2 }' "$1"; }

# stages_of FILE: the number of stages in an info --json of a scalable filter.
stages_of() { awk '{ n += gsub(/"capacity": /, "") } END { print n + 0 }' "$1"; }

# ---------------------------------------------------------------------------------------------
# Test data

N=100000
KEYS=$T/keys.txt           # key-1 .. key-100000: inserted
OTHERS=$T/others.txt       # other-1 .. other-100000: never inserted
MIXED=$T/mixed.txt         # the two interleaved
seq -f 'key-%.0f' 1 $N >"$KEYS"
seq -f 'other-%.0f' 1 $N >"$OTHERS"
paste -d '\n' "$KEYS" "$OTHERS" >"$MIXED"
head -n 50000 "$KEYS" >"$T/keys-a.txt"
tail -n +50001 "$KEYS" >"$T/keys-b.txt"
FP_LIMIT=1500              # at -p 0.01, 100k absent lines give ~1000 false positives (sd ~32)

mkdir "$T/filters"
F=$T/filters/keys.bf       # the main filter: KEYS at -n 100000 -p 0.01, default layout and seed

# ---------------------------------------------------------------------------------------------
# plan

run "$B" plan -n 50e9 -p 0.01
check_rc "plan -n 50e9 -p 0.01 exits 0" 0
classic=$(awk '$1 == "bloom" && $2 == "classic"' "$OUT")
check_cond "plan: classic layout needs 59.96 GB for 50e9 keys at 1%" "classic line: '$classic'" \
    test "${classic#*59.96 GB}" != "$classic"
check_in "plan: all layouts listed (block)" "$OUT" "bloom block "
check_in "plan: all layouts listed (split-block)" "$OUT" "bloom split-block"
for kind in counting cuckoo scalable fuse; do
    check_cond "plan: a row for --kind $kind, with its memory" "no '$kind' row: $(head -c 200 "$OUT")" \
        awk -v k="$kind" '$1 == k && / [kMGT]?B / { found = 1 } END { exit !found }' "$OUT"
done
check_in "plan: a row for fuse --arity 4" "$OUT" "fuse --arity 4 "
check_in "plan: key count echoed" "$OUT" "50000000000 keys"

run "$B" plan -n 50e9 -p 0.01 --json
check_rc "plan --json exits 0" 0
check_in "plan --json has a \"kinds\" array" "$OUT" '"kinds": ['
for kind in "bloom block" "bloom classic" "bloom split-block" counting cuckoo scalable fuse "fuse --arity 4"; do
    check_eq "plan --json has kind '$kind', possible" true "$(plan_value "$kind" possible)"
done
check_eq "plan --json: 8 kinds in all" 8 "$(awk '{ n += gsub(/"kind": /, "") } END { print n + 0 }' "$OUT")"
check_eq "plan --json classic bytes 59955966982" 59955966982 "$(plan_value "bloom classic" bytes)"
check_eq "plan --json: fuse has 8-bit fingerprints at 1%" f=8 "$(plan_value fuse probes)"
check_eq "plan --json: counting can delete" "adds, deletes" "$(plan_value counting abilities)"
check_eq "plan --json: scalable can grow" "adds, grows" "$(plan_value scalable abilities)"
check_eq "plan --json: fuse is static" static "$(plan_value fuse abilities)"

run "$B" plan -n 1000 -p 1e-6 --json
check_rc "plan -p 1e-6 (beyond a fuse filter) exits 0" 0
check_eq "plan -p 1e-6: fuse is not possible" false "$(plan_value fuse possible)"
check_cond "plan -p 1e-6: the fuse entry says why" "why: '$(plan_value fuse why)'" test -n "$(plan_value fuse why)"
check_eq "plan -p 1e-6: bloom block still possible" true "$(plan_value "bloom block" possible)"
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

# ---------------------------------------------------------------------------------------------
# build + check: no false negatives, bounded false positives, --absent, --count, exit codes

run "$B" build -n $N -p 0.01 -o "$F" "$KEYS"
check_rc "build 100k lines exits 0" 0
check_cond "build prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
check_cond "build wrote the filter file" "no $F" test -s "$F"

run "$B" check "$F" "$KEYS"
check_rc "check of the inserted lines exits 0" 0
check_same "check prints every inserted line, in order (no false negatives)" "$KEYS" "$OUT"
check_eq "check output has exactly 100000 lines (buffered output complete)" $N "$(lines_of "$OUT")"

"$B" check "$F" "$KEYS" 2>/dev/null | cat >"$T/piped.txt"
check_same "check through a pipe: complete output" "$KEYS" "$T/piped.txt"

run "$B" check "$F" "$OTHERS"
fp=$(lines_of "$OUT")
check_cond "false positives over 100k other lines <= 1.5% at -p 0.01" "$fp false positives" test "$fp" -le $FP_LIMIT
check_cond "false positives are not zero (the filter is not exact)" "$fp false positives" test "$fp" -gt 0
check_cond "false positives printed are lines of the input" "unexpected lines" \
    awk 'NR == FNR { seen[$0] = 1; next } !($0 in seen) { exit 1 }' "$OTHERS" "$OUT"

run "$B" check "$F" "$MIXED"
check_rc "check of mixed lines exits 0" 0
cp "$OUT" "$T/present.txt"
run "$B" check --absent "$F" "$MIXED"
check_rc "check --absent of mixed lines exits 0" 0
cp "$OUT" "$T/absent.txt"
check_eq "present + absent = lines checked" $((2 * N)) $(($(lines_of "$T/present.txt") + $(lines_of "$T/absent.txt")))
check_cond "--absent prints exactly the complement, in input order" "the two outputs do not interleave into the input" \
    awk -v pf="$T/present.txt" -v af="$T/absent.txt" '
        BEGIN { hp = (getline p < pf) > 0; ha = (getline a < af) > 0 }
        { if (hp && $0 == p) hp = (getline p < pf) > 0
          else if (ha && $0 == a) ha = (getline a < af) > 0
          else exit 1 }
        END { if (hp || ha) exit 1 }' "$MIXED"
check_cond "--absent never prints an inserted line" "an inserted line reported absent" \
    awk '/^key-/ { exit 1 }' "$T/absent.txt"
check_eq "check of mixed lines: present = 100000 keys + false positives" $((N + fp)) "$(lines_of "$T/present.txt")"

run "$B" check --count "$F" "$MIXED"
check_rc "check --count exits 0 when something is present" 0
printf 'present\t%d\nabsent\t%d\n' $((N + fp)) $((N - fp)) >"$T/expected-count.txt"
check_same "check --count prints present/absent totals" "$T/expected-count.txt" "$OUT"

run "$B" check --count "$F" "$KEYS"
printf 'present\t%d\nabsent\t0\n' $N >"$T/expected-count.txt"
check_same "check --count of inserted lines: all present" "$T/expected-count.txt" "$OUT"

run "$B" check --count --absent "$F" "$KEYS"
check_rc "check --count --absent with nothing absent exits 1" 1
check_same "check --count --absent still prints the totals" "$T/expected-count.txt" "$OUT"

run "$B" check --absent "$F" "$KEYS"
check_rc "check --absent over inserted lines only exits 1" 1
check_cond "check --absent over inserted lines prints nothing" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"

: >"$T/empty.txt"
run "$B" check "$F" "$T/empty.txt"
check_rc "check of an empty input exits 1" 1
check_cond "check of an empty input prints nothing" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"

run "$B" check --count "$F" "$T/empty.txt"
check_rc "check --count of an empty input exits 1" 1
printf 'present\t0\nabsent\t0\n' >"$T/expected-count.txt"
check_same "check --count of an empty input prints zero totals" "$T/expected-count.txt" "$OUT"

printf 'nothing-here-1\nnothing-here-2\n' >"$T/absent-lines.txt"
run "$B" check "$F" "$T/absent-lines.txt"
check_rc "check with no line present exits 1" 1

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

run "$B" check "$F" <"$KEYS"
check_rc "check from stdin (no inputs) exits 0" 0
check_same "check from stdin prints every line" "$KEYS" "$OUT"

run "$B" check "$F" - <"$KEYS"
check_same "check from stdin ('-') prints every line" "$KEYS" "$OUT"

run "$B" check "$F" "$T/keys-b.txt" "$T/keys-a.txt"
check_rc "check of two files exits 0" 0
cat "$T/keys-b.txt" "$T/keys-a.txt" >"$T/expected.txt"
check_same "check of two files prints both, in argument order" "$T/expected.txt" "$OUT"

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
    plan_bits=$(plan_value "bloom $layout" bits)
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
run "$B" info --json "$T/filters/kind-cuckoo.bf"
check_eq "info --json: cuckoo at -p 0.01 has 12-bit fingerprints" 12 "$(json_value "$OUT" fingerprint_bits)"
run "$B" info --json "$T/filters/kind-fuse.bf"
check_eq "info --json: fuse at -p 0.01 has 8-bit fingerprints" 8 "$(json_value "$OUT" fingerprint_bits)"
check_eq "info --json: fuse is 3-wise by default" 3 "$(json_value "$OUT" arity)"
check_eq "info --json: fuse holds the 100000 keys" $N "$(json_value "$OUT" inserted_keys)"
run "$B" info --json "$T/filters/kind-fuse4.bf"
check_eq "info --json: fuse --arity 4 is 4-wise" 4 "$(json_value "$OUT" arity)"
run "$B" info --json "$T/filters/kind-scalable.bf"
check_eq "info --json: scalable -n 100000 holds its keys in 1 stage" 1 "$(stages_of "$OUT")"
for label in counting cuckoo scalable fuse fuse4; do
    run "$B" info --verify "$T/filters/kind-$label.bf"
    check_rc "info --verify on a $label filter exits 0" 0
done

# plan announces the memory that build then takes
run "$B" plan -n $N -p 0.01 --json
for pair in counting:counting cuckoo:cuckoo fuse:fuse "fuse4:fuse --arity 4"; do
    label=${pair%%:*}
    plan_bytes=$(plan_value "${pair#*:}" bytes)
    run "$B" info --json "$T/filters/kind-$label.bf"
    check_eq "--kind ${pair#*:}: the filter has the bytes plan announced" "${plan_bytes:-(none in plan)}" "$(json_value "$OUT" bytes)"
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
TMPDIR=$T/no-such-dir run "$B" build -o "$T/filters/no-spool.bf" <"$SMALL"
check_cond "build without -n from stdin, no usable TMPDIR -> 2" "exit $RC; stderr: $(err_line)" test $RC -eq 2 -a -s "$ERR"
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

head -n 10000 "$KEYS" >"$T/keys-10k.txt"
expect_error "build --kind cuckoo -n 100 for 10000 lines -> 2" "full" \
    "$B" build --kind cuckoo -n 100 -o "$KB" "$T/keys-10k.txt"
check_cond "... and creates no output file" "file created" test ! -e "$KB"
cp "$T/filters/small-cuckoo-file.bf" "$T/filters/cuckoo-existing.bf"
expect_error "build --kind cuckoo -n 100 over an existing file -> 2" "full" \
    "$B" build --kind cuckoo -n 100 -o "$T/filters/cuckoo-existing.bf" "$T/keys-10k.txt"
check_same "... leaves the existing file byte-identical" "$T/filters/small-cuckoo-file.bf" "$T/filters/cuckoo-existing.bf"

for kind in counting cuckoo scalable fuse; do
    run "$B" build --kind $kind -o "$T/filters/empty-$kind.bf" "$T/empty.txt"
    check_rc "build --kind $kind from an empty input exits 0" 0
    run "$B" check "$T/filters/empty-$kind.bf" "$SMALL"
    check_rc "--kind $kind from an empty input: nothing is present" 1
done

# ---------------------------------------------------------------------------------------------
# lines: CRLF, empty lines, huge lines, binary bytes, last line without newline

printf 'alpha\r\nbeta\r\ngamma\r\n' >"$T/crlf.txt"
printf 'alpha\nbeta\ngamma\n' >"$T/lf.txt"
run "$B" build -n 100 -o "$T/filters/crlf.bf" "$T/crlf.txt"
run "$B" check "$T/filters/crlf.bf" "$T/lf.txt"
check_rc "CRLF-built filter: LF lines found (exit 0)" 0
check_same "CRLF-built filter: check prints the LF lines" "$T/lf.txt" "$OUT"
run "$B" build -n 100 -o "$T/filters/lf.bf" "$T/lf.txt"
check_same "CRLF and LF inputs build the same filter" "$T/filters/lf.bf" "$T/filters/crlf.bf"
run "$B" check --count "$T/filters/lf.bf" "$T/crlf.txt"
printf 'present\t3\nabsent\t0\n' >"$T/expected-count.txt"
check_same "LF-built filter: CRLF lines found" "$T/expected-count.txt" "$OUT"
printf 'alpha\r' >"$T/cr-last.txt"
run "$B" check "$T/filters/lf.bf" "$T/cr-last.txt"
check_rc "a last line 'alpha\\r' without newline is found as 'alpha'" 0
printf 'alpha\r\r\n' >"$T/crcr.txt"
run "$B" check "$T/filters/lf.bf" "$T/crcr.txt"
check_rc "only one trailing \\r is stripped ('alpha\\r\\r' is not 'alpha')" 1

printf 'a\n\nb\n' >"$T/with-empty.txt"
run "$B" build -n 100 -o "$T/filters/with-empty.bf" "$T/with-empty.txt"
run "$B" check "$T/filters/with-empty.bf" <<<""
check_rc "an inserted empty line is found (exit 0)" 0
check_cond "check prints the empty line" "stdout: $(od -c "$OUT" | head -n 2)" test "$(od -An -c "$OUT" | tr -d ' ')" = '\n'
run "$B" check --count "$T/filters/with-empty.bf" "$T/with-empty.txt"
printf 'present\t3\nabsent\t0\n' >"$T/expected-count.txt"
check_same "every line of 'a, (empty), b' is found" "$T/expected-count.txt" "$OUT"
run "$B" check "$F" <<<""
check_rc "an empty line is absent from a filter built without one" 1
printf '\r\n' >"$T/cr-only.txt"
run "$B" check "$T/filters/with-empty.bf" "$T/cr-only.txt"
check_rc "a line holding only \\r is the empty key" 0

run "$B" build -n 100 -o "$T/filters/from-empty.bf" "$T/empty.txt"
check_rc "build from an empty input exits 0" 0
run "$B" info --json "$T/filters/from-empty.bf"
check_eq "an empty input holds no key (inserted_keys 0)" 0 "$(json_value "$OUT" inserted_keys)"
run "$B" check "$T/filters/from-empty.bf" <<<""
check_rc "an empty input is not one empty line" 1

BIG=$T/big.txt
BIG2=$T/big2.txt
head -c 10000000 /dev/zero | tr '\0' 'x' >"$BIG"
cp "$BIG" "$BIG2"
printf '\n' >>"$BIG"
printf 'y' | dd of="$BIG2" bs=1 seek=5000000 count=1 conv=notrunc status=none
printf '\n' >>"$BIG2"
{ head -n 10 "$KEYS"; cat "$BIG"; head -n 20 "$KEYS" | tail -n 10; } >"$T/big-mixed.txt"
run "$B" build -n 100 -o "$T/filters/big.bf" "$T/big-mixed.txt"
check_rc "build with a 10 MB line exits 0" 0
run "$B" check "$T/filters/big.bf" "$BIG"
check_rc "the 10 MB line is found (exit 0)" 0
check_same "check prints the 10 MB line intact" "$BIG" "$OUT"
run "$B" check "$T/filters/big.bf" "$BIG2"
check_rc "a 10 MB line differing in one middle byte is absent" 1
run "$B" check "$T/filters/big.bf" "$T/big-mixed.txt"
check_same "the lines around the 10 MB line are found too" "$T/big-mixed.txt" "$OUT"

printf '\xff\xfe\x00abc\nplain\n\x00\n\xc3\x28\xa0\n\x01\x02\t\x7f\n' >"$T/binary.txt"
run "$B" build -n 100 -o "$T/filters/binary.bf" "$T/binary.txt"
check_rc "build from lines with NUL and invalid UTF-8 exits 0" 0
run "$B" check "$T/filters/binary.bf" "$T/binary.txt"
check_rc "lines with NUL and invalid UTF-8 are found (exit 0)" 0
check_same "lines with NUL and invalid UTF-8 round-trip byte-identically" "$T/binary.txt" "$OUT"
printf '\xff\xfe\n' >"$T/binary-prefix.txt"
run "$B" check "$T/filters/binary.bf" "$T/binary-prefix.txt"
check_rc "a key is not cut at its NUL byte ('\\xff\\xfe' absent)" 1
printf '\xff\xfe\x00abd\n' >"$T/binary-other.txt"
run "$B" check "$T/filters/binary.bf" "$T/binary-other.txt"
check_rc "the bytes after a NUL count ('\\xff\\xfe\\x00abd' absent)" 1

printf 'one\ntwo' >"$T/no-newline.txt"
run "$B" build -n 100 -o "$T/filters/no-newline.bf" "$T/no-newline.txt"
run "$B" check "$T/filters/no-newline.bf" <<<"two"
check_rc "a last line without newline is a key" 0
check_eq "check prints it with a newline" "two" "$(<"$OUT")"
run "$B" check "$T/filters/no-newline.bf" "$T/no-newline.txt"
printf 'one\ntwo\n' >"$T/expected.txt"
check_same "checking a last line without newline prints it newline-terminated" "$T/expected.txt" "$OUT"
run "$B" check "$T/filters/no-newline.bf" <<<"tw"
check_rc "a prefix of the last line is absent" 1

# ---------------------------------------------------------------------------------------------
# add

A=$T/filters/add.bf
run "$B" build -n $N -p 0.01 -o "$A" "$T/keys-a.txt"
run "$B" check --count "$A" "$T/keys-b.txt"
before=$(awk -F '\t' '$1 == "present" { print $2 }' "$OUT")
check_cond "before add: the new lines are mostly absent" "$before of 50000 present" test "${before:-50000}" -le 750
cp "$T/keys-b.txt" "$T/more.txt"
run "$B" add "$A" "$T/more.txt"
check_rc "add FILE more.txt exits 0" 0
check_cond "add prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
run "$B" check "$A" "$T/more.txt"
check_same "after add: every added line is found" "$T/more.txt" "$OUT"
run "$B" check "$A" "$T/keys-a.txt"
check_same "after add: every old line is still found" "$T/keys-a.txt" "$OUT"
check_same "build A + add B = build A+B" "$F" "$A"
run "$B" info --json "$A"
inserted=$(json_value "$OUT" inserted_keys)
check_cond "after add: inserted_keys counts old and new lines" "inserted_keys $inserted" test "${inserted:-0}" -gt 99000

printf 'extra-1\nextra-2\n' >"$T/extra.txt"
run "$B" add "$A" <"$T/extra.txt"
check_rc "add from stdin (no inputs) exits 0" 0
run "$B" check "$A" "$T/extra.txt"
check_same "lines added from stdin are found" "$T/extra.txt" "$OUT"
printf 'extra-3\n' >"$T/extra3.txt"
run "$B" add "$A" - <"$T/extra3.txt"
run "$B" check "$A" "$T/extra3.txt"
check_rc "lines added from stdin ('-') are found" 0

expect_error "add to a missing filter file -> 2" "missing.bf" "$B" add "$T/filters/missing.bf" "$T/more.txt"
check_cond "add to a missing filter creates no file" "file created" test ! -e "$T/filters/missing.bf"
cp "$A" "$T/add-backup.bf"
expect_error "add with a missing input -> 2" "no-such-input.txt" "$B" add "$A" "$T/more.txt" "$T/no-such-input.txt"
check_same "add with a missing input leaves the filter unchanged" "$T/add-backup.bf" "$A"
cp "$T/lf.txt" "$T/text.bf"
expect_error "add to a text file -> 2" "not a bloomkit" "$B" add "$T/text.bf" "$T/more.txt"
check_same "add to a text file leaves it unchanged" "$T/lf.txt" "$T/text.bf"
expect_error "add without a filter argument -> 2" "" "$B" add

run "$B" build -n 10 -o "$T/filters/overfull.bf" "$T/keys-small.txt"
check_rc "build past -n exits 0" 0
check_in "build past -n warns that the filter is overfull" "$ERR" "warning"

# ---------------------------------------------------------------------------------------------
# add to a scalable filter (grows) and to a fuse filter (static)

SF=$T/filters/grow.bf
run "$B" build --kind scalable -n 10000 -o "$SF" "$T/keys-10k.txt"
check_rc "build --kind scalable -n 10000 exits 0" 0
run "$B" info --json "$SF"
check_eq "a scalable filter at its capacity has 1 stage" 1 "$(stages_of "$OUT")"
tail -n +10001 "$KEYS" >"$T/keys-rest.txt"
run "$B" add "$SF" "$T/keys-rest.txt"
check_rc "add 90000 lines to a scalable filter sized for 10000 exits 0" 0
check_cond "... without an overfull warning" "stderr: $(err_line)" test ! -s "$ERR"
run "$B" info --json "$SF"
stages=$(stages_of "$OUT")
check_cond "add past its capacity grows the scalable filter (10k+20k+40k+80k: 4 stages)" "$stages stages" test "$stages" -eq 4
run "$B" info "$SF"
check_cond "info shows the 4 stages" "$(head -c 300 "$OUT")" awk '$1 == "stages" && $2 == 4 { ok = 1 } END { exit !ok }' "$OUT"
run "$B" check "$SF" "$KEYS"
check_same "the grown scalable filter finds every line (old and added)" "$KEYS" "$OUT"
run "$B" check --count "$SF" "$OTHERS"
kfp=$(count_of "$OUT" present)
check_cond "the grown scalable filter: false positives <= 1.5% (compound <= p)" "'$kfp' false positives" \
    test "${kfp:-999999}" -le $FP_LIMIT

cp "$T/filters/kind-fuse.bf" "$T/filters/fuse-add.bf"
expect_error "add to a fuse filter -> 2 (static)" "static" "$B" add "$T/filters/fuse-add.bf" "$T/extra.txt"
check_same "add to a fuse filter leaves it unchanged" "$T/filters/kind-fuse.bf" "$T/filters/fuse-add.bf"

# ---------------------------------------------------------------------------------------------
# remove (counting and cuckoo filters)

head -n 5000 "$KEYS" >"$T/remove.txt"
tail -n +5001 "$KEYS" >"$T/kept.txt"
sed -n '5001,5500p' "$KEYS" >"$T/remove-stdin.txt"
sed -n '5501,6000p' "$KEYS" >"$T/remove-dash.txt"
tail -n +6001 "$KEYS" >"$T/kept-after-stdin.txt"
head -n 5000 "$OTHERS" >"$T/others-5k.txt"
for kind in counting cuckoo; do
    RF=$T/filters/remove-$kind.bf
    cp "$T/filters/kind-$kind.bf" "$RF"
    run "$B" remove "$RF" "$T/remove.txt"
    check_rc "remove 5000 added lines from a $kind filter exits 0" 0
    check_cond "remove prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
    check_in "remove reports what it removed" "$ERR" "removed 5000 lines"
    check_cond "remove rewrote the $kind filter" "file unchanged" not_same "$T/filters/kind-$kind.bf" "$RF"
    run "$B" check --count "$RF" "$T/remove.txt"
    gone=$(count_of "$OUT" present)
    check_cond "$kind: removed lines are absent (<= 100 of 5000 still test present)" "'$gone' present" \
        test "${gone:-999999}" -le 100
    run "$B" check "$RF" "$T/kept.txt"
    check_same "$kind: every line not removed is still found" "$T/kept.txt" "$OUT"
    run "$B" info --json "$RF"
    check_eq "$kind: inserted_keys after removing 5000 of 100000" 95000 "$(json_value "$OUT" inserted_keys)"
    run "$B" info --verify "$RF"
    check_rc "$kind: the rewritten file verifies" 0

    run "$B" remove "$RF" <"$T/remove-stdin.txt"
    check_rc "$kind: remove from stdin (no inputs) exits 0" 0
    check_in "$kind: ... and reports 500 lines removed" "$ERR" "removed 500 lines"
    run "$B" remove "$RF" - <"$T/remove-dash.txt"
    check_rc "$kind: remove from stdin ('-') exits 0" 0
    cat "$T/remove-stdin.txt" "$T/remove-dash.txt" >"$T/removed-stdin.txt"
    run "$B" check --count "$RF" "$T/removed-stdin.txt"
    gone=$(count_of "$OUT" present)
    check_cond "$kind: lines removed from stdin are absent (<= 40 of 1000 present)" "'$gone' present" \
        test "${gone:-999999}" -le 40
    run "$B" check "$RF" "$T/kept-after-stdin.txt"
    check_same "$kind: every line not removed is still found" "$T/kept-after-stdin.txt" "$OUT"

    # never-added lines that test absent: nothing to remove, the file stays as it is
    run "$B" check --absent "$RF" "$T/others-5k.txt"
    cp "$OUT" "$T/never-added.txt"
    check_cond "$kind: most never-added lines test absent" "$(lines_of "$T/never-added.txt") of 5000" \
        test "$(lines_of "$T/never-added.txt")" -ge 4800
    cp "$RF" "$T/remove-backup.bf"
    run "$B" remove "$RF" "$T/never-added.txt"
    check_rc "$kind: remove of never-added lines exits 1" 1
    check_in "$kind: ... and says none was removed" "$ERR" "removed 0 lines"
    check_same "$kind: ... and leaves the file byte-identical" "$T/remove-backup.bf" "$RF"
    run "$B" remove "$RF" "$T/empty.txt"
    check_rc "$kind: remove of an empty input exits 1" 1
    check_same "$kind: ... and leaves the file byte-identical" "$T/remove-backup.bf" "$RF"
    expect_error "$kind: remove with a missing input -> 2" "no-such-input.txt" \
        "$B" remove "$RF" "$T/kept.txt" "$T/no-such-input.txt"
    check_same "$kind: remove with a missing input leaves the file unchanged" "$T/remove-backup.bf" "$RF"
done

for label in bloom scalable fuse; do
    cp "$T/filters/kind-$label.bf" "$T/filters/remove-$label.bf"
    expect_error "remove from a $label filter -> 2" "cannot remove" "$B" remove "$T/filters/remove-$label.bf" "$T/remove.txt"
    check_same "remove from a $label filter leaves it unchanged" "$T/filters/kind-$label.bf" "$T/filters/remove-$label.bf"
done
expect_error "remove from a missing filter -> 2" "missing.bf" "$B" remove "$T/filters/missing.bf" "$T/remove.txt"
check_cond "remove from a missing filter creates no file" "file created" test ! -e "$T/filters/missing.bf"
expect_error "remove from a text file -> 2" "not a bloomkit" "$B" remove "$T/text.bf" "$T/remove.txt"
expect_error "remove without a filter argument -> 2" "" "$B" remove

# ---------------------------------------------------------------------------------------------
# threads: -t 1 and -t 2 build the same filter (4 inputs: at least 4 blocks for the workers)

awk -v d="$T" '{ print > (d "/part-" int((NR - 1) / 25000) ".txt") }' "$KEYS"
PARTS=("$T/part-0.txt" "$T/part-1.txt" "$T/part-2.txt" "$T/part-3.txt")
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
for t in 1 2; do
    run "$B" build -t 1 -n $N -p 0.01 -o "$T/filters/add-threads-$t.bf" "$T/part-0.txt"
    run "$B" add --threads $t "$T/filters/add-threads-$t.bf" "${PARTS[@]:1}"
    check_rc "add --threads $t exits 0" 0
done
check_cond "add -t 1 and -t 2 set the same filter bits (from byte 129)" "payloads differ" \
    cmp -s <(tail -c +129 "$T/filters/add-threads-1.bf") <(tail -c +129 "$T/filters/add-threads-2.bf")
check_same "add -t 1 and -t 2 give the same file (distinct lines)" "$T/filters/add-threads-1.bf" "$T/filters/add-threads-2.bf"
expect_error "build -t abc -> 2" "" "$B" build -t abc -n 10 -o "$KB" "$T/lf.txt"
expect_error "add -t abc -> 2" "" "$B" add -t abc "$T/filters/add-threads-1.bf" "$T/lf.txt"

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
check_eq "info --json target_fpp" 0.01 "$(json_value "$OUT" target_fpp)"
check_eq "info --json file_bytes is the file size" "$(wc -c <"$F")" "$(json_value "$OUT" file_bytes)"
check_eq "info --json verified is false without --verify" false "$(json_value "$OUT" verified)"

run "$B" info --verify "$F"
check_rc "info --verify on a good file exits 0" 0
check_in "info --verify says the checksum was verified" "$OUT" "verified"
run "$B" info --verify --json "$F"
check_eq "info --verify --json: verified is true" true "$(json_value "$OUT" verified)"

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
check_cond "failed builds create no output file" "$NEW exists" test ! -e "$NEW"

expect_error "check on a missing filter file -> 2" "missing.bf" "$B" check "$T/filters/missing.bf" "$KEYS"
expect_error "info on a missing filter file -> 2" "missing.bf" "$B" info "$T/filters/missing.bf"
expect_error "check with a missing input -> 2" "no-such-input.txt" "$B" check "$F" "$T/no-such-input.txt"
expect_error "check with a good and a missing input -> 2 (nothing printed)" "no-such-input.txt" \
    "$B" check "$F" "$KEYS" "$T/no-such-input.txt"

expect_error "check on a text file -> 2" "not a bloomkit" "$B" check "$T/text.bf" "$KEYS"
expect_error "info on a text file -> 2" "not a bloomkit" "$B" info "$T/text.bf"
expect_error "check on an empty file -> 2" "" "$B" check "$T/empty.txt" "$KEYS"
expect_error "info on an empty file -> 2" "" "$B" info "$T/empty.txt"
expect_error "check on a directory -> 2" "" "$B" check "$T/filters" "$KEYS"

for size in 4 100 127 128 1000; do
    head -c $size "$F" >"$T/truncated.bf"
    expect_error "check on a filter truncated to $size bytes -> 2" "truncated" "$B" check "$T/truncated.bf" "$KEYS"
    expect_error "info on a filter truncated to $size bytes -> 2" "truncated" "$B" info "$T/truncated.bf"
    expect_error "check --no-verify on a filter truncated to $size bytes -> 2" "truncated" \
        "$B" check --no-verify "$T/truncated.bf" "$KEYS"
done
{ cat "$F"; printf 'x'; } >"$T/trailing.bf"
expect_error "check on a filter with a trailing byte -> 2" "" "$B" check "$T/trailing.bf" "$KEYS"

C=$T/corrupt.bf
cp "$F" "$C"
flip_byte "$C" 1000
check_cond "the corrupt copy differs from the original" "flip_byte did nothing" not_same "$F" "$C"
expect_error "check on a filter with a flipped payload byte -> 2" "checksum" "$B" check "$C" "$KEYS"
run "$B" check --no-verify "$C" "$KEYS"
check_cond "check --no-verify on the corrupt filter runs (exit 0 or 1)" "exit $RC; stderr: $(err_line)" \
    test "$RC" -eq 0 -o "$RC" -eq 1
check_cond "check --no-verify on the corrupt filter prints lines" "no output" test -s "$OUT"
run "$B" info "$C"
check_rc "info (header only) on the corrupt-payload filter exits 0" 0
expect_error "info --verify on the corrupt-payload filter -> 2" "checksum" "$B" info --verify "$C"
expect_error "info --verify --json on the corrupt-payload filter -> 2" "checksum" "$B" info --verify --json "$C"
cp "$C" "$T/corrupt-backup.bf"
expect_error "add to the corrupt-payload filter -> 2" "checksum" "$B" add "$C" "$T/extra.txt"
check_same "add to a corrupt filter leaves it unchanged" "$T/corrupt-backup.bf" "$C"

cp "$F" "$T/corrupt-header.bf"
flip_byte "$T/corrupt-header.bf" 20
expect_error "check on a filter with a flipped header byte -> 2" "header" "$B" check "$T/corrupt-header.bf" "$KEYS"
expect_error "info on a filter with a flipped header byte -> 2" "header" "$B" info "$T/corrupt-header.bf"

no_temp_files "no temporary files left in the output directory" "$T/filters"
no_temp_files "no temporary files left in the work directory" "$T"

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

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
