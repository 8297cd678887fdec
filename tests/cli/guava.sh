#!/usr/bin/env bash
# tests/cli/guava.sh — bloomkit and Java's Guava (Debian's libguava-java, through
# tests/io/guava/GuavaTool.java) on the same Guava BloomFilter streams: for each funnel (utf8 with
# non-ASCII lines, chars, int with negative numbers, long, bytes) check answers as Java's
# mightContain does on Java's files; build --format guava writes the bytes of Java's
# BloomFilter.create for several -n/-p (n=1 included), and Java reads them with the same answers;
# MURMUR128_MITZ_32 (--layout guava-mitz32) both ways; merge = Java's putAll; add = Java's put;
# guava -> bkf -> guava is byte-identical; info --json names format and funnel; hostile and
# truncated streams are errors (exit 2, a message, no crash), as they are for Java; a block
# filter is not converted to a Guava stream.
#
#   bash tests/cli/guava.sh /path/to/bloomkit
#
# Skipped (exit 0) where java, javac or /usr/share/java/guava.jar is missing
# (apt-get install default-jdk-headless libguava-java). Harness: lib.sh.
source "$(dirname "$0")/lib.sh" "$@"

GUAVA_JAR=${GUAVA_JAR:-/usr/share/java/guava.jar}
TOOL_SRC=$(cd "$(dirname "$0")/../io/guava" && pwd)/GuavaTool.java
if ! command -v java >/dev/null || ! command -v javac >/dev/null || [[ ! -r $GUAVA_JAR ]]; then
    echo "ok - guava: skipped (needs java, javac and $GUAVA_JAR: apt-get install default-jdk-headless libguava-java)"
    finish
fi

G=$T/guava
mkdir "$G" "$T/java"
if ! javac -cp "$GUAVA_JAR" -d "$T/java" "$TOOL_SRC" 2>"$G/javac.err"; then
    fail "GuavaTool.java compiles" "$(head -c 200 "$G/javac.err")"
    finish
fi

# gt COMMAND ARGS...: Java's GuavaTool (a small heap: hostile sizes fail fast there too).
gt() { java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$GUAVA_JAR:$T/java" GuavaTool "$@"; }

# java_selected FUNNEL FILTER INPUT: the lines of INPUT for which Java's mightContain is true.
java_selected() {
    gt check "$2" "$1" <"$3" >"$G/java-bits" 2>"$G/java.err" ||
        { echo "GuavaTool check failed: $(head -c 160 "$G/java.err")" >&2; return 1; }
    paste -d ' ' "$G/java-bits" "$3" | sed -n 's/^1 //p'
}

# java_create NAME FUNNEL N P INPUT OUT [mitz32]: a fixture written by Java.
java_create() {
    local name=$1 funnel=$2 n=$3 p=$4 input=$5 out=$6
    gt create "$out" "$funnel" "$n" "$p" ${7:+"$7"} <"$input" 2>"$G/java.err" ||
        fail "fixture $name (GuavaTool create)" "$(head -c 160 "$G/java.err")"
}

# same_answers NAME FUNNEL FILTER INPUT [CHECK_OPTIONS...]: bloomkit check prints the lines of
# INPUT that Java's mightContain accepts (in order), and --absent the others.
same_answers() {
    local name=$1 funnel=$2 filter=$3 input=$4
    shift 4
    java_selected "$funnel" "$filter" "$input" >"$G/expected" || { fail "$name" "Java could not read $filter"; return; }
    run "$B" check "$@" --funnel "$funnel" "$filter" "$input"
    if [[ -s $G/expected ]]; then check_rc "$name: exit 0" 0; else check_rc "$name: exit 1" 1; fi
    check_same "$name: the lines Java's mightContain accepts ($(lines_of "$G/expected") of $(lines_of "$input"))" \
        "$G/expected" "$OUT"
    paste -d ' ' "$G/java-bits" "$input" | sed -n 's/^0 //p' >"$G/expected-absent"
    run "$B" check --absent "$@" --funnel "$funnel" "$filter" "$input"
    check_same "$name: --absent prints the others" "$G/expected-absent" "$OUT"
}

# ---------------------------------------------------------------------------------------------
# Keys for each funnel (no '\r' and no empty lines: GuavaTool keeps a '\r', bloomkit strips it)
#
# utf8: N keys (200000; GUAVA_TEST_KEYS=1000000 for the full-size run), a quarter of them
# non-ASCII (Cyrillic, CJK, an emoji outside the BMP); chars: N/4 of them; int: -N/4..N/4-1 and
# the extremes; long: around 10^12 and the extremes; bytes: binary lines (bytes 0x80-0xff, invalid
# UTF-8, a NUL, a tab). Absent: as many others.
N=${GUAVA_TEST_KEYS:-200000}
Q=$((N / 4))

awk -v n="$N" 'BEGIN { for (i = 1; i <= n; i++) {
        r = i % 4
        if (r == 0) printf "ключ-%d\n", i; else if (r == 1) printf "鍵-%d-é\n", i
        else if (r == 2) printf "key-%d-\360\237\230\200\n", i; else printf "key-%d\n", i } }' >"$G/utf8.keys"
awk -v n="$N" 'BEGIN { for (i = 1; i <= n; i++) {
        r = i % 4
        if (r == 0) printf "ключ+%d\n", i; else if (r == 1) printf "鍵+%d-é\n", i
        else if (r == 2) printf "other-%d-\360\237\230\200\n", i; else printf "other-%d\n", i } }' >"$G/utf8.absent"
head -n "$Q" "$G/utf8.keys" >"$G/chars.keys"
head -n "$Q" "$G/utf8.absent" >"$G/chars.absent"
{ seq -"$Q" $((Q - 1)); echo -2147483648; echo 2147483647; } >"$G/int.keys"
{ seq 100000000 $((100000000 + Q - 1)); seq -$((100000000 + Q - 1)) -100000000; } >"$G/int.absent"
{ seq -f '%.0f' 1000000000000 $((1000000000000 + Q - 1)); seq -f '%.0f' -$((Q / 2)) -1;
  echo -9223372036854775808; echo 9223372036854775807; } >"$G/long.keys"
{ seq -f '%.0f' 2000000000000 $((2000000000000 + Q - 1)); seq -f '%.0f' -$((9000000000000000 + Q / 2)) -9000000000000001; } >"$G/long.absent"
awk -v n="$Q" 'BEGIN { for (i = 1; i <= n; i++) printf "%c%c\t%d%c\n", 128 + i % 128, 192 + i % 7, i, 255 - i % 3 }' >"$G/bytes.keys"
printf 'a\000b\n' >>"$G/bytes.keys"
awk -v n="$Q" 'BEGIN { for (i = 1; i <= n; i++) printf "%c%c\t%d%c\n", 128 + i % 128, 248 + i % 7, i, 250 - i % 3 }' >"$G/bytes.absent"
printf 'a\000c\n' >>"$G/bytes.absent"

FUNNELS=(utf8 chars int long bytes)
declare -A NKEYS=([utf8]=$N [chars]=$Q [int]=$((2 * Q + 2)) [long]=$((Q + Q / 2 + 2)) [bytes]=$((Q + 1)))

# ---------------------------------------------------------------------------------------------
# Java's filters, read by bloomkit: the same answers as mightContain, for every funnel

for f in "${FUNNELS[@]}"; do
    paste -d '\n' "$G/$f.keys" "$G/$f.absent" | sed '/^$/d' >"$G/$f.mixed"
    java_create "java-$f.guava" $f ${NKEYS[$f]} 0.01 "$G/$f.keys" "$G/java-$f.guava"
done
for f in "${FUNNELS[@]}"; do
    [[ -s $G/java-$f.guava ]] || continue
    run "$B" check --funnel $f "$G/java-$f.guava" "$G/$f.keys"
    check_rc "Java's $f filter: check of its keys exits 0" 0
    check_same "Java's $f filter: bloomkit finds every key" "$G/$f.keys" "$OUT"
    same_answers "Java's $f filter, keys and others interleaved" $f "$G/java-$f.guava" "$G/$f.mixed"
    same_answers "Java's $f filter, absent keys only" $f "$G/java-$f.guava" "$G/$f.absent"
done
# The line read from stdin, and --format guava named rather than recognised.
java_selected utf8 "$G/java-utf8.guava" "$G/utf8.mixed" >"$G/expected"
run "$B" check --format guava --funnel utf8 "$G/java-utf8.guava" - <"$G/utf8.mixed"
check_same "check --format guava FILTER - (stdin): Java's answers" "$G/expected" "$OUT"
run "$B" check "$G/java-utf8.guava" "$G/utf8.mixed"
check_same "check without --funnel reads a Guava stream as utf8" "$G/expected" "$OUT"
run "$B" check --count --funnel utf8 "$G/java-utf8.guava" "$G/utf8.mixed"
check_eq "check --count: present = Java's count" "$(lines_of "$G/expected")" "$(count_of "$OUT" present)"
check_eq "check --count: absent = the others" $((2 * N - $(lines_of "$G/expected"))) "$(count_of "$OUT" absent)"

# ---------------------------------------------------------------------------------------------
# build --format guava: the bytes of Java's BloomFilter.create(funnel, n, p) + put, and Java
# reads them with the same answers

for f in "${FUNNELS[@]}"; do
    run "$B" build --format guava --funnel $f -n ${NKEYS[$f]} -p 0.01 -o "$G/bk-$f.guava" "$G/$f.keys"
    check_rc "build --format guava --funnel $f exits 0" 0
    check_same "build --format guava --funnel $f = Java's stream" "$G/java-$f.guava" "$G/bk-$f.guava"
done
run gt read "$G/bk-int.guava" int
check_rc "Java's readFrom accepts bloomkit's int stream" 0
same_answers "Java's check of bloomkit's long stream" long "$G/bk-long.guava" "$G/long.mixed"

# Several sizes: (keys, n, p), the funnel in front. n=1 p=0.01 gives k=6 in Guava 31.1 (7 by
# the newer formula); n=1 p=0.3 and n=3 p=0.01 are other cases where the two formulas differ;
# 1000 keys at n=1000 overfill nothing, 20000 at n=1000 fill the filter.
head -n 1 "$G/utf8.keys" >"$G/one.keys"
head -n 3 "$G/utf8.keys" >"$G/three.keys"
head -n 1000 "$G/utf8.keys" >"$G/1k.keys"
head -n 20000 "$G/utf8.keys" >"$G/20k.keys"
head -n 20000 "$G/int.keys" >"$G/int-20k.keys"
: >"$G/none.keys"
while read -r f keys n p; do
    label="$f n=$n p=$p ($keys)"
    java_create "$label" $f $n $p "$G/$keys" "$G/size.java"
    run "$B" build --format guava --funnel $f -n $n -p $p -o "$G/size.bk" "$G/$keys"
    check_rc "build --format guava $label exits 0" 0
    check_same "build --format guava $label = Java's stream" "$G/size.java" "$G/size.bk"
    run gt read "$G/size.bk" $f
    check_rc "Java reads bloomkit's $label" 0
done <<'EOF'
utf8 one.keys 1 0.01
utf8 one.keys 1 0.3
utf8 three.keys 3 0.01
utf8 1k.keys 1000 0.001
utf8 20k.keys 1000 0.01
utf8 1k.keys 1000 0.03
utf8 20k.keys 20000 0.000001
bytes one.keys 1 0.5
int int-20k.keys 20000 0.25
long int-20k.keys 100000 0.05
chars 1k.keys 5 0.1
EOF
"$B" build --format guava -n 1000 -p 0.01 -o "$G/full.guava" "$G/20k.keys" 2>/dev/null
# n=0: Java's create takes it as 1; bloomkit's -n is at least 1 (refused with a message), and -n 1
# writes Java's create(funnel, 0, p).
java_create "n=0" utf8 0 0.01 "$G/none.keys" "$G/n0.java"
expect_error "build --format guava -n 0 is refused with a message" "" \
    "$B" build --format guava -n 0 -p 0.01 -o "$G/n0.bk" "$G/none.keys"
run "$B" build --format guava -n 1 -p 0.01 -o "$G/n1.bk" "$G/none.keys"
check_same "build --format guava -n 1 (no keys) = Java's create(funnel, 0, 0.01)" "$G/n0.java" "$G/n1.bk"
same_answers "Java's answers on bloomkit's overfull filter (20000 keys at n=1000)" utf8 "$G/full.guava" \
    "$G/utf8.mixed"

# ---------------------------------------------------------------------------------------------
# MURMUR128_MITZ_32 (ordinal 0, Guava before 17): both ways

java_create "java-mitz32.guava" utf8 "$Q" 0.01 "$G/chars.keys" "$G/java-mitz32.guava" mitz32
check_eq "Java's mitz32 stream starts with strategy byte 0" 0 "$(od -An -tu1 -N 1 "$G/java-mitz32.guava" | tr -d ' ')"
same_answers "Java's mitz32 utf8 filter" utf8 "$G/java-mitz32.guava" "$G/chars.mixed"
run "$B" build --format guava --layout guava-mitz32 -n "$Q" -p 0.01 -o "$G/bk-mitz32.guava" "$G/chars.keys"
check_rc "build --layout guava-mitz32 exits 0" 0
check_same "build --layout guava-mitz32 = Java's mitz32 stream" "$G/java-mitz32.guava" "$G/bk-mitz32.guava"
java_create "java-mitz32-int.guava" int 100002 0.001 "$G/int.keys" "$G/java-mitz32-int.guava" mitz32
run "$B" build --format guava --layout guava-mitz32 --funnel int -n 100002 -p 0.001 -o "$G/bk-mitz32-int.guava" "$G/int.keys"
check_same "build --layout guava-mitz32 --funnel int = Java's mitz32 stream" "$G/java-mitz32-int.guava" "$G/bk-mitz32-int.guava"
same_answers "Java's check of bloomkit's mitz32 int stream" int "$G/bk-mitz32-int.guava" "$G/int.mixed"
run "$B" info "$G/java-mitz32.guava"
check_in "info names MURMUR128_MITZ_32 for a mitz32 stream" "$OUT" "MITZ_32"

# ---------------------------------------------------------------------------------------------
# merge = Java's putAll; add = Java's put; merge of unlike streams refused

head -n $((N / 2)) "$G/utf8.keys" >"$G/half-a.keys"
tail -n +$((N / 2 + 1)) "$G/utf8.keys" >"$G/half-b.keys"
java_create "half-a.guava" utf8 "$N" 0.01 "$G/half-a.keys" "$G/half-a.guava"
java_create "half-b.guava" utf8 "$N" 0.01 "$G/half-b.keys" "$G/half-b.guava"
gt merge "$G/java-merged.guava" utf8 "$G/half-a.guava" "$G/half-b.guava" 2>"$G/java.err" ||
    fail "fixture java-merged.guava (GuavaTool merge)" "$(head -c 160 "$G/java.err")"
run "$B" merge -o "$G/bk-merged.guava" "$G/half-a.guava" "$G/half-b.guava"
check_rc "merge of two Guava streams exits 0" 0
check_same "merge of two Guava streams = Java's putAll" "$G/java-merged.guava" "$G/bk-merged.guava"
check_same "merged halves = Java's filter of all the keys" "$G/java-utf8.guava" "$G/bk-merged.guava"
gt merge "$G/java-merged-int.guava" int "$G/java-mitz32-int.guava" "$G/bk-mitz32-int.guava" 2>/dev/null
run "$B" merge -o "$G/bk-merged-int.guava" "$G/java-mitz32-int.guava" "$G/bk-mitz32-int.guava"
check_same "merge of two mitz32 streams = Java's putAll" "$G/java-merged-int.guava" "$G/bk-merged-int.guava"
run "$B" merge -o "$G/unlike.guava" "$G/half-a.guava" "$G/java-chars.guava"
check_rc "merge of Guava streams of other sizes is refused (exit 2)" 2
check_cond "merge refused: a message, no output file" "stderr: $(err_line)" \
    test -s "$ERR" -a ! -e "$G/unlike.guava"
run gt merge "$G/unlike-java.guava" utf8 "$G/half-a.guava" "$G/java-chars.guava"
check_rc "(Java's putAll refuses them too)" 2

cp "$G/half-a.guava" "$G/added.guava"
run "$B" add --funnel utf8 "$G/added.guava" "$G/half-b.keys"
check_rc "add to a Guava stream exits 0" 0
check_same "add of the other half = Java's filter of all the keys" "$G/java-utf8.guava" "$G/added.guava"
run gt read "$G/added.guava" utf8
check_rc "Java reads the stream add rewrote" 0

# ---------------------------------------------------------------------------------------------
# convert guava -> bkf -> guava: byte-identical; the bkf answers as the stream

for f in utf8 int bytes; do
    run "$B" convert --funnel $f "$G/java-$f.guava" --to bkf -o "$G/conv-$f.bkf"
    check_rc "convert --funnel $f guava -> bkf exits 0" 0
    run "$B" convert "$G/conv-$f.bkf" --to guava -o "$G/conv-$f.guava"
    check_rc "convert $f bkf -> guava exits 0" 0
    check_same "guava -> bkf -> guava ($f) is byte-identical" "$G/java-$f.guava" "$G/conv-$f.guava"
    java_selected $f "$G/java-$f.guava" "$G/$f.mixed" >"$G/expected"
    run "$B" check "$G/conv-$f.bkf" "$G/$f.mixed"
    check_same "the bkf of a $f stream (funnel recorded) answers as Java" "$G/expected" "$OUT"
    run "$B" info --json "$G/conv-$f.bkf"
    check_eq "info --json of the bkf: funnel $f recorded" $f "$(json_value "$OUT" funnel)"
done
run "$B" convert --funnel utf8 "$G/java-mitz32.guava" --to bkf -o "$G/conv-mitz32.bkf"
run "$B" convert "$G/conv-mitz32.bkf" --to guava -o "$G/conv-mitz32.guava"
check_same "mitz32: guava -> bkf -> guava is byte-identical" "$G/java-mitz32.guava" "$G/conv-mitz32.guava"
run "$B" convert "$G/java-utf8.guava" --to guava -o "$G/conv-same.guava"
check_same "convert guava -> guava is byte-identical" "$G/java-utf8.guava" "$G/conv-same.guava"

# A bkf built with the Guava layout converts to the stream Java writes.
run "$B" build --layout guava --funnel long -n ${NKEYS[long]} -p 0.01 -o "$G/layout.bkf" "$G/long.keys"
check_rc "build --layout guava (a bkf file) exits 0" 0
run "$B" convert "$G/layout.bkf" --to guava -o "$G/layout.guava"
check_same "bkf of the Guava layout -> guava = Java's stream" "$G/java-long.guava" "$G/layout.guava"

# Other filters: refused, the keys are needed.
for layout in split-block classic; do
    "$B" build --layout $layout -n 1000 -o "$G/$layout.bkf" "$G/1k.keys" 2>/dev/null
    expect_error "convert of a $layout bkf filter to guava is refused (keys needed)" "keys" \
        "$B" convert "$G/$layout.bkf" --to guava -o "$G/$layout.guava"
    check_cond "no stream written for the refused $layout conversion" "$G/$layout.guava exists" test ! -e "$G/$layout.guava"
done
"$B" build --kind cuckoo -n 1000 -o "$G/cuckoo.bkf" "$G/1k.keys" 2>/dev/null
expect_error "convert of a cuckoo filter to guava is refused" "" \
    "$B" convert "$G/cuckoo.bkf" --to guava -o "$G/cuckoo.guava"

# ---------------------------------------------------------------------------------------------
# info

run "$B" info --json "$G/java-utf8.guava"
check_rc "info --json on a Guava stream exits 0" 0
check_eq "info --json: format" guava "$(json_value "$OUT" format)"
check_eq "info --json: funnel utf8 by default" utf8 "$(json_value "$OUT" funnel)"
run "$B" info --json --funnel long "$G/java-long.guava"
check_eq "info --json --funnel long: funnel" long "$(json_value "$OUT" funnel)"
run "$B" info "$G/java-utf8.guava"
check_rc "info on a Guava stream exits 0" 0
check_in "info says Guava BloomFilter stream" "$OUT" "Guava BloomFilter stream"
gt stats "$G/java-utf8.guava" utf8 >"$G/stats"
run "$B" info --json "$G/java-utf8.guava"
check_eq "info --json hashes = Java's k" "$(sed -n 's/^k=//p' "$G/stats")" "$(json_value "$OUT" hashes)"
check_eq "info --json bits = Java's bitSize" "$(sed -n 's/^bits=//p' "$G/stats")" "$(json_value "$OUT" bits)"

# ---------------------------------------------------------------------------------------------
# --funnel that is not the writer's: no crash (an error on text lines, or other answers)

run "$B" check --funnel long "$G/java-utf8.guava" "$G/utf8.mixed"
check_cond "utf8 stream read with --funnel long on text lines: exit 1 or 2, no crash" "exit $RC" \
    test $RC -eq 1 -o $RC -eq 2
[[ $RC -ne 2 ]] || check_cond "... and the error has a message" "no message" test -s "$ERR"
run "$B" check --funnel int "$G/java-long.guava" "$G/long.keys"
check_cond "long stream read with --funnel int: no crash (exit 0, 1 or 2)" "exit $RC" test $RC -le 2
run "$B" check --funnel chars "$G/java-utf8.guava" "$G/utf8.mixed"
check_cond "utf8 stream read with --funnel chars: no crash, other answers" "exit $RC" test $RC -le 2
run "$B" check --funnel nope "$G/java-utf8.guava" "$G/utf8.mixed"
check_rc "an unknown --funnel is an error (exit 2)" 2

# ---------------------------------------------------------------------------------------------
# Hostile and damaged streams: exit 2 with a message, as Java's readFrom refuses them

# hostile NAME HEXBYTES [WORDS]: a stream of those header bytes and WORDS zero words.
hostile() {
    printf "$2" >"$G/$1.guava"
    [[ ${3:-0} -eq 0 ]] || head -c $((8 * $3)) /dev/zero >>"$G/$1.guava"
}
hostile strategy-2 '\x02\x07\x00\x00\x00\x01' 1
hostile strategy-neg '\xff\x07\x00\x00\x00\x01' 1
hostile k-zero '\x01\x00\x00\x00\x00\x01' 1
hostile n-zero '\x01\x07\x00\x00\x00\x00'
hostile n-negative '\x01\x07\x80\x00\x00\x01' 1
hostile n-huge '\x01\x07\x7f\xff\xff\xff' 4
hostile n-big '\x01\x07\x01\x00\x00\x00' 2
hostile header-only '\x01\x07\x00\x00'
hostile one-byte '\x01'
head -c 1000 "$G/java-utf8.guava" >"$G/truncated.guava"
head -c $(($(wc -c <"$G/java-utf8.guava") - 1)) "$G/java-utf8.guava" >"$G/short-by-one.guava"
: >"$G/empty.guava"
for h in strategy-2 strategy-neg k-zero n-zero n-negative n-huge n-big header-only one-byte truncated short-by-one empty; do
    run gt read "$G/$h.guava" utf8
    java_rc=$RC
    expect_error "hostile stream '$h': check --format guava exits 2 with a message" "" \
        "$B" check --format guava "$G/$h.guava" "$G/1k.keys"
    expect_error "hostile stream '$h': check (format detected) exits 2 with a message" "" \
        "$B" check "$G/$h.guava" "$G/1k.keys"
    expect_error "hostile stream '$h': info exits 2" "" "$B" info --format guava "$G/$h.guava"
    check_eq "hostile stream '$h': Java's readFrom refuses it too" 2 $java_rc
done
# k=255 on one word: Java accepts it; bloomkit reads it and answers as Java.
hostile k-255 '\x01\xff\x00\x00\x00\x01'
printf '\xff\xff\xff\xff\xff\xff\xff\xff' >>"$G/k-255.guava"
run gt read "$G/k-255.guava" utf8
check_rc "(Java accepts k=255)" 0
same_answers "k=255, every bit set" utf8 "$G/k-255.guava" "$G/1k.keys" --format guava
# Trailing bytes after the last word: Java's readFrom leaves them unread; bloomkit refuses them
# ("4 unexpected bytes after the Guava filter"). Either way no crash.
cp "$G/java-int.guava" "$G/trailing.guava"
printf 'tail' >>"$G/trailing.guava"
run "$B" check --format guava --funnel int "$G/trailing.guava" "$G/int.keys"
check_cond "a stream with trailing bytes: exit 0 or 2 with a message, no crash" "exit $RC; stderr: $(err_line)" \
    test $RC -eq 0 -o \( $RC -eq 2 -a -s "$ERR" \)
# A flipped bit in a stream has no checksum to catch it: still read, the answers as Java's.
cp "$G/java-bytes.guava" "$G/flipped.guava"
flip_byte "$G/flipped.guava" 5000
same_answers "a stream with a flipped byte" bytes "$G/flipped.guava" "$G/bytes.mixed"

finish
