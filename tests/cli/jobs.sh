#!/usr/bin/env bash
# tests/cli/jobs.sh — end-to-end test of `bloomkit intersect` and `bloomkit subtract`: the lines of
# one input (not) in the other, as comm and awk find them; --all; pipes, compressed inputs,
# --memory, kinds, threads; the summary and its estimate of wrong lines; exit codes; errors.
#
#   bash tests/cli/jobs.sh /path/to/bloomkit
#
# intersect A B: the lines of B probably in A, in B's order, each once unless --all.
# subtract A B: the lines of A certainly not in B, in A's order, each once unless --all.
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

# a.txt: 600 lines, 106 distinct; b.txt: 500 lines, 201 distinct; 52 distinct lines in common, 54
# only in a.txt; both with repeats, in an irregular order. Exactness: at -p 1e-9 each of the
# <= 600 lines streamed through the filter is misjudged with probability <= 1e-9 (the filters are
# sized for the line count, so the distinct keys fill them even less): the expected number of
# wrong lines is below 1e-6, and the outputs are compared exactly with awk's and comm's.
A=$T/a.txt
BB=$T/b.txt
seq 1 600 | awk '{ print "item-" ($1 * $1) % 211 }' >"$A"
seq 1 500 | awk '{ print "item-" ($1 * $1 * 3) % 401 }' >"$BB"
P=1e-9
J=$T/jobs
mkdir "$J"

# The exact answers
awk 'NR == FNR { a[$0] = 1; next } ($0 in a) && !seen[$0]++' "$A" "$BB" >"$J/intersect.txt"
awk 'NR == FNR { a[$0] = 1; next } ($0 in a)' "$A" "$BB" >"$J/intersect-all.txt"
awk 'NR == FNR { b[$0] = 1; next } !($0 in b) && !seen[$0]++' "$BB" "$A" >"$J/subtract.txt"
awk 'NR == FNR { b[$0] = 1; next } !($0 in b)' "$BB" "$A" >"$J/subtract-all.txt"
comm -12 <(sort -u "$A") <(sort -u "$BB") >"$J/comm-both.txt"
comm -23 <(sort -u "$A") <(sort -u "$BB") >"$J/comm-a-only.txt"
check_cond "test data: the inputs overlap, and each has lines the other lacks" \
    "$(lines_of "$J/comm-both.txt") common, $(lines_of "$J/comm-a-only.txt") only in a" \
    test -s "$J/comm-both.txt" -a -s "$J/comm-a-only.txt" -a "$(lines_of "$J/intersect-all.txt")" -gt "$(lines_of "$J/intersect.txt")"

# ---------------------------------------------------------------------------------------------
# intersect and subtract = comm and awk

run "$B" intersect -p $P "$A" "$BB"
check_rc "intersect exits 0 when it prints lines" 0
check_same "intersect = awk: the lines of B in A, in B's order, each once" "$J/intersect.txt" "$OUT"
check_same "intersect, sorted = comm -12" "$J/comm-both.txt" <(sort "$OUT")
run "$B" intersect --all -p $P "$A" "$BB"
check_rc "intersect --all exits 0" 0
check_same "intersect --all = awk: every occurrence in B of a line of A" "$J/intersect-all.txt" "$OUT"

run "$B" subtract -p $P "$A" "$BB"
check_rc "subtract exits 0 when it prints lines" 0
check_same "subtract = awk: the lines of A not in B, in A's order, each once" "$J/subtract.txt" "$OUT"
check_same "subtract, sorted = comm -23" "$J/comm-a-only.txt" <(sort "$OUT")
run "$B" subtract --all -p $P "$A" "$BB"
check_rc "subtract --all exits 0" 0
check_same "subtract --all = awk: every occurrence in A of a line not in B" "$J/subtract-all.txt" "$OUT"
check_cond "test data: subtract --all keeps repeats" "no repeat in the answer" \
    test "$(lines_of "$J/subtract-all.txt")" -gt "$(lines_of "$J/subtract.txt")"

run "$B" intersect "$A" "$BB"
check_rc "intersect at the default rate exits 0" 0
check_cond "intersect at the default rate prints every line of the answer (no false negatives)" \
    "a line of comm -12 is missing" test -z "$(comm -23 "$J/comm-both.txt" <(sort -u "$OUT"))"
run "$B" subtract "$A" "$BB"
check_cond "subtract at the default rate prints no line of B (every line printed is certainly not in B)" \
    "a line of B printed" test -z "$(comm -12 <(sort -u "$BB") <(sort -u "$OUT"))"

# ---------------------------------------------------------------------------------------------
# Pipes and compressed inputs, for either input

run "$B" intersect -p $P - "$BB" <"$A"
check_same "intersect - B (A from stdin) = awk" "$J/intersect.txt" "$OUT"
run "$B" intersect -p $P "$A" - <"$BB"
check_same "intersect A - (B from stdin) = awk" "$J/intersect.txt" "$OUT"
run "$B" subtract -p $P - "$BB" <"$A"
check_same "subtract - B (A from stdin) = awk" "$J/subtract.txt" "$OUT"
run "$B" subtract -p $P "$A" - <"$BB"
check_same "subtract A - (B from stdin) = awk" "$J/subtract.txt" "$OUT"
run "$B" intersect -p $P <(cat "$A") <(cat "$BB")
check_same "intersect of two pipes (process substitution) = awk" "$J/intersect.txt" "$OUT"
run "$B" subtract --all -p $P <(cat "$A") <(cat "$BB")
check_same "subtract --all of two pipes (process substitution) = awk" "$J/subtract-all.txt" "$OUT"

gzip -c "$A" >"$J/a.txt.gz"
gzip -c "$BB" >"$J/b.txt.gz"
run "$B" intersect -p $P "$J/a.txt.gz" "$J/b.txt.gz"
check_rc "intersect of two .gz files exits 0" 0
check_same "intersect of two .gz files = awk over their text" "$J/intersect.txt" "$OUT"
run "$B" subtract -p $P - "$J/b.txt.gz" <"$J/a.txt.gz"
check_same "subtract of gzip data on stdin and a .gz file = awk" "$J/subtract.txt" "$OUT"
if command -v zstd >/dev/null; then
    zstd -q -c "$A" >"$J/a.txt.zst"
    zstd -q -c "$BB" >"$J/b.txt.zst"
    run "$B" intersect --all -p $P "$J/a.txt.zst" "$J/b.txt.zst"
    check_rc "intersect of two .zst files exits 0" 0
    check_same "intersect --all of two .zst files = awk over their text" "$J/intersect-all.txt" "$OUT"
    run "$B" subtract -p $P "$J/a.txt.zst" "$J/b.txt.gz"
    check_same "subtract of a .zst file and a .gz file = awk" "$J/subtract.txt" "$OUT"
    run "$B" intersect -p $P "$J/a.txt.gz" - <"$J/b.txt.zst"
    check_same "intersect of a .gz file and zstd data on stdin = awk" "$J/intersect.txt" "$OUT"
else
    echo "# skipped: zstd inputs (no zstd)"
fi
head -c 300 "$J/b.txt.gz" >"$J/truncated.gz"
expect_error "intersect of a truncated .gz -> 2, naming the damage" "damaged" "$B" intersect -p $P "$A" "$J/truncated.gz"
expect_error "subtract with a truncated .gz to make the filter -> 2" "damaged" "$B" subtract -p $P "$A" "$J/truncated.gz"

# ---------------------------------------------------------------------------------------------
# Sizing, kinds, threads, keys

# --memory alone: the filter of A's 600 lines in 64 KiB has a rate far below 1e-9.
run "$B" intersect --memory 64K "$A" "$BB"
check_rc "intersect --memory 64K exits 0" 0
check_same "intersect --memory 64K (the rate 64 KiB gives A's lines) = awk" "$J/intersect.txt" "$OUT"
run "$B" subtract --memory 64K -n 600 "$A" "$BB"
check_same "subtract --memory 64K -n 600 = awk" "$J/subtract.txt" "$OUT"
run "$B" intersect --json --memory 64K -p 0.01 "$A" "$BB"
check_rc "intersect --memory 64K -p 0.01 exits 0" 0
fpr=$(json_value "$ERR" current_fpr)
check_cond "intersect --memory 64K -p 0.01: the filter (room for ~52000 keys) is far below 1% with A's lines" \
    "current_fpr '$fpr'" awk -v f="${fpr:-1}" 'BEGIN { exit !(f < 1e-6) }'
expect_error "intersect -n -p --memory together are refused" "at most two" "$B" intersect -n 600 -p 0.01 --memory 64K "$A" "$BB"

run "$B" intersect --kind fuse -p 1e-3 "$A" "$BB"
check_rc "intersect --kind fuse exits 0" 0
check_cond "intersect --kind fuse: every line of the answer is printed" "a line of comm -12 is missing" \
    test -z "$(comm -23 "$J/comm-both.txt" <(sort -u "$OUT"))"
check_cond "intersect --kind fuse -p 1e-3 (16-bit, 1/65536): at most 2 lines printed wrongly" "$(lines_of "$OUT") lines" \
    test "$(lines_of "$OUT")" -le $(($(lines_of "$J/intersect.txt") + 2))
check_cond "intersect --kind fuse: lines in B's order, each once" "not a subsequence of awk's, with the extras" \
    awk 'NR == FNR { out[++n] = $0; next } { if (i < n && $0 == out[i + 1]) i++ } END { exit !(i == n) }' \
    "$OUT" <(awk '!seen[$0]++' "$BB")
run "$B" subtract --kind fuse -p 1e-3 "$A" "$BB"
check_rc "subtract --kind fuse exits 0" 0
check_cond "subtract --kind fuse: every line printed is in the answer (certainly not in B)" "a line of B printed" \
    test -z "$(comm -13 "$J/comm-a-only.txt" <(sort -u "$OUT"))"
check_cond "subtract --kind fuse -p 1e-3: at most 2 lines of the answer held back" "$(lines_of "$OUT") lines" \
    test "$(lines_of "$OUT")" -ge $(($(lines_of "$J/subtract.txt") - 2))
for kind in counting scalable; do
    run "$B" intersect --kind $kind -p $P "$A" "$BB"
    check_same "intersect --kind $kind -p $P = awk" "$J/intersect.txt" "$OUT"
done
run "$B" intersect --kind cuckoo "$A" "$BB"
check_rc "intersect --kind cuckoo (A: 106 lines 5 or 6 times each) exits 0" 0
check_cond "intersect --kind cuckoo: every line of the answer is printed" "a line of comm -12 is missing" \
    test -z "$(comm -23 "$J/comm-both.txt" <(sort -u "$OUT"))"
expect_error "intersect --kind bogus -> 2" "bogus" "$B" intersect --kind bogus "$A" "$BB"

for t in 1 2; do
    run "$B" intersect -t $t -p $P "$A" "$BB"
    check_same "intersect -t $t = awk" "$J/intersect.txt" "$OUT"
done

printf '7\n8\n9\n' >"$J/numbers-a.txt"
printf '007\n10\n9\n7\n' >"$J/numbers-b.txt"
run "$B" intersect --key u64 -p $P "$J/numbers-a.txt" "$J/numbers-b.txt"
check_eq "intersect --key u64: 007 is 7 (printed as written, once)" "$(printf '007\n9')" "$(<"$OUT")"

# ---------------------------------------------------------------------------------------------
# The summary (stderr) and its estimate of wrong lines
#
# 10000 keys against 10000 other lines at -p 0.01: intersect prints ~100 others wrongly;
# subtract holds ~100 back wrongly. Each is known exactly here, and the estimate must match it
# within the noise (sd ~10): 0.5x to 1.5x.

need_keys_10k
seq -f 'other-%.0f' 1 10000 >"$J/others-10k.txt"
run "$B" intersect -p 1% "$T/keys-10k.txt" "$J/others-10k.txt"
check_rc "intersect of disjoint inputs at 1%: the false positives are printed (exit 0)" 0
wrong=$(lines_of "$OUT")
check_in "intersect: the summary says the lines read" "$ERR" "10000 lines read"
check_in "intersect: the summary says the lines written" "$ERR" "$wrong lines written"
check_in "intersect: the summary estimates the lines written wrongly" "$ERR" "written wrongly"
run "$B" intersect --json -p 1% "$T/keys-10k.txt" "$J/others-10k.txt"
check_eq "intersect --json: lines_read (of both inputs)" 20000 "$(json_value "$ERR" lines_read)"
check_eq "intersect --json: lines_written" "$wrong" "$(json_value "$ERR" lines_written)"
estimate=$(json_value "$ERR" expected_false_positives)
check_cond "intersect --json: the estimate of lines written wrongly is near the $wrong written (all wrong here)" \
    "estimate '$estimate'" awk -v e="${estimate:-0}" -v w="$wrong" 'BEGIN { exit !(w > 50 && e >= w / 2 && e <= w * 1.5) }'
fpr=$(json_value "$ERR" current_fpr)
check_cond "intersect --json: the filter's rate is about 1%" "current_fpr '$fpr'" \
    awk -v f="${fpr:-0}" 'BEGIN { exit !(f > 0.005 && f < 0.02) }'
run "$B" intersect --json --kind fuse -p 1% "$T/keys-10k.txt" "$J/others-10k.txt"
wrong=$(json_value "$ERR" lines_written)
estimate=$(json_value "$ERR" expected_false_positives)
check_cond "intersect --kind fuse --json: the estimate is near the ${wrong:-?} written wrongly (1/256)" \
    "estimate '$estimate'" awk -v e="${estimate:-0}" -v w="${wrong:-0}" 'BEGIN { exit !(w > 15 && e >= w / 2 && e <= w * 1.5) }'

# Without -p the jobs aim at 0.1%: a false positive is a line wrongly in or out of the answer.
run "$B" intersect --json "$T/keys-10k.txt" "$J/others-10k.txt"
fpr=$(json_value "$ERR" current_fpr)
check_cond "intersect without -p: the filter's rate is about 0.1%" "current_fpr '$fpr'" \
    awk -v f="${fpr:-0}" 'BEGIN { exit !(f > 0.0005 && f < 0.002) }'

# --memory alone: the rate 8 KiB gives A's 10000 lines (plan: ~4.5%), and the estimate follows it.
run "$B" intersect --json --memory 8K "$T/keys-10k.txt" "$J/others-10k.txt"
fpr=$(json_value "$ERR" current_fpr)
check_cond "intersect --memory 8K for 10000 lines: the filter's rate is the ~4.5% plan announces" \
    "current_fpr '$fpr'" awk -v f="${fpr:-0}" 'BEGIN { exit !(f > 0.035 && f < 0.055) }'
wrong=$(json_value "$ERR" lines_written)
estimate=$(json_value "$ERR" expected_false_positives)
check_cond "intersect --memory 8K: ${wrong:-?} lines written wrongly, near the estimate" "estimate '$estimate'" \
    awk -v e="${estimate:-0}" -v w="${wrong:-0}" 'BEGIN { exit !(w > 300 && e >= w / 1.5 && e <= w * 1.5) }'

run "$B" subtract --json -p 1% "$J/others-10k.txt" "$T/keys-10k.txt"
check_rc "subtract of disjoint inputs at 1% exits 0" 0
held_back=$((10000 - $(lines_of "$OUT")))
check_eq "subtract --json: lines_read (of both inputs)" 20000 "$(json_value "$ERR" lines_read)"
check_eq "subtract --json: lines_written" "$(lines_of "$OUT")" "$(json_value "$ERR" lines_written)"
estimate=$(json_value "$ERR" expected_false_positives)
check_cond "subtract --json: the estimate of lines held back wrongly is near the $held_back held back (all wrong here)" \
    "estimate '$estimate'" awk -v e="${estimate:-0}" -v h=$held_back 'BEGIN { exit !(h > 50 && e >= h / 2 && e <= h * 1.5) }'
run "$B" subtract "$J/others-10k.txt" "$T/keys-10k.txt"
check_in "subtract: the summary estimates the lines held back wrongly" "$ERR" "held back wrongly"

# jobs_over_full_never_say_nan: a filter made saturated (-n 10 over 100,000 lines: every bit set,
# its rate 1) answers "present" to every line; the summaries, text and --json, still give
# numbers (never nan): a rate of at most 1 and an estimate of at most the lines read; and a
# warning says the filter was sized for less. The inputs share 50,000 lines.
seq -f 'sat-%.0f' 1 100000 >"$J/sat-a.txt"
seq -f 'sat-%.0f' 50001 150000 >"$J/sat-b.txt"
for job in subtract intersect; do
    for json in "" --json; do
        label="jobs_over_full_never_say_nan ($job -n 10${json:+ $json})"
        run "$B" $job -n 10 $json "$J/sat-a.txt" "$J/sat-b.txt"
        check_cond "$label: exit 0 or 1" "exit $RC; stderr: $(err_line)" test $RC -le 1
        check_cond "$label: no nan in the summary" "$(grep -i nan "$ERR" | head -c 200)" bash -c "! grep -qi nan '$ERR'"
        check_in "$label: warns that the filter was sized for less" "$ERR" "sized for"
        if [[ -n $json ]]; then
            fpr=$(json_value "$ERR" current_fpr)
            estimate=$(json_value "$ERR" expected_false_positives)
            check_cond "$label: current_fpr is a number in [0, 1]" "'$fpr'" \
                awk -v f="$fpr" 'BEGIN { exit !(f ~ /^[0-9.e+-]+$/ && f + 0 >= 0 && f + 0 <= 1) }'
            check_cond "$label: expected_false_positives is a number of at most the 100000 lines streamed" "'$estimate'" \
                awk -v e="$estimate" 'BEGIN { exit !(e ~ /^[0-9.e+-]+$/ && e + 0 >= 0 && e + 0 <= 100000) }'
        fi
    done
done
run "$B" subtract --help
check_cond "subtract_help_says_n_is_about_b: -n sizes the filter of B, the second input" "$(grep -- '--keys' "$OUT")" \
    grep -Eq -- '--keys.*\bB\b.*second' "$OUT"
run "$B" intersect --help
check_cond "intersect_help_says_n_is_about_a: -n sizes the filter of A, the first input" "$(grep -- '--keys' "$OUT")" \
    grep -Eq -- '--keys.*\bA\b.*first' "$OUT"

# ---------------------------------------------------------------------------------------------
# Exit codes: 1 when nothing is written

run "$B" intersect -p $P "$J/comm-a-only.txt" "$BB"
check_rc "intersect with nothing in common exits 1" 1
check_cond "intersect with nothing in common prints nothing" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
check_in "... and still prints its summary" "$ERR" "0 lines written"
run "$B" subtract -p $P "$A" "$A"
check_rc "subtract of an input from itself exits 1" 1
check_cond "subtract of an input from itself prints nothing" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
need_empty_input
run "$B" intersect -p $P "$A" "$T/empty.txt"
check_rc "intersect with an empty B exits 1" 1
run "$B" subtract -p $P "$T/empty.txt" "$BB"
check_rc "subtract with an empty A exits 1" 1
run "$B" subtract -n 10 "$A" "$T/empty.txt"
check_rc "subtract -n 10 of an empty B exits 0" 0
check_same "subtract -n 10 of an empty B prints each line of A once" <(awk '!seen[$0]++' "$A") "$OUT"
run "$B" intersect -n 10 "$T/empty.txt" "$BB"
check_rc "intersect -n 10 with an empty A exits 1" 1
run "$B" subtract "$A" "$T/empty.txt"
check_rc "subtract of an empty B without -n exits 0 (as comm -23 would)" 0
check_same "subtract of an empty B without -n prints each line of A once" <(awk '!seen[$0]++' "$A") "$OUT"
run "$B" intersect "$T/empty.txt" "$BB"
check_rc "intersect with an empty A without -n exits 1, printing nothing" 1

# ---------------------------------------------------------------------------------------------
# Threads: the streamed input is read, queried and printed in order whatever -t is. 300000
# lines (several blocks of the reader, whose blocks grow from 64 KiB), A with a third of them.

awk 'BEGIN { for (i = 0; i < 300000; i++) printf "line-%d\n", (i * 7919) % 200000 }' >"$J/many-b.txt"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "line-%d\n", i * 3 }' >"$J/many-a.txt"
for job in intersect subtract; do
    run "$B" $job -t 1 "$J/many-a.txt" "$J/many-b.txt"
    cp "$OUT" "$J/$job-t1.txt"
    for threads in 2 5; do
        run "$B" $job -t $threads "$J/many-a.txt" "$J/many-b.txt"
        check_same "$job -t $threads prints what -t 1 prints, in the same order" "$J/$job-t1.txt" "$OUT"
    done
    run "$B" $job -t 1 --all "$J/many-a.txt" "$J/many-b.txt"
    cp "$OUT" "$J/$job-all-t1.txt"
    run "$B" $job -t 3 --all "$J/many-a.txt" - <"$J/many-b.txt"
    check_same "$job -t 3 --all from a pipe prints what -t 1 prints" "$J/$job-all-t1.txt" "$OUT"
done
awk 'NR == FNR { a[$0] = 1; next } ($0 in a) && !seen[$0]++' "$J/many-a.txt" "$J/many-b.txt" >"$J/many-expected.txt"
run "$B" intersect -t 4 -p 1e-9 "$J/many-a.txt" "$J/many-b.txt"
check_same "intersect -t 4 -p 1e-9 = awk (B's order, each line once)" "$J/many-expected.txt" "$OUT"

# ---------------------------------------------------------------------------------------------
# Errors: exit 2, a message, nothing on stdout

expect_error "intersect - - (both inputs stdin) is refused" "standard input" "$B" intersect - - <"$A"
expect_error "subtract - - (both inputs stdin) is refused" "standard input" "$B" subtract - - <"$A"
expect_error "intersect with one input is refused" "B" "$B" intersect "$A"
expect_error "subtract with three inputs is refused" "" "$B" subtract "$A" "$BB" "$A"
expect_error "intersect with a missing A -> 2" "no-such-a.txt" "$B" intersect "$T/no-such-a.txt" "$BB"
expect_error "intersect with a missing B -> 2" "no-such-b.txt" "$B" intersect "$A" "$T/no-such-b.txt"
expect_error "subtract with a missing B -> 2" "no-such-b.txt" "$B" subtract "$A" "$T/no-such-b.txt"
expect_error "intersect with a directory -> 2" "$J" "$B" intersect "$A" "$J"
need_lf_filter
expect_error "intersect with a filter file as an input is refused" "merge" "$B" intersect "$T/filters/lf.bf" "$BB"
expect_error "subtract with a filter file as an input is refused" "merge" "$B" subtract "$A" "$T/filters/lf.bf"
expect_error "intersect -p 2 -> 2" "-p" "$B" intersect -p 2 "$A" "$BB"

finish
