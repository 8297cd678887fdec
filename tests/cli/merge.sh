#!/usr/bin/env bash
# tests/cli/merge.sh — end-to-end test of `bloomkit merge`: the union is the filter built from all
# the keys, --intersection keeps the keys in every filter, counting and scalable filters merge,
# filters that are not alike are refused naming the difference, cuckoo and fuse are refused,
# -o - writes stdout, and the output is written like build's (atomically, under the lock).
#
#   bash tests/cli/merge.sh /path/to/bloomkit
#
# Harness, test data and fixtures: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

need_keys_filter
need_others
need_key_halves
need_keys_10k
M=$T/merge
mkdir "$M"

# build_quietly OUT BUILD_ARGS...: a filter for the test, reported when it cannot be built.
build_quietly() {
    local out=$1
    shift
    "$B" build "$@" -o "$out" 2>"$M/build.err" >/dev/null ||
        fail "fixture $(basename "$out")" "build $* exited $?: $(head -c 160 "$M/build.err")"
}

build_quietly "$M/a.bf" -n $N -p 0.01 "$T/keys-a.txt"
build_quietly "$M/b.bf" -n $N -p 0.01 "$T/keys-b.txt"

# ---------------------------------------------------------------------------------------------
# Union: the same filter as one built from all the keys

run "$B" merge -o "$M/union.bf" "$M/a.bf" "$M/b.bf"
check_rc "merge of two Bloom filters exits 0" 0
check_cond "merge prints nothing on stdout" "stdout: $(head -c 100 "$OUT")" test ! -s "$OUT"
check_same "merge = the filter built from both inputs (same -n, -p, seed: byte-identical)" "$F" "$M/union.bf"
run "$B" info --verify "$M/union.bf"
check_rc "the merged filter verifies" 0

need_key_parts
for i in 0 1 2 3; do build_quietly "$M/part-$i.bf" -n $N -p 0.01 "${PARTS[$i]}"; done
run "$B" merge -o "$M/parts.bf" "$M/part-0.bf" "$M/part-1.bf" "$M/part-2.bf" "$M/part-3.bf"
check_rc "merge of four filters exits 0" 0
check_same "merge of four filters = the filter built from all four inputs" "$F" "$M/parts.bf"
run "$B" merge -o "$M/parts-reversed.bf" "$M/part-3.bf" "$M/part-2.bf" "$M/part-1.bf" "$M/part-0.bf"
check_same "merge in another order gives the same file" "$F" "$M/parts-reversed.bf"
run "$B" merge -o "$M/twice.bf" "$M/a.bf" "$M/a.bf" "$M/b.bf"
check_cond "merge with a filter given twice sets the bits of the union (from byte 129)" "payloads differ" \
    cmp -s <(tail -c +129 "$F") <(tail -c +129 "$M/twice.bf")

run "$B" merge --json -o "$M/json.bf" "$M/a.bf" "$M/b.bf"
check_rc "merge --json exits 0" 0
check_eq "merge --json (on stdout): command" merge "$(json_value "$OUT" command)"
check_eq "merge --json: filters" 2 "$(json_value "$OUT" filters)"
check_cond "merge --json: estimated_keys near 100000" "estimated_keys '$(json_value "$OUT" estimated_keys)'" \
    awk -v k="$(json_value "$OUT" estimated_keys)" 'BEGIN { exit !(k > 98000 && k < 102000) }'
check_same "merge --json writes the same file" "$F" "$M/json.bf"

for layout in classic split-block; do
    build_quietly "$M/$layout-a.bf" --layout $layout -n $N -p 0.01 "$T/keys-a.txt"
    build_quietly "$M/$layout-b.bf" --layout $layout -n $N -p 0.01 "$T/keys-b.txt"
    build_quietly "$M/$layout-all.bf" --layout $layout -n $N -p 0.01 "$KEYS"
    run "$B" merge -o "$M/$layout-union.bf" "$M/$layout-a.bf" "$M/$layout-b.bf"
    check_rc "merge --layout $layout filters exits 0" 0
    check_same "merge --layout $layout = the filter built from both inputs" "$M/$layout-all.bf" "$M/$layout-union.bf"
done

build_quietly "$M/seed-a.bf" --seed 99 -n $N -p 0.01 "$T/keys-a.txt"
build_quietly "$M/seed-b.bf" --seed 99 -n $N -p 0.01 "$T/keys-b.txt"
build_quietly "$M/seed-all.bf" --seed 99 -n $N -p 0.01 "$KEYS"
run "$B" merge -o "$M/seed-union.bf" "$M/seed-a.bf" "$M/seed-b.bf"
check_same "merge of filters with the same non-default seed = the filter built from both" "$M/seed-all.bf" "$M/seed-union.bf"

# ---------------------------------------------------------------------------------------------
# --intersection (Bloom filters): the keys in every filter

# x.bf: keys 1-50000; y.bf: keys 1-10000 and 50001-100000. Their common keys: 1-10000.
build_quietly "$M/x.bf" -n $N -p 0.01 "$T/keys-a.txt"
cat "$T/keys-10k.txt" "$T/keys-b.txt" >"$M/y.txt"
build_quietly "$M/y.bf" -n $N -p 0.01 "$M/y.txt"
run "$B" merge --intersection -o "$M/both.bf" "$M/x.bf" "$M/y.bf"
check_rc "merge --intersection exits 0" 0
run "$B" check --count "$M/both.bf" "$T/keys-10k.txt"
check_eq "merge --intersection: every key in both filters is found" 10000 "$(count_of "$OUT" present)"
tail -n +10001 "$T/keys-a.txt" >"$M/x-only.txt"
run "$B" check --count "$M/both.bf" "$M/x-only.txt" "$T/keys-b.txt"
xfp=$(count_of "$OUT" present)
check_cond "merge --intersection: keys in only one filter are gone (<= 1.5% of 90000 found)" "$xfp found" \
    test "${xfp:-999999}" -le 1350
run "$B" check --count "$M/both.bf" "$OTHERS"
ofp=$(count_of "$OUT" present)
check_cond "merge --intersection: false positives over 100k other lines <= 1.5%" "$ofp found" test "${ofp:-999999}" -le $FP_LIMIT
run "$B" merge --intersection -o "$M/disjoint.bf" "$M/a.bf" "$M/b.bf"
run "$B" check --count "$M/disjoint.bf" "$KEYS"
dfp=$(count_of "$OUT" present)
check_cond "merge --intersection of disjoint filters holds (almost) nothing (<= 1.5% of 100000)" "$dfp found" \
    test "${dfp:-999999}" -le $FP_LIMIT
run "$B" info --verify "$M/both.bf"
check_rc "the intersection verifies" 0

# ---------------------------------------------------------------------------------------------
# Counting and scalable filters

need_kind_filter counting scalable
build_quietly "$M/counting-a.bf" --kind counting -n $N -p 0.01 "$T/keys-a.txt"
build_quietly "$M/counting-b.bf" --kind counting -n $N -p 0.01 "$T/keys-b.txt"
run "$B" merge -o "$M/counting-union.bf" "$M/counting-a.bf" "$M/counting-b.bf"
check_rc "merge of counting filters exits 0" 0
check_same "merge of counting filters = the counting filter built from both inputs" \
    "$T/filters/kind-counting.bf" "$M/counting-union.bf"
run "$B" remove "$M/counting-union.bf" "$T/keys-a.txt"
check_rc "a merged counting filter can remove the keys of one part" 0
run "$B" check --count "$M/counting-union.bf" "$T/keys-b.txt"
check_eq "... and still holds every key of the other" 50000 "$(count_of "$OUT" present)"
expect_error "merge --intersection of counting filters is refused" "intersection" \
    "$B" merge --intersection -o "$M/refused.bf" "$M/counting-a.bf" "$M/counting-b.bf"

# One stage each (-n 100000, 50000 keys each): the union holds the same bits as the scalable
# filter built from all the keys (the counts in the header may differ: a key that tested
# present when it came is not counted), so both answer alike.
build_quietly "$M/scalable-a.bf" --kind scalable -n $N -p 0.01 "$T/keys-a.txt"
build_quietly "$M/scalable-b.bf" --kind scalable -n $N -p 0.01 "$T/keys-b.txt"
run "$B" merge -o "$M/scalable-union.bf" "$M/scalable-a.bf" "$M/scalable-b.bf"
check_rc "merge of scalable filters exits 0" 0
run "$B" check --count "$M/scalable-union.bf" "$KEYS"
check_eq "merge of scalable filters: every key of both is found" $N "$(count_of "$OUT" present)"
run "$B" check "$M/scalable-union.bf" "$OTHERS"
cp "$OUT" "$M/scalable-union-fp.txt"
run "$B" check "$T/filters/kind-scalable.bf" "$OTHERS"
check_same "merge of scalable filters answers as the scalable filter built from both (same false positives)" \
    "$OUT" "$M/scalable-union-fp.txt"
run "$B" info --json "$M/scalable-union.bf"
check_eq "merge of one-stage scalable filters: one stage" 1 "$(stages_of "$OUT")"
# Grown filters (-n 20000, 50000 keys each: 2 stages) merge stage by stage.
build_quietly "$M/grown-a.bf" --kind scalable -n 20000 "$T/keys-a.txt"
build_quietly "$M/grown-b.bf" --kind scalable -n 20000 "$T/keys-b.txt"
run "$B" merge -o "$M/grown-union.bf" "$M/grown-a.bf" "$M/grown-b.bf"
check_rc "merge of grown scalable filters exits 0" 0
run "$B" check --count "$M/grown-union.bf" "$KEYS"
check_eq "merge of grown scalable filters: every key of both is found" $N "$(count_of "$OUT" present)"
run "$B" info --verify "$M/grown-union.bf"
check_rc "the merged scalable filter verifies" 0

# ---------------------------------------------------------------------------------------------
# Filters that are not alike: exit 2, naming both files and the difference; no output file

# refused NAME TEXT FILTER: merge a.bf with FILTER is refused, the message naming both files and TEXT.
refused() {
    expect_error "merge refuses $1 (names the difference)" "$2" "$B" merge -o "$M/refused.bf" "$M/a.bf" "$3"
    check_in "merge refuses $1: the message names the files" "$ERR" "'$M/a.bf' and '$3'"
    check_cond "merge refuses $1: no output file" "output created" test ! -e "$M/refused.bf"
}
build_quietly "$M/n50k.bf" -n 50000 -p 0.01 "$T/keys-b.txt"
refused "a different -n" "different sizes" "$M/n50k.bf"
build_quietly "$M/p001.bf" -n $N -p 0.001 "$T/keys-b.txt"
refused "a different -p" "different sizes" "$M/p001.bf"
build_quietly "$M/seed7.bf" --seed 7 -n $N -p 0.01 "$T/keys-b.txt"
refused "a different seed" "different seeds (0 vs 7)" "$M/seed7.bf"
refused "a different layout" "different kinds" "$M/classic-b.bf"
refused "a different kind (counting)" "different kinds" "$M/counting-b.bf"
refused "a different kind (scalable)" "different kinds" "$M/scalable-b.bf"
expect_error "merge refuses scalable filters with different initial capacities" "initial capacities" \
    "$B" merge -o "$M/refused.bf" "$M/scalable-a.bf" "$M/grown-b.bf"
build_quietly "$M/counting-seed7.bf" --kind counting --seed 7 -n $N -p 0.01 "$T/keys-b.txt"
expect_error "merge refuses counting filters with different seeds" "different seeds" \
    "$B" merge -o "$M/refused.bf" "$M/counting-a.bf" "$M/counting-seed7.bf"
expect_error "merge refuses a difference in the third filter, naming it" "$M/seed7.bf" \
    "$B" merge -o "$M/refused.bf" "$M/a.bf" "$M/b.bf" "$M/seed7.bf"

# Cuckoo and binary fuse filters cannot be merged: rebuild from the keys.
for kind in cuckoo fuse; do
    build_quietly "$M/$kind-a.bf" --kind $kind -n $N "$T/keys-a.txt"
    build_quietly "$M/$kind-b.bf" --kind $kind -n $N "$T/keys-b.txt"
    expect_error "merge of $kind filters is refused (rebuild from the keys)" "rebuild" \
        "$B" merge -o "$M/refused.bf" "$M/$kind-a.bf" "$M/$kind-b.bf"
    expect_error "merge --intersection of $kind filters is refused" "" \
        "$B" merge --intersection -o "$M/refused.bf" "$M/$kind-a.bf" "$M/$kind-b.bf"
done
check_cond "refused merges create no output file" "output created" test ! -e "$M/refused.bf"

# ---------------------------------------------------------------------------------------------
# Arguments and files

expect_error "merge of one filter is refused" "at least two" "$B" merge -o "$M/refused.bf" "$M/a.bf"
expect_error "merge without -o is refused" "output" "$B" merge "$M/a.bf" "$M/b.bf"
expect_error "merge with a missing filter -> 2" "no-such.bf" "$B" merge -o "$M/refused.bf" "$M/a.bf" "$M/no-such.bf"
need_text_file
expect_error "merge with a text file for a filter -> 2" "not a bloomkit filter" \
    "$B" merge -o "$M/refused.bf" "$M/a.bf" "$T/text.bf"
cp "$M/a.bf" "$M/damaged.bf"
flip_byte "$M/damaged.bf" 5000
expect_error "merge with a damaged filter -> 2" "$M/damaged.bf" "$B" merge -o "$M/refused.bf" "$M/damaged.bf" "$M/b.bf"
check_cond "failed merges create no output file" "output created" test ! -e "$M/refused.bf"

run "$B" merge -o "$M/from-stdin.bf" - "$M/b.bf" <"$M/a.bf"
check_rc "merge with a filter from stdin ('-') exits 0" 0
check_same "merge with a filter from stdin = the union" "$F" "$M/from-stdin.bf"

# -o -: the filter on stdout
run "$B" merge -o - "$M/a.bf" "$M/b.bf"
check_rc "merge -o - exits 0" 0
check_same "merge -o - writes the merged filter on stdout" "$F" "$OUT"
check_cond "merge -o - creates no file named '-'" "a file '-' exists" test ! -e ./- -a ! -e "$M/-"
run bash -c "'$B' merge -o - '$M/a.bf' '$M/b.bf' 2>/dev/null | '$B' info --json -"
check_rc "merge -o - | info - exits 0" 0
check_eq "merge -o - | info -: the keys of both" $N "$(json_value "$OUT" inserted_keys)"
run "$B" merge --json -o - "$M/a.bf" "$M/b.bf"
check_same "merge --json -o -: stdout holds only the filter" "$F" "$OUT"
check_eq "merge --json -o -: the JSON summary goes to stderr" merge "$(json_value "$ERR" command)"

# Output onto an existing file: replaced atomically when the merge succeeds, untouched otherwise
cp "$T/filters/kind-counting.bf" "$M/existing.bf"
run "$B" merge -o "$M/existing.bf" "$M/a.bf" "$M/b.bf"
check_rc "merge onto an existing file exits 0" 0
check_same "merge onto an existing file replaces it" "$F" "$M/existing.bf"
cp "$T/filters/kind-counting.bf" "$M/existing.bf"
expect_error "merge onto an existing file with an incompatible input -> 2" "different" \
    "$B" merge -o "$M/existing.bf" "$M/a.bf" "$M/seed7.bf"
check_same "... leaves the existing file byte-identical" "$T/filters/kind-counting.bf" "$M/existing.bf"
cp "$M/a.bf" "$M/accumulated.bf"
run "$B" merge -o "$M/accumulated.bf" "$M/accumulated.bf" "$M/b.bf"
check_rc "merge -o onto one of its inputs (accumulating) exits 0" 0
check_same "merge -o onto one of its inputs = the union" "$F" "$M/accumulated.bf"
chmod 640 "$M/accumulated.bf"
run "$B" merge -o "$M/accumulated.bf" "$M/accumulated.bf" "$M/b.bf"
check_eq "merge keeps the mode of the file it replaces" 640 "$(stat -c %a "$M/accumulated.bf")"

cp "$M/a.bf" "$M/real.bf"
ln -s real.bf "$M/link.bf"
run "$B" merge -o "$M/link.bf" "$M/a.bf" "$M/b.bf"
check_rc "merge onto a symlink exits 0" 0
check_cond "merge onto a symlink keeps the link" "not a link" test -L "$M/link.bf"
check_same "merge onto a symlink replaces the real file" "$F" "$M/real.bf"

mkdir "$M/dir"
expect_error "merge -o a directory -> 2" "$M/dir" "$B" merge -o "$M/dir" "$M/a.bf" "$M/b.bf"
check_cond "... and leaves the directory" "not a directory any more" test -d "$M/dir"
expect_error "merge -o into a missing directory -> 2" "$M/no/such" "$B" merge -o "$M/no/such/f.bf" "$M/a.bf" "$M/b.bf"

# The file's writer lock held by another process (flock(1), lib.sh's hold_lock) until merge has
# said it waits for it (run_past_lock).
cp "$M/a.bf" "$M/locked.bf"
hold_lock "$M/locked.bf" || fail "merge onto a locked file: the lock taken by flock(1)" "not held after $WAIT_SECONDS s"
expect_error "merge --no-wait onto a file another bloomkit writes fails at once" "another bloomkit" \
    "$B" merge --no-wait -o "$M/locked.bf" "$M/a.bf" "$M/b.bf"
run_past_lock "$B" merge -o "$M/locked.bf" "$M/a.bf" "$M/b.bf"
check_rc "merge onto a locked file waits for the holder, then exits 0" 0
check_in "merge onto a locked file says it is waiting" "$ERR" "waiting for another bloomkit"
check_same "merge onto a locked file: the union once the lock is free" "$F" "$M/locked.bf"

no_temp_files "merge leaves no temporary file" "$M"

finish
