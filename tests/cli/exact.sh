#!/usr/bin/env bash
# tests/cli/exact.sh — end-to-end test of the exact, bounded-memory jobs: `dedup --exact`, `once
# [--repeated]`, `top -k [--approx]`, `intersect --exact [--no-prune]` and `subtract --exact`,
# each against the awk / sort / uniq / comm pipeline it replaces, on inputs several times larger
# than --memory (so that they spill to disk); many short lines (so that partitions are split
# again); a skewed input; lines as they are read (empty, CRLF, no final newline, non-UTF-8, NUL, a
# 10 MB line); pipes and several inputs; --key u64 / u32 / i64; threads; the temporary files after
# success, errors, signals and kill -9; a small tmpfs that is too small or fills; errors (peak RSS:
# memory.sh).
# That the runs do spill, and partition again, is checked too (the test's premises), by the
# --json summary's spilled_bytes and partition_levels.
#
# Temporary files: whether a job keeps them in a bloomkit-spill.* directory of --tmpdir or as
# unnamed files (O_TMPFILE) there, nothing may be left in --tmpdir after a run that ends (well, in
# error, or by SIGTERM / SIGINT); after kill -9 at most one bloomkit-spill.* directory, which the
# next run removes. A run "has spilled" when such a directory is there or the process holds a file
# open in --tmpdir (/proc/PID/fd).
#
#   bash tests/cli/exact.sh /path/to/bloomkit
#
# The reference pipelines (LC_ALL=C, set by lib.sh), on the lines as bloomkit reads them (the
# lines_in filter below: one trailing \r dropped, a last line without \n ended):
#
#   dedup --exact     awk '!seen[$0]++'
#   once              awk 'NR == FNR { n[$0]++; next } n[$0] == 1' IN IN
#   once --repeated   awk 'NR == FNR { n[$0]++; next } n[$0] > 1 && !seen[$0]++' IN IN
#   top -k K          sort | uniq -c | sort -k1,1nr -k2 | head -n K
#   intersect --exact comm -12 <(sort -u A) <(sort -u B)     (bloomkit's output sorted first)
#   subtract --exact  comm -23 <(sort -u A) <(sort -u B)     (bloomkit's output sorted first)
#
# Peak RSS is not checked when BLOOMKIT_SANITIZED is set (the sanitized builds set it: ASan's
# shadow memory and quarantine inflate RSS far beyond --memory). The small-tmpfs checks need root
# (mount); they are skipped otherwise. Kept small for the ASan run in CI (well under a minute):
# inputs of a few MB against --memory 1M.
#
# Harness: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

X=$T/exact            # inputs and expected outputs
SP=$T/spill           # the --tmpdir of most runs: checked after each that nothing is left in it
mkdir "$X" "$SP"
MEM=(--memory 1M --tmpdir "$SP")

# ---------------------------------------------------------------------------------------------
# Reference pipelines

# lines_in FILE...: the lines of the files as bloomkit reads them: everything up to \n minus one
# trailing \r; a last line without \n is a line (of its file: awk reads each file on its own).
lines_in() { awk '{ sub(/\r$/, ""); print }' "$@"; }

ref_dedup() { lines_in "$@" | awk '!seen[$0]++'; }

# ref_once FILE... / ref_repeated FILE...: two passes over the lines (counts, then the lines in
# order); the lines are written to a file first, as a pipe cannot be read twice.
ref_once() {
    lines_in "$@" >"$X/ref-lines"
    awk 'NR == FNR { n[$0]++; next } n[$0] == 1' "$X/ref-lines" "$X/ref-lines"
}
ref_repeated() {
    lines_in "$@" >"$X/ref-lines"
    awk 'NR == FNR { n[$0]++; next } n[$0] > 1 && !seen[$0]++' "$X/ref-lines" "$X/ref-lines"
}

# ref_top K FILE...: the K most frequent lines, ties in byte order of the line (-k2: the field
# after the count, to the end of the line).
ref_top() {
    local k=$1
    shift
    lines_in "$@" | sort | uniq -c | sort -k1,1nr -k2 | head -n "$k"
}

ref_intersect() { comm -12 <(lines_in "$1" | sort -u) <(lines_in "$2" | sort -u); }
ref_subtract() { comm -23 <(lines_in "$1" | sort -u) <(lines_in "$2" | sort -u); }

# canonical FILE: numbers in canonical decimal (leading zeros dropped; "000" is 0), as bloomkit
# prints the keys back under --key u64 / u32 / i64. Text, so exact for any width.
canonical() { sed -E 's/^(-?)0+([0-9])/\1\2/' "$1"; }

# ---------------------------------------------------------------------------------------------
# Harness for the jobs

# leftovers DIR: what is in DIR (a tmpdir: anything there was left by a run), on one line (empty:
# nothing). spill_dirs DIR: how many bloomkit-spill.* entries; others DIR: the other entries.
leftovers() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f ' | head -c 300; }
spill_dirs() { find "$1" -mindepth 1 -maxdepth 1 -name 'bloomkit-spill.*' -printf . | wc -c; }
others() { find "$1" -mindepth 1 -maxdepth 1 ! -name 'bloomkit-spill.*' -printf '%f ' | head -c 300; }

# expected_from FILE: copies FILE (often a process substitution, readable once) to $X/expected.
expected_from() { cat "$1" >"$X/expected"; }

# judge NAME RC EXPECTED ACTUAL: the last run exited RC, ACTUAL is EXPECTED byte for byte, and
# nothing is left in $SP. One check: a job is right only when all three hold.
judge() {
    local left
    left=$(leftovers "$SP")
    if [[ $RC -ne $2 ]]; then
        fail "$1" "exit $RC, expected $2; stderr: $(err_line)"
    elif ! cmp -s "$3" "$4"; then
        fail "$1" "$(lines_of "$4") lines, expected $(lines_of "$3"): $(cmp "$3" "$4" 2>&1 | head -n 1)"
    elif [[ -n $left ]]; then
        fail "$1" "left in the tmpdir: $left"
    else
        pass "$1"
    fi
}

# expect_lines NAME EXPECTED_FILE CMD...: CMD prints EXPECTED_FILE byte for byte (dedup, once,
# top: their order is part of the answer), and exits 0 when that is not empty, 1 when it is (as
# grep).
expect_lines() {
    local name=$1
    expected_from "$2"
    shift 2
    run "$@"
    judge "$name" "$(rc_as_grep "$X/expected")" "$X/expected" "$OUT"
}

# expect_set NAME EXPECTED_FILE CMD...: for intersect and subtract, whose order is their own:
# CMD's output, sorted, is EXPECTED_FILE (sorted, each line once: so no line is printed twice),
# and CMD exits 0 when that is not empty, 1 when it is (as grep).
expect_set() {
    local name=$1
    expected_from "$2"
    shift 2
    run "$@"
    sort "$OUT" >"$X/sorted-out"
    judge "$name" "$(rc_as_grep "$X/expected")" "$X/expected" "$X/sorted-out"
}

# same_for_threads NAME COMMAND ARGS...: `bloomkit COMMAND -t 1 ARGS` and `... -t 2 ARGS` exit
# alike and print the same bytes (intersect and subtract too: their order may be their own, but
# not depend on the threads).
same_for_threads() {
    local name=$1 command=$2 rc1
    shift 2
    run "$B" "$command" -t 1 "$@"
    rc1=$RC
    cp "$OUT" "$X/t1.out"
    run "$B" "$command" -t 2 "$@"
    if [[ $RC -ne $rc1 ]]; then
        fail "$name" "-t 1 exited $rc1, -t 2 $RC; stderr: $(err_line)"
    elif ! cmp -s "$X/t1.out" "$OUT"; then
        fail "$name" "$(cmp "$X/t1.out" "$OUT" 2>&1 | head -n 1)"
    else
        pass "$name"
    fi
}

# size_of FILE: in bytes.
size_of() { stat -c %s "$1"; }

# ---------------------------------------------------------------------------------------------
# Test data. Deterministic on every awk: a 32-bit LCG (x * 69069 + 1 mod 2^32 stays exact in a
# double), no srand.

# gen_urls N MODE: N URL-like lines (~68 bytes). MODE a: a line is a repeat of an earlier one
# with probability 0.3, else new. MODE b: with probability 0.5 the line of a number drawn below
# 75000 (A's numbers: most of them lines of A), else a line no A has.
gen_urls() {
    awk -v n="$1" -v mode="$2" '
        function url(j) { return sprintf("https://www.site%05d.example.com/articles/%04x%04x/item-%d.html",
                                         (j * 7919) % 100000, (j * 40503) % 65536, (j * 2039) % 65536, j) }
        function draw() { x = (x * 69069 + 1) % 4294967296; return x / 4294967296 }
        BEGIN { x = (mode == "a") ? 1 : 2
                for (i = 0; i < n; i++) {
                    if (mode == "a") j = (i > 0 && draw() < 0.3) ? int(draw() * i) : i
                    else j = (draw() < 0.5) ? int(draw() * 75000) : 1000000 + i
                    print url(j) } }'
}

A=$X/a.txt            # 75000 lines, ~5 MB, ~57000 distinct: 5x --memory 1M
BF=$X/b.txt           # 45000 lines, ~3 MB: about half of them lines of A
SMALL=$X/small.txt    # 200 lines of B: a small side, for pruning
gen_urls 75000 a >"$A"
gen_urls 45000 b >"$BF"
head -n 200 "$BF" >"$SMALL"
head -n 40000 "$A" >"$X/a1.txt"     # A in two parts
tail -n +40001 "$A" >"$X/a2.txt"
: >"$X/empty.txt"
: >"$X/nothing"                     # the expected output of a job that finds nothing

ref_dedup "$A" >"$X/dedup-a"
ref_once "$A" >"$X/once-a"
ref_repeated "$A" >"$X/repeated-a"
ref_top 10 "$A" >"$X/top-a"
ref_intersect "$A" "$BF" >"$X/intersect-ab"
ref_subtract "$A" "$BF" >"$X/subtract-ab"
ref_subtract "$BF" "$A" >"$X/subtract-ba"
ref_intersect "$A" "$SMALL" >"$X/intersect-a-small"
ref_subtract "$A" "$SMALL" >"$X/subtract-a-small"
ref_subtract "$SMALL" "$A" >"$X/subtract-small-a"

check_cond "test data: A is several times --memory 1M (>= 4 MB)" "$(size_of "$A") bytes" \
    test "$(size_of "$A")" -ge 4000000
check_cond "test data: A has repeats, lines seen once and lines seen more" \
    "$(lines_of "$X/dedup-a") distinct of 75000, $(lines_of "$X/once-a") once, $(lines_of "$X/repeated-a") repeated" \
    test "$(lines_of "$X/dedup-a")" -lt 70000 -a -s "$X/once-a" -a -s "$X/repeated-a"
check_cond "test data: A and B overlap, and each has lines the other lacks" \
    "$(lines_of "$X/intersect-ab") common, $(lines_of "$X/subtract-ab") only in A, $(lines_of "$X/subtract-ba") only in B" \
    test -s "$X/intersect-ab" -a -s "$X/subtract-ab" -a -s "$X/subtract-ba" -a -s "$X/intersect-a-small"

# ---------------------------------------------------------------------------------------------
# Each job = its reference pipeline, on 5 MB at --memory 1M (spilled to disk)

expect_lines "dedup --exact --memory 1M = awk '!seen[\$0]++'" "$X/dedup-a" "$B" dedup --exact "${MEM[@]}" "$A"
expect_lines "once --memory 1M = the lines seen once, in input order" "$X/once-a" "$B" once "${MEM[@]}" "$A"
expect_lines "once --repeated --memory 1M = the lines seen twice or more, each once, in order of first appearance" \
    "$X/repeated-a" "$B" once --repeated "${MEM[@]}" "$A"
expect_lines "top -k 10 --memory 1M = sort | uniq -c | sort -k1,1nr -k2 | head -n 10" "$X/top-a" \
    "$B" top -k 10 "${MEM[@]}" "$A"
ref_top 100000 "$A" >"$X/top-all-a"
expect_lines "top -k 100000 (more than the distinct lines) = every distinct line, counted" "$X/top-all-a" \
    "$B" top -k 100000 "${MEM[@]}" "$A"
expect_set "intersect --exact --memory 1M, sorted = comm -12" "$X/intersect-ab" "$B" intersect --exact "${MEM[@]}" "$A" "$BF"
expect_set "intersect --exact --no-prune, sorted = comm -12" "$X/intersect-ab" \
    "$B" intersect --exact --no-prune "${MEM[@]}" "$A" "$BF"
expect_set "intersect --exact B A (the other way round), sorted = comm -12" "$X/intersect-ab" \
    "$B" intersect --exact "${MEM[@]}" "$BF" "$A"
expect_set "subtract --exact A B, sorted = comm -23" "$X/subtract-ab" "$B" subtract --exact "${MEM[@]}" "$A" "$BF"
expect_set "subtract --exact B A, sorted = comm -23" "$X/subtract-ba" "$B" subtract --exact "${MEM[@]}" "$BF" "$A"
expect_set "subtract --exact --no-prune, sorted = comm -23" "$X/subtract-ab" \
    "$B" subtract --exact --no-prune "${MEM[@]}" "$A" "$BF"

# A small side and a big one: where pruning (a filter of one side) drops most of the other.
expect_set "intersect --exact A SMALL, sorted = comm -12" "$X/intersect-a-small" "$B" intersect --exact "${MEM[@]}" "$A" "$SMALL"
expect_set "intersect --exact SMALL A, sorted = comm -12" "$X/intersect-a-small" "$B" intersect --exact "${MEM[@]}" "$SMALL" "$A"
expect_set "intersect --exact --no-prune A SMALL, sorted = comm -12" "$X/intersect-a-small" \
    "$B" intersect --exact --no-prune "${MEM[@]}" "$A" "$SMALL"
expect_set "subtract --exact A SMALL, sorted = comm -23" "$X/subtract-a-small" "$B" subtract --exact "${MEM[@]}" "$A" "$SMALL"
expect_set "subtract --exact SMALL A, sorted = comm -23" "$X/subtract-small-a" "$B" subtract --exact "${MEM[@]}" "$SMALL" "$A"

# Nothing found: intersect, subtract and once exit 1 (as grep).
expect_set "intersect --exact of inputs with no line in common exits 1, prints nothing" "$X/nothing" \
    "$B" intersect --exact "${MEM[@]}" "$X/subtract-ab" "$X/subtract-ba"
expect_set "subtract --exact A A exits 1, prints nothing" "$X/nothing" "$B" subtract --exact "${MEM[@]}" "$A" "$A"
cat "$A" "$A" >"$X/a-twice.txt"
expect_lines "once of an input where every line repeats exits 1, prints nothing" "$X/nothing" \
    "$B" once "${MEM[@]}" "$X/a-twice.txt"
expect_lines "once --repeated of A twice = dedup of A (every line repeats)" "$X/dedup-a" \
    "$B" once --repeated "${MEM[@]}" "$X/a-twice.txt"
expect_lines "once --repeated of lines that never repeat exits 1, prints nothing" "$X/nothing" \
    "$B" once --repeated "${MEM[@]}" "$X/dedup-a"

# --json: the same output, and a summary object on stderr; by it, the test's premise: A at
# --memory 1M is spilled.
run "$B" dedup --exact --json "${MEM[@]}" "$A"
check_same "dedup --exact --json: stdout still holds the lines" "$X/dedup-a" "$OUT"
check_cond "dedup --exact --json: a JSON object on stderr" "stderr: $(err_line)" grep -q '^{.*}$' "$ERR"
spilled_bytes=$(json_value "$ERR" spilled_bytes)
check_cond "test premise: dedup --exact of A (5 MB) at --memory 1M spills (--json spilled_bytes > 0)" \
    "spilled_bytes '$spilled_bytes'" test "${spilled_bytes:-0}" -gt 0
run "$B" intersect --exact --json "${MEM[@]}" "$A" "$BF"
check_cond "intersect --exact --json: a JSON object on stderr" "stderr: $(err_line)" grep -q '^{.*}$' "$ERR"

# ---------------------------------------------------------------------------------------------
# Threads: the output does not depend on -t

same_for_threads "dedup --exact: -t 1 and -t 2 print the same" dedup --exact "${MEM[@]}" "$A"
same_for_threads "once: -t 1 and -t 2 print the same" once "${MEM[@]}" "$A"
same_for_threads "once --repeated: -t 1 and -t 2 print the same" once --repeated "${MEM[@]}" "$A"
same_for_threads "top -k 10: -t 1 and -t 2 print the same" top -k 10 "${MEM[@]}" "$A"
same_for_threads "intersect --exact: -t 1 and -t 2 print the same bytes" intersect --exact "${MEM[@]}" "$A" "$BF"
same_for_threads "subtract --exact: -t 1 and -t 2 print the same bytes" subtract --exact "${MEM[@]}" "$A" "$BF"

# ---------------------------------------------------------------------------------------------
# Many short lines: 450000 of 8 bytes, 400000 distinct. An entry in memory costs several times
# its line (a head, an index slot), so parts cut by the input's bytes do not fit, and are split
# again (--json partition_levels >= 2: the premise, checked). SHORT_B: 200000 lines, half of them
# in SHORT.

# gen_short FIRST COUNT STEP: the lines hex(hash(k)) for k = FIRST + (i * STEP) % 400000, i < COUNT
# (hash: k * 2654435761 mod 2^32 in 16-bit halves, a bijection; STEP 7 is prime to 400000, so
# the first 400000 are distinct).
gen_short() {
    awk -v first="$1" -v n="$2" -v step="$3" 'BEGIN {
        for (i = 0; i < n; i++) {
            k = first + (i * step) % 400000
            h = ((k * 40503) % 65536 * 65536 + k * 31153) % 4294967296
            printf "%04x%04x\n", int(h / 65536), h % 65536 } }'
}
SHORT=$X/short.txt
gen_short 0 450000 7 >"$SHORT"
gen_short 300000 200000 1 >"$X/short-b.txt"   # k in [300000, 500000): half in SHORT
ref_dedup "$SHORT" >"$X/short-dedup"
run "$B" dedup --exact --json "${MEM[@]}" "$SHORT"
judge "short lines: dedup --exact = awk" 0 "$X/short-dedup" "$OUT"
levels=$(json_value "$ERR" partition_levels)
check_cond "test premise: short lines at --memory 1M are partitioned again (--json partition_levels >= 2)" \
    "partition_levels '$levels'" test "${levels:-0}" -ge 2
expect_lines "short lines: once = awk" <(ref_once "$SHORT") "$B" once "${MEM[@]}" "$SHORT"
expect_lines "short lines: top -k 5 = the pipeline (ties in byte order)" <(ref_top 5 "$SHORT") \
    "$B" top -k 5 "${MEM[@]}" "$SHORT"
expect_set "short lines: intersect --exact, sorted = comm -12" <(ref_intersect "$SHORT" "$X/short-b.txt") \
    "$B" intersect --exact "${MEM[@]}" "$SHORT" "$X/short-b.txt"
expect_set "short lines: subtract --exact, sorted = comm -23" <(ref_subtract "$SHORT" "$X/short-b.txt") \
    "$B" subtract --exact "${MEM[@]}" "$SHORT" "$X/short-b.txt"

# ---------------------------------------------------------------------------------------------
# A skewed input: one line a million times (4 MB of it alone: more than --memory 1M, and no
# split of a partition by hash ever separates its copies), one 1000 times, 10000 lines twice and
# 30000 once. Each run must end (no recursion without end, no quadratic blowup): each is run
# under `timeout 120`, and a run it ends (exit 124) fails. They take a fraction of a second; a
# blowup on a million lines would take hours.

SKEW=$X/skew.txt
awk 'BEGIN { for (i = 0; i < 1000000; i++) {
                 print "hot"
                 if (i % 1000 == 0) print "warm"
                 if (i % 20 == 0) print "cold-" (i / 20) % 40000 } }' >"$SKEW"
printf 'hot\nwarm\ncold-39999\nnot-there\nhot\n' >"$X/skew-b.txt"
ref_dedup "$SKEW" >"$X/skew-dedup"
ref_once "$SKEW" >"$X/skew-once"
ref_repeated "$SKEW" >"$X/skew-repeated"
ref_top 5 "$SKEW" >"$X/skew-top"      # hot, warm, then 3 of the lines seen twice: ties, in byte order
ref_intersect "$SKEW" "$SKEW" >"$X/skew-intersect"
ref_subtract "$SKEW" "$X/skew-b.txt" >"$X/skew-subtract"

timed_out=0
# skew_case CHECK NAME EXPECTED CMD...: CHECK (expect_lines or expect_set) of `timeout 120 CMD`;
# a run the timeout ended is counted in $timed_out.
skew_case() {
    local check=$1 name=$2 expected=$3
    shift 3
    "$check" "$name" "$expected" timeout 120 "$@"
    [[ $RC -eq 124 ]] && timed_out=$((timed_out + 1))
}
skew_case expect_lines "skewed: dedup --exact = awk" "$X/skew-dedup" "$B" dedup --exact "${MEM[@]}" "$SKEW"
skew_case expect_lines "skewed: once = awk" "$X/skew-once" "$B" once "${MEM[@]}" "$SKEW"
skew_case expect_lines "skewed: once --repeated = awk" "$X/skew-repeated" "$B" once --repeated "${MEM[@]}" "$SKEW"
skew_case expect_lines "skewed: top -k 5 = sort | uniq -c | sort -k1,1nr -k2 (ties in byte order)" "$X/skew-top" \
    "$B" top -k 5 "${MEM[@]}" "$SKEW"
skew_case expect_set "skewed: intersect --exact of the input with itself, sorted = comm -12" "$X/skew-intersect" \
    "$B" intersect --exact "${MEM[@]}" "$SKEW" "$SKEW"
skew_case expect_set "skewed: subtract --exact, sorted = comm -23" "$X/skew-subtract" \
    "$B" subtract --exact "${MEM[@]}" "$SKEW" "$X/skew-b.txt"
check_eq "skewed: every run ended, none stopped by the timeout (no blowup on one line repeated a million times)" \
    0 $timed_out

# top --approx: one pass, approximate; only that it runs, prints K lines and puts the line seen
# a million times first.
run "$B" top --approx -k 3 "${MEM[@]}" "$SKEW"
check_rc "skewed: top --approx -k 3 exits 0" 0
check_eq "skewed: top --approx -k 3 prints 3 lines" 3 "$(lines_of "$OUT")"
first=""
IFS= read -r first <"$OUT"
check_cond "skewed: top --approx puts the line seen a million times first" "first line: '${first:0:80}'" \
    test "${first##* }" = hot

# ---------------------------------------------------------------------------------------------
# Lines: empty, CRLF, without a final newline, non-UTF-8, NUL, a 10 MB line

# edge.txt's lines, as read: alpha, "", alpha, "" (a lone \r), \xff\xfe\x80, " beta " (blanks
# kept), " beta", \xff\xfe\x80 (CRLF), "", \xc3\x28, "alpha\r" (one \r dropped of two),
# "gamma<TAB>delta", omega (no final newline).
EDGE=$X/edge.txt
printf 'alpha\r\n\nalpha\n\r\n\xff\xfe\x80\n beta \n beta\n\xff\xfe\x80\r\n\n\xc3\x28\nalpha\r\r\ngamma\tdelta\nomega' >"$EDGE"
printf 'omega\n\n\xff\xfe\x80\nalpha\r\nzeta\n' >"$X/edge-b.txt"
ref_dedup "$EDGE" >"$X/edge-dedup"
check_cond "test data: edge.txt reads as 13 lines, 9 distinct" "$(lines_in "$EDGE" | wc -l) lines, $(lines_of "$X/edge-dedup") distinct" \
    test "$(lines_in "$EDGE" | wc -l)" -eq 13 -a "$(lines_of "$X/edge-dedup")" -eq 9
expect_lines "edge lines: dedup --exact = awk (empty lines, CRLF, non-UTF-8, blanks, no final newline)" \
    "$X/edge-dedup" "$B" dedup --exact "${MEM[@]}" "$EDGE"
expect_lines "edge lines: once = awk" <(ref_once "$EDGE") "$B" once "${MEM[@]}" "$EDGE"
expect_lines "edge lines: once --repeated = awk" <(ref_repeated "$EDGE") "$B" once --repeated "${MEM[@]}" "$EDGE"
expect_lines "edge lines: top -k 4 = sort | uniq -c | sort -k1,1nr -k2" <(ref_top 4 "$EDGE") "$B" top -k 4 "${MEM[@]}" "$EDGE"
expect_set "edge lines: intersect --exact, sorted = comm -12" <(ref_intersect "$EDGE" "$X/edge-b.txt") \
    "$B" intersect --exact "${MEM[@]}" "$EDGE" "$X/edge-b.txt"
expect_set "edge lines: subtract --exact, sorted = comm -23" <(ref_subtract "$EDGE" "$X/edge-b.txt") \
    "$B" subtract --exact "${MEM[@]}" "$EDGE" "$X/edge-b.txt"

# A CRLF copy of A: the same keys, and the lines printed without their \r.
sed 's/$/\r/' "$A" >"$X/a-crlf.txt"
expect_lines "CRLF input: dedup --exact = the LF input's, without \\r" "$X/dedup-a" "$B" dedup --exact "${MEM[@]}" "$X/a-crlf.txt"
expect_set "CRLF input against LF input: intersect --exact = the LF inputs'" "$X/intersect-ab" \
    "$B" intersect --exact "${MEM[@]}" "$X/a-crlf.txt" "$BF"

# NUL is a byte like any other (awk is not trusted with it: the answers are written out).
printf 'a\0b\nc\na\0b\na\0c\n' >"$X/nul.txt"
expect_lines "NUL bytes: dedup --exact keeps them" <(printf 'a\0b\nc\na\0c\n') "$B" dedup --exact "${MEM[@]}" "$X/nul.txt"
expect_lines "NUL bytes: once tells a\\0b from a\\0c" <(printf 'c\na\0c\n') "$B" once "${MEM[@]}" "$X/nul.txt"
expect_set "NUL bytes: intersect --exact" <(printf 'a\0c\n') "$B" intersect --exact "${MEM[@]}" "$X/nul.txt" <(printf 'a\0c\na\n')

# A 10 MB line, twice (once with CRLF), among short ones; at --memory 32M it fits.
head -c 10000000 /dev/zero | tr '\0' x >"$X/x10M"
LONG=$X/long.txt
{ cat "$X/x10M"; printf '\na\n'; cat "$X/x10M"; printf '\r\nb\na'; } >"$LONG"
{ printf 'b\nzzz\n'; cat "$X/x10M"; printf '\n'; } >"$X/long-b.txt"
LM=(--memory 32M --tmpdir "$SP")
expect_lines "a 10 MB line (--memory 32M): dedup --exact = awk" <(ref_dedup "$LONG") "$B" dedup --exact "${LM[@]}" "$LONG"
expect_lines "a 10 MB line (--memory 32M): once = awk" <(ref_once "$LONG") "$B" once "${LM[@]}" "$LONG"
expect_lines "a 10 MB line (--memory 32M): once --repeated = awk" <(ref_repeated "$LONG") "$B" once --repeated "${LM[@]}" "$LONG"
expect_lines "a 10 MB line (--memory 32M): top -k 3 = sort | uniq -c | sort -k1,1nr -k2" <(ref_top 3 "$LONG") \
    "$B" top -k 3 "${LM[@]}" "$LONG"
expect_set "a 10 MB line (--memory 32M): intersect --exact, sorted = comm -12" <(ref_intersect "$LONG" "$X/long-b.txt") \
    "$B" intersect --exact "${LM[@]}" "$LONG" "$X/long-b.txt"
expect_set "a 10 MB line (--memory 32M): subtract --exact, sorted = comm -23" <(ref_subtract "$X/long-b.txt" "$LONG") \
    "$B" subtract --exact "${LM[@]}" "$X/long-b.txt" "$LONG"

# sane_or_refused NAME EXPECTED CMD...: a line larger than --memory: either the right answer
# (exit 0, or 1 for an empty set) or a refusal (exit 2, a message, nothing on stdout); never a
# wrong answer, a crash or a temporary file left behind.
sane_or_refused() {
    local name=$1
    expected_from "$2"
    shift 2
    run "$@"
    if [[ $RC -eq 2 && -s $ERR && ! -s $OUT && -z $(leftovers "$SP") ]]; then
        pass "$name (refused: $(err_line))"
    elif [[ $RC -eq 2 ]]; then
        fail "$name" "exit 2, but stdout $(size_of "$OUT") bytes, stderr $(size_of "$ERR") bytes, left: $(leftovers "$SP")"
    else
        judge "$name" "$(rc_as_grep "$X/expected")" "$X/expected" "$OUT"
    fi
}
sane_or_refused "a 10 MB line at --memory 1M: dedup --exact is right or refuses cleanly" <(ref_dedup "$LONG") \
    "$B" dedup --exact "${MEM[@]}" "$LONG"
sane_or_refused "a 10 MB line at --memory 1M: top -k 3 is right or refuses cleanly" <(ref_top 3 "$LONG") \
    "$B" top -k 3 "${MEM[@]}" "$LONG"
rm -f "$X/x10M"

# ---------------------------------------------------------------------------------------------
# Inputs: stdin, several files, a file and stdin, empty inputs

expect_lines "dedup --exact - (stdin) = awk" "$X/dedup-a" "$B" dedup --exact "${MEM[@]}" - <"$A"
expect_lines "dedup --exact from a pipe, no input named = awk" "$X/dedup-a" "$B" dedup --exact "${MEM[@]}" < <(cat "$A")
expect_lines "dedup --exact of two files = awk over both (repeats across the files held back)" "$X/dedup-a" \
    "$B" dedup --exact "${MEM[@]}" "$X/a1.txt" "$X/a2.txt"
expect_lines "dedup --exact of a file and stdin = awk over both" "$X/dedup-a" \
    "$B" dedup --exact "${MEM[@]}" "$X/a1.txt" - <"$X/a2.txt"
expect_lines "once of two files = awk over both (a line once in each is seen twice)" "$X/once-a" \
    "$B" once "${MEM[@]}" "$X/a1.txt" "$X/a2.txt"
expect_lines "once --repeated of a file and stdin = awk over both" "$X/repeated-a" \
    "$B" once --repeated "${MEM[@]}" - "$X/a2.txt" <"$X/a1.txt"
expect_lines "top -k 10 of two files = the pipeline over both" "$X/top-a" "$B" top -k 10 "${MEM[@]}" "$X/a1.txt" "$X/a2.txt"
expect_lines "top -k 10 - (stdin) = the pipeline" "$X/top-a" "$B" top -k 10 "${MEM[@]}" - <"$A"
expect_set "intersect --exact - B (A from stdin), sorted = comm -12" "$X/intersect-ab" \
    "$B" intersect --exact "${MEM[@]}" - "$BF" <"$A"
expect_set "intersect --exact A - (B from stdin), sorted = comm -12" "$X/intersect-ab" \
    "$B" intersect --exact "${MEM[@]}" "$A" - <"$BF"
expect_set "subtract --exact of two pipes, sorted = comm -23" "$X/subtract-ab" \
    "$B" subtract --exact "${MEM[@]}" <(cat "$A") <(cat "$BF")

# A file without a final newline, then another: its last line is a line of its own (as awk reads
# them), not glued to the next file's first.
printf 'x\ny' >"$X/no-newline.txt"
printf 'z\ny\n' >"$X/then.txt"
expect_lines "dedup --exact: a last line without newline ends at the end of its file" <(printf 'x\ny\nz\n') \
    "$B" dedup --exact "${MEM[@]}" "$X/no-newline.txt" "$X/then.txt"

expect_lines "dedup --exact of an empty input: nothing, exit 1" "$X/nothing" "$B" dedup --exact "${MEM[@]}" "$X/empty.txt"
expect_lines "dedup --exact --key u32 of an empty input: nothing, exit 1" "$X/nothing" \
    "$B" dedup --exact --key u32 "${MEM[@]}" "$X/empty.txt"
expect_lines "once of an empty input: nothing, exit 1" "$X/nothing" "$B" once "${MEM[@]}" "$X/empty.txt"
expect_lines "top -k 3 of an empty input: nothing, exit 1" "$X/nothing" "$B" top -k 3 "${MEM[@]}" "$X/empty.txt"
expect_lines "top --approx -k 3 of an empty input: nothing, exit 1" "$X/nothing" \
    "$B" top --approx -k 3 "${MEM[@]}" "$X/empty.txt"
expect_set "intersect --exact with an empty input: exit 1" "$X/nothing" "$B" intersect --exact "${MEM[@]}" "$X/empty.txt" "$A"
expect_set "subtract --exact A (empty): all of A's distinct lines" <(sort -u "$A") \
    "$B" subtract --exact "${MEM[@]}" "$A" "$X/empty.txt"
expect_lines "dedup --exact of empty lines only: one empty line" <(echo) "$B" dedup --exact "${MEM[@]}" <(printf '\n\n\r\n\n')

# ---------------------------------------------------------------------------------------------
# Numbers: --key u64, u32, i64, printed back in canonical decimal. The references run on the
# canonical lines (canonical), so that 007 and 7 are one line.

# gen_u64 N SEED: numbers with repeats: half below 50000 (repeated), half up to 2^52 (mostly
# distinct), some written with leading zeros, and now and then 2^64-1 (also as 0018446...),
# 2^53+1 (not a double) and 0 (also as 000).
gen_u64() {
    awk -v n="$1" -v seed="$2" 'BEGIN { x = seed
        for (i = 0; i < n; i++) {
            x = (x * 69069 + 1) % 4294967296
            if (i % 2) printf "%.0f\n", x % 50000
            else if (i % 7 == 0) printf "%015.0f\n", x * 1024 + i % 1024
            else printf "%.0f\n", x * 1048576 + i % 1048576
            if (i % 50000 == 0) printf "18446744073709551615\n0018446744073709551615\n9007199254740993\n0\n000\n" } }'
}
# gen_u32 N SEED RANGE: 32-bit numbers: half below RANGE (repeated), half anywhere (mostly
# distinct, some with leading zeros), and three frequent ones with distinct counts (7 every 50
# lines, 4294967295 every 70, 0000123 every 90), so that top's answer has no ties to break.
gen_u32() {
    awk -v n="$1" -v seed="$2" -v range="$3" 'BEGIN { x = seed
        for (i = 0; i < n; i++) {
            x = (x * 69069 + 1) % 4294967296
            if (i % 50 == 0) print "7"
            if (i % 70 == 0) print "4294967295"
            if (i % 90 == 0) print "0000123"
            if (i % 2) printf "%.0f\n", x % range
            else if (i % 5 == 0) printf "%012.0f\n", x
            else printf "%.0f\n", x } }'
}
gen_u64 300000 1 >"$X/u64-a.txt"       # ~4.5 MB, ~175000 distinct keys: 1.4 MB of keys at 8 bytes
gen_u64 100000 2 >"$X/u64-b.txt"
gen_u32 500000 1 40000 >"$X/u32-a.txt" # ~5 MB, ~290000 distinct keys: 1.1 MB at 4 bytes
gen_u32 200000 2 80000 >"$X/u32-b.txt"
for f in u64-a u64-b u32-a u32-b; do canonical "$X/$f.txt" >"$X/$f.canonical"; done

for k in u64 u32; do
    NA=$X/$k-a.txt NB=$X/$k-b.txt CA=$X/$k-a.canonical CB=$X/$k-b.canonical
    expect_lines "--key $k: dedup --exact = awk on the canonical numbers" <(ref_dedup "$CA") \
        "$B" dedup --exact --key $k "${MEM[@]}" "$NA"
    expect_lines "--key $k: once = awk on the canonical numbers" <(ref_once "$CA") "$B" once --key $k "${MEM[@]}" "$NA"
    expect_lines "--key $k: once --repeated = awk on the canonical numbers" <(ref_repeated "$CA") \
        "$B" once --repeated --key $k "${MEM[@]}" "$NA"
    expect_set "--key $k: intersect --exact, sorted = comm -12 of the canonical numbers" <(ref_intersect "$CA" "$CB") \
        "$B" intersect --exact --key $k "${MEM[@]}" "$NA" "$NB"
    expect_set "--key $k: subtract --exact, sorted = comm -23 of the canonical numbers" <(ref_subtract "$CA" "$CB") \
        "$B" subtract --exact --key $k "${MEM[@]}" "$NA" "$NB"
    same_for_threads "--key $k: dedup --exact, -t 1 and -t 2 print the same" dedup --exact --key $k "${MEM[@]}" "$NA"
done
expect_lines "--key u32: top -k 3 = the pipeline on the canonical numbers (7, 4294967295, 123)" \
    <(ref_top 3 "$X/u32-a.canonical") "$B" top -k 3 --key u32 "${MEM[@]}" "$X/u32-a.txt"
check_cond "test data: --key u32's top 3 have distinct counts (no tie-break between numbers)" \
    "$(ref_top 4 "$X/u32-a.canonical" | tr '\n' '|')" \
    test "$(ref_top 4 "$X/u32-a.canonical" | awk '{ print $1 }' | uniq | wc -l)" -eq 4
printf -- '-0005\n5\n-5\n0005\n-9223372036854775808\n9223372036854775807\n-009223372036854775808\n' >"$X/i64.txt"
expect_lines "--key i64: dedup --exact of signed numbers, canonical" <(printf -- '-5\n5\n-9223372036854775808\n9223372036854775807\n') \
    "$B" dedup --exact --key i64 "${MEM[@]}" "$X/i64.txt"

# ---------------------------------------------------------------------------------------------
# Temporary files: in $TMPDIR by default; a second run leaves those of a run under way alone;
# kill -9 leaves at most one bloomkit-spill.* directory, which the next run removes; SIGTERM and
# SIGINT leave nothing.
#
# A run "under way": bloomkit reads a FIFO, A (5 MB, 5x --memory) is written into it and the
# FIFO is held open (fd 3), so bloomkit has spilled and waits for more input.

FIFO=$X/fifo
pid=0

# start_fed CMD...: starts CMD in the background (pid to $pid; stdout fed.out, stderr fed.err)
# reading $FIFO, feeds it A and keeps the FIFO open. trap - INT: as from a terminal (bash starts
# a background command with SIGINT ignored, and a program leaves an ignored signal ignored).
start_fed() {
    rm -f "$FIFO"
    mkfifo "$FIFO"
    (trap - INT; exec "$@" <"$FIFO" >"$X/fed.out" 2>"$X/fed.err") &
    pid=$!
    exec 3>"$FIFO"
    cat "$A" >&3 2>/dev/null
}

# spilled DIR: the run $pid has spilled into DIR: a bloomkit-spill.* directory is there, or it
# holds a file open in DIR (an unnamed one reads "DIR/#123 (deleted)").
spilled() {
    local dir fd
    dir=$(cd "$1" && pwd -P)
    (($(spill_dirs "$1") > 0)) && return 0
    for fd in /proc/"$pid"/fd/*; do
        [[ $(readlink "$fd" 2>/dev/null) == "$dir"/* ]] && return 0
    done
    return 1
}

# wait_spill DIR: waits (for up to WAIT_SECONDS, while the run lives) until it has spilled into DIR.
spilled_or_gone() { spilled "$1" || gone "$pid"; }
wait_spill() { wait_until spilled_or_gone "$1" && spilled "$1"; }

# stop_fed SIGNAL: sends SIGNAL to the run (before its input ends: the order matters), then ends
# its input and waits for it; its exit code to RC.
stop_fed() {
    kill -s "$1" "$pid" 2>/dev/null
    exec 3>&-
    { wait "$pid"; } 2>/dev/null
    RC=$?
}

# A run without --tmpdir spills into $TMPDIR; a second run in the same directory leaves the
# first one's files (it is alive) alone: the first still ends well.
LIVE=$T/spill-live
mkdir "$LIVE"
start_fed env TMPDIR="$LIVE" "$B" dedup --exact --memory 1M -
if wait_spill "$LIVE"; then
    pass "without --tmpdir the run spills into \$TMPDIR, while its input is still open"
else
    fail "without --tmpdir the run spills into \$TMPDIR, while its input is still open" \
        "no bloomkit-spill.* nor open file in \$TMPDIR after 5 MB at --memory 1M; stderr: $(head -c 160 "$X/fed.err")"
fi
live=$(leftovers "$LIVE")
run "$B" dedup --exact --memory 1M --tmpdir "$LIVE" "$A"
check_rc "a second run (spilling too) in the tmpdir of a run under way exits 0" 0
check_same "a second run in the tmpdir of a run under way = awk" "$X/dedup-a" "$OUT"
check_eq "a second run leaves the files of a run under way alone" "$live" "$(leftovers "$LIVE")"
exec 3>&-    # the end of the first run's input
{ wait $pid; } 2>/dev/null
RC=$?
check_rc "the run fed through a FIFO exits 0 when its input ends" 0
check_same "the run fed through a FIFO = awk" "$X/dedup-a" "$X/fed.out"
check_eq "the run fed through a FIFO leaves nothing in \$TMPDIR" "" "$(leftovers "$LIVE")"

# kill -9: at most one bloomkit-spill.* directory stays (and nothing else); the next run in that
# tmpdir removes it.
KILLED=$T/spill-killed
mkdir "$KILLED"
start_fed "$B" dedup --exact --memory 1M --tmpdir "$KILLED" -
wait_spill "$KILLED" || fail "kill -9: the run spilled before the kill" "nothing spilled after $WAIT_SECONDS s"
stop_fed KILL
check_rc "kill -9 mid-run: killed (137)" 137
check_cond "kill -9 mid-run leaves at most one bloomkit-spill.* directory, and nothing else" \
    "left: $(leftovers "$KILLED")" test "$(spill_dirs "$KILLED")" -le 1 -a -z "$(others "$KILLED")"
run "$B" dedup --exact --memory 1M --tmpdir "$KILLED" "$A"
judge "the run after a kill -9, in the same tmpdir: = awk" 0 "$X/dedup-a" "$OUT"
check_eq "the run after a kill -9 removes what the dead run left" "" "$(leftovers "$KILLED")"

# SIGTERM and SIGINT: the run removes its temporary files and exits 128+N (as the other jobs).
for sig in TERM INT; do
    SIGDIR=$T/spill-$sig
    mkdir "$SIGDIR"
    [[ $sig == TERM ]] && job=(dedup --exact) || job=(once)
    start_fed "$B" "${job[@]}" --memory 1M --tmpdir "$SIGDIR" -
    wait_spill "$SIGDIR" || fail "SIG$sig: the run spilled before the signal" "nothing spilled after $WAIT_SECONDS s"
    stop_fed $sig
    check_rc "${job[*]} stopped by SIG$sig mid-run exits $((128 + $(kill -l $sig)))" $((128 + $(kill -l $sig)))
    check_eq "${job[*]} stopped by SIG$sig mid-run leaves nothing in the tmpdir" "" "$(leftovers "$SIGDIR")"
done

# ---------------------------------------------------------------------------------------------
# A small tmpfs (2 MiB): too small for the job, checked up front; or filled during the run

DISK=$T/disk
mkdir "$DISK"
if [[ $(id -u) -eq 0 ]] && mount -t tmpfs -o size=2m tmpfs "$DISK" 2>/dev/null; then
    trap 'umount "$DISK" 2>/dev/null; rm -rf "$T"' EXIT
    DM=(--memory 1M --tmpdir "$DISK")
    DIST=$X/distinct-12M.txt
    gen_distinct 200000 >"$DIST"     # 12 MB of distinct lines, little redundancy

    # Up front: a file's size is known; 12 MB at --memory 1M cannot be spilled into 2 MiB. Refused
    # before anything is spilled: the message counts the whole tmpfs (2 MiB, "2.1 MB") as free.
    for job in "dedup --exact" "intersect --exact"; do
        read -ra words <<<"$job"
        inputs=("$DIST")
        [[ $job == intersect* ]] && inputs=("$DIST" "$DIST")
        expect_error "small tmpfs: $job of 12 MB at --memory 1M is refused: not enough space" "not enough space" \
            timeout 120 "$B" "${words[@]}" "${DM[@]}" "${inputs[@]}"
        check_in "small tmpfs: $job is refused at once, before it spilled anything (all 2.1 MB free)" "$ERR" \
            "and 2.1 MB are free"
        check_eq "small tmpfs: $job refused leaves nothing in the tmpdir" "" "$(leftovers "$DISK")"
    done

    # During the run: from a pipe the size is not known up front; the tmpfs fills (ENOSPC).
    run "$B" dedup --exact "${DM[@]}" - < <(cat "$DIST")
    check_rc "small tmpfs filled during dedup --exact (input from a pipe): exit 2" 2
    if file_contains "$ERR" "$DISK" || file_contains "$ERR" "No space left"; then
        pass "small tmpfs filled: the message names the tmpdir or says no space left"
    else
        fail "small tmpfs filled: the message names the tmpdir or says no space left" "stderr: $(err_line)"
    fi
    check_eq "small tmpfs filled: nothing left in the tmpdir" "" "$(leftovers "$DISK")"
    run "$B" intersect --exact "${DM[@]}" <(cat "$DIST") <(cat "$DIST")
    check_rc "small tmpfs filled during intersect --exact (inputs from pipes): exit 2" 2
    check_eq "small tmpfs filled during intersect --exact: nothing left in the tmpdir" "" "$(leftovers "$DISK")"
    umount "$DISK"
    rm -f "$DIST"
else
    echo "ok - small tmpfs checks: skipped (needs root to mount a small tmpfs)"
fi

# ---------------------------------------------------------------------------------------------
# Errors: exit 2, a message, nothing on stdout, nothing left in the tmpdir

for memory in 0 -1M lots 100000000T; do
    expect_error "dedup --exact --memory $memory is refused" "--memory" "$B" dedup --exact "--memory=$memory" --tmpdir "$SP" "$A"
done
expect_error "once --memory 0 is refused" "--memory" "$B" once --memory 0 --tmpdir "$SP" "$A"
for k in 0 abc; do
    expect_error "top -k $k is refused" "-k" "$B" top -k "$k" "${MEM[@]}" "$A"
done
expect_error "dedup --exact with a missing input" "no-such-input.txt" "$B" dedup --exact "${MEM[@]}" "$X/no-such-input.txt"
expect_error "dedup --exact with a missing second input: refused before anything is printed" "no-such-input.txt" \
    "$B" dedup --exact "${MEM[@]}" "$A" "$X/no-such-input.txt"
expect_error "once with a missing input" "no-such-input.txt" "$B" once "${MEM[@]}" "$X/no-such-input.txt"
expect_error "top with a missing input" "no-such-input.txt" "$B" top -k 3 "${MEM[@]}" "$X/no-such-input.txt"
expect_error "intersect --exact with a missing input" "no-such-input.txt" \
    "$B" intersect --exact "${MEM[@]}" "$A" "$X/no-such-input.txt"
expect_error "subtract --exact with a missing input" "no-such-input.txt" \
    "$B" subtract --exact "${MEM[@]}" "$X/no-such-input.txt" "$A"
# (stdin empty: were one input taken as A and stdin as B, the run would end, with exit 1, not 2)
expect_error "intersect --exact with one input" "" "$B" intersect --exact "${MEM[@]}" "$A" </dev/null
expect_error "dedup --exact --tmpdir into a missing directory" "$T/no-such-dir" \
    "$B" dedup --exact --memory 1M --tmpdir "$T/no-such-dir" "$A"
expect_error "dedup --exact --tmpdir onto a file" "$SMALL" "$B" dedup --exact --memory 1M --tmpdir "$SMALL" "$A"
expect_error "intersect --exact --tmpdir into a missing directory" "$T/no-such-dir" \
    "$B" intersect --exact --memory 1M --tmpdir "$T/no-such-dir" "$A" "$BF"
expect_error "dedup --exact --key bogus" "--key" "$B" dedup --exact --key bogus "${MEM[@]}" "$A"
expect_error "--key u64: a line that is not a number" "" "$B" dedup --exact --key u64 "${MEM[@]}" <(printf '7\nabc\n8\n')
expect_error "--key u64: a negative number" "" "$B" once --key u64 "${MEM[@]}" <(printf '7\n-1\n')
expect_error "--key u64: 2^64 (out of range)" "" "$B" dedup --exact --key u64 "${MEM[@]}" <(printf '18446744073709551616\n')
expect_error "--key u32: 2^32 (out of range)" "" "$B" dedup --exact --key u32 "${MEM[@]}" <(printf '1\n4294967296\n')
expect_error "--key u32: a line that is not a number" "" "$B" top -k 2 --key u32 "${MEM[@]}" <(printf '1\nx\n')
check_eq "errors leave nothing in the tmpdir" "" "$(leftovers "$SP")"

finish
