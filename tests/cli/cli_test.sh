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
# none, 2 on any error; the other subcommands exit 0 on success, 2 on error. Errors go to
# stderr, with nothing on stdout.
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
classic=$(awk '$1 == "classic"' "$OUT")
check_cond "plan: classic layout needs 59.96 GB for 50e9 keys at 1%" "classic line: '$classic'" \
    test "${classic#*59.96 GB}" != "$classic"
check_in "plan: all layouts listed (block)" "$OUT" "block "
check_in "plan: all layouts listed (split-block)" "$OUT" "split-block"
check_in "plan: key count echoed" "$OUT" "50000000000 keys"

run "$B" plan -n 50e9 -p 0.01 --json
check_rc "plan --json exits 0" 0
check_in "plan --json has \"layouts\"" "$OUT" '"layouts"'
for layout in block classic split-block; do
    check_in "plan --json has layout $layout" "$OUT" "\"layout\": \"$layout\""
done
check_in "plan --json classic bytes 59955966982" "$OUT" '"bytes": 59955966982'

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
    plan_bits=$(awk -v l="\"layout\": \"$layout\"" 'index($0, l) { match($0, /"bits": [0-9]+/); print substr($0, RSTART + 8, RLENGTH - 8) }' "$OUT")
    run "$B" info --json "$LF"
    check_eq "--layout $layout: the filter has the bits plan announced" "$plan_bits" "$(json_value "$OUT" bits)"
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
expect_error "build without -n -> 2" "keys" "$B" build -o "$NEW" "$T/lf.txt"
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
for sub in plan build add check info; do
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
