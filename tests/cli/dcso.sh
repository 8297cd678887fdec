#!/usr/bin/env bash
# tests/cli/dcso.sh — bloomkit and DCSO's own `bloom` program (/usr/bin/bloom, Debian's
# golang-github-dcso-bloom-cli) on the same DCSO bloom files: check answers as `bloom check` on
# bloom's files, plain and gzip (detected from the bytes); build --format dcso writes the bytes of
# `bloom create` ("elements present" included) for several -n/-p, and bloom reads bloomkit's files
# (check, show, --gzip); the DCSO/bloom#19 capacity (a power-of-two bit count) is warned about by
# info, its measured FPR high; add = `bloom insert` and keeps the set-data bytes; merge = `bloom
# join`; dcso -> bkf -> dcso is byte-identical (the attached data dropped with a note); dcso ->
# guava and a block filter -> dcso are refused; damaged files are errors (exit 2, a message).
#
#   bash tests/cli/dcso.sh /path/to/bloomkit
#
# Skipped (exit 0) where /usr/bin/bloom is missing (apt-get install golang-github-dcso-bloom-cli).
# Harness: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

BLOOM=${BLOOM:-/usr/bin/bloom}
if [[ ! -x $BLOOM ]]; then
    echo "ok - dcso: skipped (needs $BLOOM: apt-get install golang-github-dcso-bloom-cli)"
    finish
fi

D=$T/dcso
mkdir "$D"

# bloom_create NAME OUT BLOOM_OPTIONS... < INPUT: a fixture written by DCSO's bloom.
bloom_create() {
    local name=$1 out=$2
    shift 2
    "$BLOOM" "$@" "$out" 2>"$D/bloom.err" || fail "fixture $name (bloom ${*})" "$(head -c 160 "$D/bloom.err")"
}

# same_answers NAME FILTER INPUT [BLOOM_GLOBAL_OPTIONS...]: bloomkit check prints the lines
# `bloom check` prints (compared sorted), --absent the others, --count their numbers.
same_answers() {
    local name=$1 filter=$2 input=$3
    shift 3
    "$BLOOM" "$@" check "$filter" <"$input" 2>"$D/bloom.err" | sort >"$D/expected" ||
        { fail "$name" "bloom check failed: $(head -c 160 "$D/bloom.err")"; return; }
    run "$B" check "$filter" "$input"
    if [[ -s $D/expected ]]; then check_rc "$name: exit 0" 0; else check_rc "$name: exit 1" 1; fi
    sort "$OUT" >"$D/actual"
    check_same "$name: the lines bloom check prints ($(lines_of "$D/expected") of $(lines_of "$input"))" \
        "$D/expected" "$D/actual"
    run "$B" check --absent "$filter" "$input"
    sort "$OUT" >"$D/actual"
    sort "$input" | comm -23 - "$D/expected" >"$D/expected-absent"
    check_same "$name: --absent prints the others" "$D/expected-absent" "$D/actual"
    run "$B" check --count "$filter" "$input"
    check_eq "$name: --count present" "$(lines_of "$D/expected")" "$(count_of "$OUT" present)"
}

# gzip_magic FILE: the file starts with gzip's magic bytes.
gzip_magic() { [[ $(od -An -tx1 -N 2 "$1" | tr -d ' ') == 1f8b ]]; }

# header_u64 FILE OFFSET: a little-endian u64 of the DCSO header.
header_u64() { od -An -tu8 --endian=little -j "$2" -N 8 "$1" | tr -d ' '; }

# put_u64 FILE OFFSET VALUE: writes VALUE as a little-endian u64 at OFFSET, in place.
put_u64() {
    local hex i out=""
    hex=$(printf '%016x' "$3")
    for ((i = 14; i >= 0; i -= 2)); do out+="\\x${hex:i:2}"; done
    printf "$out" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# ---------------------------------------------------------------------------------------------
# Lines: 100000 to insert (a quarter of them non-ASCII) and 100000 others

awk 'BEGIN { for (i = 1; i <= 100000; i++) if (i % 4 == 0) printf "домен-%d.example\n", i; else printf "ioc-%d\n", i }' >"$D/keys"
awk 'BEGIN { for (i = 1; i <= 100000; i++) if (i % 4 == 0) printf "домен+%d.example\n", i; else printf "other-%d\n", i }' >"$D/others"
paste -d '\n' "$D/keys" "$D/others" >"$D/mixed"
head -n 50000 "$D/keys" >"$D/keys-a"
tail -n +50001 "$D/keys" >"$D/keys-b"
NK=100000

# ---------------------------------------------------------------------------------------------
# bloom's files, read by bloomkit

bloom_create "bloom.dcso" "$D/bloom.dcso" create -n $NK -p 0.01 <"$D/keys"
run "$B" check "$D/bloom.dcso" "$D/keys"
check_rc "bloom's file: check of its lines exits 0" 0
check_same "bloom's file: bloomkit finds every line (in order)" "$D/keys" "$OUT"
same_answers "bloom's file, lines and others" "$D/bloom.dcso" "$D/mixed"
same_answers "bloom's file, others only" "$D/bloom.dcso" "$D/others"
run "$B" check --format dcso "$D/bloom.dcso" - <"$D/mixed"
sort "$OUT" >"$D/actual"
"$BLOOM" check "$D/bloom.dcso" <"$D/mixed" | sort >"$D/expected"
check_same "check --format dcso FILTER - (stdin): bloom's answers" "$D/expected" "$D/actual"

bloom_create "bloom-gz.dcso" "$D/bloom-gz.dcso" --gzip create -n $NK -p 0.01 <"$D/keys"
check_cond "bloom --gzip writes gzip" "no gzip magic" gzip_magic "$D/bloom-gz.dcso"
same_answers "bloom's gzip file (detected), lines and others" "$D/bloom-gz.dcso" "$D/mixed" --gzip
run "$B" info --json "$D/bloom-gz.dcso"
check_rc "info on a gzip DCSO file exits 0" 0
check_eq "info --json: format dcso" dcso "$(json_value "$OUT" format)"

# CRLF lines: bloom strips the '\r' (Go's ScanLines), so does bloomkit.
head -n 1000 "$D/mixed" | sed 's/$/\r/' >"$D/crlf"
"$BLOOM" check "$D/bloom.dcso" <"$D/crlf" | tr -d '\r' | sort >"$D/expected"
run "$B" check "$D/bloom.dcso" "$D/crlf"
tr -d '\r' <"$OUT" | sort >"$D/actual"
check_same "CRLF lines: the same answers as bloom check" "$D/expected" "$D/actual"

# A k in the header other than the one n and p give: both read the header's.
cp "$D/bloom.dcso" "$D/k3.dcso"
put_u64 "$D/k3.dcso" 24 3
same_answers "a file whose header says k=3" "$D/k3.dcso" "$D/mixed"

# ---------------------------------------------------------------------------------------------
# build --format dcso = bloom create, byte for byte; bloom reads bloomkit's files

# Each line: how many of the keys, -n, -p.
while read -r lines n p; do
    label="n=$n p=$p ($lines lines)"
    head -n $lines "$D/keys" >"$D/size.keys"
    bloom_create "size.bloom $label" "$D/size.bloom" create -n $n -p $p <"$D/size.keys"
    run "$B" build --format dcso -n $n -p $p -o "$D/size.bk" "$D/size.keys"
    check_rc "build --format dcso $label exits 0" 0
    check_same "build --format dcso $label = bloom create (elements present too)" "$D/size.bloom" "$D/size.bk"
done <<'EOF'
100000 100000 0.01
100000 100000 0.001
100000 1000 0.1
100000 200000 0.0001
1000 100000 0.01
1 1 0.01
0 10 0.5
100000 109397 0.01
EOF

run "$B" build --format dcso -n $NK -p 0.01 -o "$D/bk.dcso" "$D/keys"
check_rc "build --format dcso exits 0" 0
check_same "build --format dcso = bloom create" "$D/bloom.dcso" "$D/bk.dcso"
run "$B" build --format dcso --threads 1 -n $NK -p 0.01 -o "$D/bk-1.dcso" "$D/keys"
check_same "build --format dcso --threads 1 = bloom create" "$D/bloom.dcso" "$D/bk-1.dcso"
run "$B" build --format dcso --threads 2 -n $NK -p 0.01 -o "$D/bk-2.dcso" "$D/keys"
check_same "build --format dcso --threads 2 = bloom create (elements present counted as one writer does)" \
    "$D/bloom.dcso" "$D/bk-2.dcso"
run "$BLOOM" show "$D/bk.dcso"
check_rc "bloom show reads bloomkit's file" 0
check_in "bloom show: the capacity" "$OUT" "Capacity:		$NK"
check_in "bloom show: the elements present" "$OUT" "Elements present:	$(header_u64 "$D/bloom.dcso" 40)"
same_answers "bloom check on bloomkit's file" "$D/bk.dcso" "$D/mixed"
run "$B" build --format dcso -n $NK -p 0.01 -o - "$D/keys"
check_same "build --format dcso -o - writes the same bytes" "$D/bloom.dcso" "$OUT"

# gzip: not byte-identical to Go's gzip, the same file inside.
run "$B" build --format dcso --gzip -n $NK -p 0.01 -o "$D/bk-gz.dcso" "$D/keys"
check_rc "build --format dcso --gzip exits 0" 0
check_cond "build --gzip writes gzip" "no gzip magic" gzip_magic "$D/bk-gz.dcso"
zcat "$D/bk-gz.dcso" >"$D/unzipped"
check_same "build --gzip: zcat = bloom create's file" "$D/bloom.dcso" "$D/unzipped"
same_answers "bloom --gzip check on bloomkit's gzip file" "$D/bk-gz.dcso" "$D/mixed" --gzip
run "$BLOOM" --gzip show "$D/bk-gz.dcso"
check_rc "bloom --gzip show reads bloomkit's gzip file" 0

# ---------------------------------------------------------------------------------------------
# info: the attached data, the measured FPR, and DCSO/bloom#19's power-of-two bit counts

run "$B" info --json "$D/bloom.dcso"
check_rc "info --json on a DCSO file exits 0" 0
check_eq "info --json: format" dcso "$(json_value "$OUT" format)"
fpr=$(json_value "$OUT" measured_fpr)
check_cond "info --json: measured_fpr near 1% (n=100000 p=0.01)" "measured_fpr '$fpr'" \
    awk -v f="$fpr" 'BEGIN { exit !(f != "" && f + 0 > 0.005 && f + 0 < 0.02) }'
check_cond "info on a sound DCSO file warns about nothing" "stderr: $(err_line)" test ! -s "$ERR"
check_eq "info --json: bits = bloom's m" "$(header_u64 "$D/bloom.dcso" 32)" "$(json_value "$OUT" bits)"
check_eq "info --json: hashes = bloom's k" "$(header_u64 "$D/bloom.dcso" 24)" "$(json_value "$OUT" hashes)"

bloom_create "pow2.dcso" "$D/pow2.dcso" create -n 109397 -p 0.01 <"$D/keys"
check_eq "capacity 109397 at p=0.01: bloom's m is 2^20" 1048576 "$(header_u64 "$D/pow2.dcso" 32)"
run "$B" info "$D/pow2.dcso"
check_rc "info on the power-of-two file exits 0" 0
check_in "info warns about DCSO/bloom#19 on stderr" "$ERR" "bloom#19"
check_in "info (text) shows a measured FPR" "$OUT" "measured FPR"
run "$B" info --json "$D/pow2.dcso"
fpr=$(json_value "$OUT" measured_fpr)
check_cond "info --json: the measured FPR is high (> 5%)" "measured_fpr '$fpr'" \
    awk -v f="$fpr" 'BEGIN { exit !(f != "" && f + 0 > 0.05) }'
real=$("$BLOOM" check "$D/pow2.dcso" <"$D/others" | wc -l)
check_cond "bloom check agrees: > 5% of 100000 others answer maybe ($real)" "$real" test "$real" -gt 5000
same_answers "the power-of-two file" "$D/pow2.dcso" "$D/mixed"

# ---------------------------------------------------------------------------------------------
# add = bloom insert, the set-data bytes kept (plain and gzip)

bloom_create "data.dcso" "$D/data.dcso" create -n $NK -p 0.01 <"$D/keys-a"
printf 'meta\000data\nline 2' | "$BLOOM" set-data "$D/data.dcso"
"$BLOOM" get-data "$D/data.dcso" >"$D/meta"   # what bloom stores: the input and a '\n'
check_cond "(bloom set-data stored the data)" "get-data: $(od -c "$D/meta" | head -n 1)" test -s "$D/meta"
cp "$D/data.dcso" "$D/data-a.dcso"
cp "$D/data.dcso" "$D/inserted.dcso"
"$BLOOM" insert "$D/inserted.dcso" <"$D/keys-b"
run "$B" add "$D/data.dcso" "$D/keys-b"
check_rc "add to a DCSO file with attached data exits 0" 0
check_same "add = bloom insert (bits, elements present, data)" "$D/inserted.dcso" "$D/data.dcso"
"$BLOOM" get-data "$D/data.dcso" >"$D/got-data"
check_same "bloom get-data after bloomkit add: the data kept" "$D/meta" "$D/got-data"
run "$B" info "$D/data.dcso"
check_in "info: the size of the attached data" "$OUT" "$(wc -c <"$D/meta") bytes of attached data"
same_answers "after add, bloomkit's answers = bloom's" "$D/data.dcso" "$D/mixed"

bloom_create "gz-a.dcso" "$D/gz-a.dcso" --gzip create -n $NK -p 0.01 <"$D/keys-a"
printf 'zipped meta' | "$BLOOM" --gzip set-data "$D/gz-a.dcso"
cp "$D/gz-a.dcso" "$D/gz-inserted.dcso"
"$BLOOM" --gzip insert "$D/gz-inserted.dcso" <"$D/keys-b"
run "$B" add "$D/gz-a.dcso" "$D/keys-b"
check_rc "add to a gzip DCSO file exits 0" 0
check_cond "add keeps a gzip file gzip" "no gzip magic" gzip_magic "$D/gz-a.dcso"
zcat "$D/gz-inserted.dcso" >"$D/unzipped-expected"
zcat "$D/gz-a.dcso" >"$D/unzipped"
check_same "add to a gzip file = bloom --gzip insert (after zcat)" "$D/unzipped-expected" "$D/unzipped"
check_eq "bloom --gzip get-data after add" "zipped meta" "$("$BLOOM" --gzip get-data "$D/gz-a.dcso")"

# ---------------------------------------------------------------------------------------------
# merge = bloom join (N summed, the first file's data kept); unlike files refused

bloom_create "b.dcso" "$D/b.dcso" create -n $NK -p 0.01 <"$D/keys-b"
printf 'other data' | "$BLOOM" set-data "$D/b.dcso"
cp "$D/data-a.dcso" "$D/joined.dcso"
"$BLOOM" join "$D/joined.dcso" "$D/b.dcso"
run "$B" merge -o "$D/merged.dcso" "$D/data-a.dcso" "$D/b.dcso"
check_rc "merge of two DCSO files exits 0" 0
check_same "merge = bloom join (bits, N summed, the first file's data)" "$D/joined.dcso" "$D/merged.dcso"
"$BLOOM" get-data "$D/merged.dcso" >"$D/got-data"
check_same "bloom get-data of the merged file: the first file's data" "$D/meta" "$D/got-data"
bloom_create "plain-a.dcso" "$D/plain-a.dcso" create -n $NK -p 0.01 <"$D/keys-a"
bloom_create "plain-b.dcso" "$D/plain-b.dcso" create -n $NK -p 0.01 <"$D/keys-b"
cp "$D/plain-a.dcso" "$D/plain-joined.dcso"
"$BLOOM" join "$D/plain-joined.dcso" "$D/plain-b.dcso"
run "$B" merge -o "$D/plain-merged.dcso" "$D/plain-a.dcso" "$D/plain-b.dcso"
check_same "merge of files without data = bloom join" "$D/plain-joined.dcso" "$D/plain-merged.dcso"
run "$B" merge -o "$D/gz-merged.dcso" "$D/bloom-gz.dcso" "$D/plain-b.dcso"
check_rc "merge of a gzip and a plain DCSO file exits 0" 0
check_cond "merge writes the first file's format (gzip)" "no gzip magic" gzip_magic "$D/gz-merged.dcso"
same_answers "the merged gzip file" "$D/gz-merged.dcso" "$D/mixed" --gzip
bloom_create "small.dcso" "$D/small.dcso" create -n 1000 -p 0.01 <"$D/keys-a"
run "$B" merge -o "$D/unlike.dcso" "$D/plain-a.dcso" "$D/small.dcso"
check_rc "merge of DCSO files of other capacities is refused (exit 2)" 2
check_cond "merge refused: a message, no output file" "stderr: $(err_line)" test -s "$ERR" -a ! -e "$D/unlike.dcso"

# ---------------------------------------------------------------------------------------------
# convert dcso -> bkf -> dcso; dcso -> guava and block filters -> dcso refused

run "$B" convert "$D/bloom.dcso" --to bkf -o "$D/conv.bkf"
check_rc "convert dcso -> bkf exits 0" 0
check_cond "convert of a file without data: no note on stderr" "stderr: $(err_line)" test ! -s "$ERR"
run "$B" convert "$D/conv.bkf" --to dcso -o "$D/conv.dcso"
check_rc "convert bkf -> dcso exits 0" 0
check_same "dcso -> bkf -> dcso is byte-identical" "$D/bloom.dcso" "$D/conv.dcso"
"$BLOOM" check "$D/bloom.dcso" <"$D/mixed" >"$D/expected"
run "$B" check "$D/conv.bkf" "$D/mixed"
check_same "the bkf of a DCSO file answers as bloom check on the DCSO file" "$D/expected" "$OUT"
run "$B" info --verify "$D/conv.bkf"
check_rc "the bkf of a DCSO file verifies" 0

run "$B" convert "$D/inserted.dcso" --to bkf -o "$D/conv-data.bkf"
check_rc "convert of a file with attached data to bkf exits 0" 0
check_in "convert notes on stderr that the attached data is dropped" "$ERR" "attached"
run "$B" convert "$D/conv-data.bkf" --to dcso -o "$D/conv-data.dcso"
head -c "$(wc -c <"$D/bloom.dcso")" "$D/inserted.dcso" >"$D/without-data"
check_same "... and back: the file without its data" "$D/without-data" "$D/conv-data.dcso"
run "$B" convert "$D/inserted.dcso" --to dcso --gzip -o "$D/conv-gz.dcso"
check_rc "convert dcso -> dcso --gzip exits 0" 0
zcat "$D/conv-gz.dcso" >"$D/unzipped"
check_same "convert dcso -> dcso --gzip keeps everything, data included (after zcat)" "$D/inserted.dcso" "$D/unzipped"
run "$B" convert "$D/bloom-gz.dcso" --to dcso -o "$D/gunzipped.dcso"
check_same "convert of a gzip file to dcso (no --gzip) = the plain file" "$D/bloom.dcso" "$D/gunzipped.dcso"

expect_error "convert dcso -> guava is refused (keys needed)" "keys" \
    "$B" convert "$D/bloom.dcso" --to guava -o "$D/refused.guava"
check_cond "no file written for the refused conversion" "it exists" test ! -e "$D/refused.guava"
head -n 1000 "$D/keys" >"$D/1k"
for layout in split-block classic; do
    "$B" build --layout $layout -n 1000 -o "$D/$layout.bkf" "$D/1k" 2>/dev/null
    expect_error "convert of a $layout bkf filter to dcso is refused (keys needed)" "keys" \
        "$B" convert "$D/$layout.bkf" --to dcso -o "$D/$layout.dcso"
done
run "$B" build --layout dcso -n $NK -p 0.01 -o "$D/layout.bkf" "$D/keys"
check_rc "build --layout dcso (a bkf file) exits 0" 0
run "$B" convert "$D/layout.bkf" --to dcso -o "$D/layout.dcso"
check_same "bkf of the DCSO layout -> dcso = bloom create" "$D/bloom.dcso" "$D/layout.dcso"

# ---------------------------------------------------------------------------------------------
# Damaged files: exit 2 with a message, never a crash nor a hang (bloom refuses them too)

head -c 20000 "$D/bloom.dcso" >"$D/truncated.dcso"
head -c 40 "$D/bloom.dcso" >"$D/header-only.dcso"
head -c $(($(wc -c <"$D/bloom.dcso") - 1)) "$D/bloom.dcso" >"$D/short-by-one.dcso"
cp "$D/bloom.dcso" "$D/version-2.dcso"
printf '\x02' | dd of="$D/version-2.dcso" bs=1 seek=0 conv=notrunc status=none
cp "$D/bloom.dcso" "$D/m-huge.dcso"
put_u64 "$D/m-huge.dcso" 32 $((1 << 50))
cp "$D/bloom.dcso" "$D/m-zero.dcso"
put_u64 "$D/m-zero.dcso" 32 0
head -c 30000 "$D/bloom-gz.dcso" >"$D/truncated-gz.dcso"
cp "$D/bloom-gz.dcso" "$D/corrupt-gz.dcso"
flip_byte "$D/corrupt-gz.dcso" 5000
gzip -c "$D/version-2.dcso" >"$D/version-2-gz.dcso"
for damaged in truncated header-only short-by-one version-2; do
    run "$BLOOM" check "$D/$damaged.dcso" <"$D/1k"
    check_rc "damaged '$damaged': bloom check refuses it too (exit 255)" 255
done
for damaged in truncated header-only short-by-one version-2 m-huge m-zero; do
    expect_error "damaged '$damaged': check exits 2 with a message" "" "$B" check "$D/$damaged.dcso" "$D/1k"
    expect_error "damaged '$damaged': check --format dcso exits 2" "" "$B" check --format dcso "$D/$damaged.dcso" "$D/1k"
    expect_error "damaged '$damaged': info exits 2" "" "$B" info "$D/$damaged.dcso"
done
for damaged in truncated-gz corrupt-gz version-2-gz; do
    expect_error "damaged '$damaged': check exits 2 with a message" "" "$B" check "$D/$damaged.dcso" "$D/1k"
done
run "$B" check --format dcso "$D/version-2.dcso" "$D/1k"
check_in "a bad version is named in the message" "$ERR" "version"
: >"$D/empty.dcso"
expect_error "an empty file: check --format dcso exits 2" "" "$B" check --format dcso "$D/empty.dcso" "$D/1k"
cp "$D/bloom.dcso" "$D/add-damaged.dcso"
put_u64 "$D/add-damaged.dcso" 32 $((1 << 50))
cp "$D/add-damaged.dcso" "$D/add-damaged.before"
expect_error "add to a damaged DCSO file exits 2" "" "$B" add "$D/add-damaged.dcso" "$D/1k"
check_same "... and leaves it as it was" "$D/add-damaged.before" "$D/add-damaged.dcso"
# A hostile k: no hang (a time limit), exit 2 or the answers of a filter probing that often.
cp "$D/bloom.dcso" "$D/k-huge.dcso"
put_u64 "$D/k-huge.dcso" 24 $((1 << 40))
run timeout 60 "$B" check "$D/k-huge.dcso" "$D/1k"
check_cond "a header with k=2^40: exit 0-2 within a minute (no hang, no crash)" "exit $RC; stderr: $(err_line)" \
    test $RC -le 2
cp "$D/bloom.dcso" "$D/k-zero.dcso"
put_u64 "$D/k-zero.dcso" 24 0
run "$B" check "$D/k-zero.dcso" "$D/1k"
check_cond "a header with k=0: exit 0-2, no crash" "exit $RC" test $RC -le 2

finish
