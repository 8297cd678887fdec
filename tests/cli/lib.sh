# tests/cli/lib.sh — harness and shared fixtures of the end-to-end tests of the bloomkit command.
#
# Each test script (plan.sh, build.sh, ...) starts with
#
#   source "$(dirname "$0")/lib.sh" "$@"
#
# and ends with `finish`; it is then run as `bash tests/cli/SCRIPT.sh /path/to/bloomkit`.
#
# Self-contained: each script works in its own temporary directory $T (removed on exit), uses only
# bash, coreutils and awk (python3 and libxxhash too, to forge a header: forge_header), no network.
# Prints "ok - name" / "not ok - name (details)" per check and finally "N passed, M failed"; exits
# 1 when anything failed.
#
# Exit codes under test (as grep's): the subcommands that print lines (check, dedup, intersect,
# subtract, once, top, redis check) exit 0 when they printed at least one, 1 when none, 2 on any
# error; remove exits 0 when every line was removed, 1 when some line was refused (or there was
# none), 2 on error; the other subcommands exit 0 on success, 2 on error. Errors go to stderr,
# with nothing on stdout.
set -u

if [[ $# -ne 1 || ! -x $1 ]]; then
    echo "usage: bash $0 /path/to/bloomkit" >&2
    exit 2
fi
B=$1
[[ $B == */* ]] || B=./$B
case $B in /*) ;; *) B=$PWD/$B ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/bloomkit-cli-$(basename "$0" .sh).XXXXXX") || exit 2
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

# finish: prints the totals and exits 1 when anything failed (0 otherwise). The last line of
# every test script.
finish() {
    echo "$passed passed, $failed failed"
    [[ $failed -eq 0 ]] || exit 1
    exit 0
}

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

# rc_as_grep FILE: the exit code of a command that prints lines whose output is FILE, as grep's:
# 0 when it holds a line, 1 when it is empty.
rc_as_grep() { if [[ -s $1 ]]; then echo 0; else echo 1; fi; }

# check_rc_as_grep NAME: the last run exited as a command that prints lines does, for what it
# printed ($OUT).
check_rc_as_grep() { check_rc "$1" "$(rc_as_grep "$OUT")"; }

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

# ---------------------------------------------------------------------------------------------
# Waiting for the other side
#
# No check depends on how fast anything runs (the suite passes on a busy machine): a test that
# needs another process to have reached some point waits for a sign of it (a message, a lock
# held, a file), polling every 0.1 s. WAIT_SECONDS only keeps a broken test from hanging for ever.

WAIT_SECONDS=300

# wait_until CMD...: polls CMD until it succeeds; false when it still fails after WAIT_SECONDS.
wait_until() {
    local deadline=$((SECONDS + WAIT_SECONDS))
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.1
    done
}

# holds FILE [TEXT]: FILE exists and holds TEXT (case-insensitive); without TEXT, is not empty.
holds() {
    if [[ $# -lt 2 ]]; then [[ -s $1 ]]; else [[ -e $1 ]] && file_contains "$1" "$2"; fi
}

# wait_for FILE [TEXT]: waits until FILE holds TEXT (without TEXT: until it is not empty); false
# after WAIT_SECONDS.
wait_for() { wait_until holds "$@"; }

# gone PID: the process PID has ended (or is a zombie).
gone() {
    local state=""
    { read -r _ _ state _ <"/proc/$1/stat"; } 2>/dev/null
    [[ -z $state || $state == [ZX] ]]
}

# holds_or_gone FILE TEXT PID: FILE holds TEXT, or the process PID that would write it has ended.
holds_or_gone() { holds "$1" "$2" || gone "$3"; }

# hold_lock FILE: another process takes FILE's writer lock (bloomkit's is flock(2) on the filter
# file itself; flock(1) on the file conflicts with it) and holds it until release_lock; returns
# once it holds it (false if it did not within WAIT_SECONDS). One holder at a time. The holder
# tells it holds the lock through one FIFO and waits on another for its release; both are open
# on both sides before either is used, so neither side can block on an open.
hold_lock() {
    local held="" fd
    rm -f "$T/.lock-held" "$T/.lock-go"
    mkfifo "$T/.lock-held" "$T/.lock-go"
    exec {fd}<>"$T/.lock-held"
    flock "$1" bash -c 'exec 3<>"$2"; echo held >"$1"; read -r -t "$3" _ <&3' _ \
        "$T/.lock-held" "$T/.lock-go" "$WAIT_SECONDS" &
    LOCK_HOLDER=$!
    read -r -t "$WAIT_SECONDS" -u "$fd" held
    exec {fd}<&-
    [[ $held == held ]]
}

# release_lock: the holder of hold_lock lets the lock go; waits until it has ended.
release_lock() {
    echo go 1<>"$T/.lock-go"
    wait "$LOCK_HOLDER"
}

# run_past_lock CMD...: runs CMD (a writer of the file hold_lock holds) as run does, but in the
# background: once CMD says it is "waiting for another bloomkit" (it does after about a second),
# the lock is released (release_lock); then CMD is waited for, its exit code to RC. Should CMD
# never say so, the lock is released when it has ended or after WAIT_SECONDS (the caller's check
# of the message then fails).
run_past_lock() {
    local pid
    { "$@" >"$OUT" 2>"$ERR" & } 2>/dev/null
    pid=$!
    wait_until holds_or_gone "$ERR" "waiting for another bloomkit" $pid
    release_lock
    { wait $pid; } 2>/dev/null
    RC=$?
}

# flip_byte FILE OFFSET: replaces the byte at OFFSET by its complement, in place.
flip_byte() {
    local value
    value=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' \n')
    printf "\\x$(printf '%02x' $((255 - value)))" | dd of="$1" bs=1 seek="$2" count=1 conv=notrunc status=none
}

# ---------------------------------------------------------------------------------------------
# Filter files changed by hand: damage, the marks of an interrupted update, forged headers
#
# Offsets are those of docs/FORMAT.md: the header is 128 bytes (version u16 at 8, key format at
# 88, flags u32 at 112, its checksum at 120), the payload starts at 128 and is checksummed by
# chunks of 64 KiB in the chunk table that follows it.

CHUNK=65536
UPDATE_MARK='\x27\x4d\x9f\x0b\x1d\x6e\xa5\xc3'   # 0xc3a56e1d0b9f4d27, little-endian: "chunk being written"

# payload_size_of FILE: the payload size in the header (u64 at 80).
payload_size_of() { od -An -tu8 --endian=little -j 80 -N 8 "$1" | tr -d ' '; }

# zero_bytes FILE OFFSET COUNT: overwrites COUNT bytes at OFFSET with zeros, in place.
zero_bytes() { dd if=/dev/zero of="$1" bs=1024 seek="$2" count="$3" iflag=count_bytes oflag=seek_bytes conv=notrunc status=none; }

# zero_in_chunk FILE CHUNK: zeros 8 KiB inside payload chunk CHUNK (from 16 KiB into it).
zero_in_chunk() { zero_bytes "$1" $((128 + $2 * CHUNK + 16384)) 8192; }

# mark_chunk FILE CHUNK: writes the "being written" mark over CHUNK's entry in the chunk table,
# as an update in place does before it writes the chunk (left there when its writer died).
mark_chunk() {
    local table=$((128 + $(payload_size_of "$1")))
    printf "$UPDATE_MARK" | dd of="$1" bs=1 seek=$((table + 8 * $2)) conv=notrunc status=none
}

# update_flag_set FILE: the header says an update in place is under way (flags, offset 112, bit 0).
update_flag_set() { (($(od -An -tu1 -j 112 -N 1 "$1" 2>/dev/null || echo 0) & 1)); }

# forge_header FILE OFFSET=BYTE...: sets each header byte at OFFSET (decimal) to BYTE and seals
# the header again (XXH3-64, seed 0, of bytes 0..119, at 120), as a writer of those bytes would:
# an older format version, or a flag that no command leaves on purpose. python3 calls libxxhash
# (the project's own dependency) through ctypes; see can_forge_headers.
FORGE_PY='
import ctypes, ctypes.util, struct, sys
name = ctypes.util.find_library("xxhash") or "libxxhash.so.0"
xxh = ctypes.CDLL(name)
xxh.XXH3_64bits.restype = ctypes.c_uint64
xxh.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
if len(sys.argv) < 2:
    sys.exit(0 if xxh.XXH3_64bits(b"", 0) == 0x2d06800538d394c2 else 1)
with open(sys.argv[1], "r+b") as f:
    h = bytearray(f.read(128))
    for a in sys.argv[2:]:
        offset, value = a.split("=")
        h[int(offset)] = int(value, 0)
    h[120:128] = struct.pack("<Q", xxh.XXH3_64bits(bytes(h[:120]), 120))
    f.seek(0)
    f.write(h)
'
forge_header() { python3 -c "$FORGE_PY" "$@"; }

# can_forge_headers: python3 with ctypes and libxxhash are there (XXH3-64 of "" is known).
can_forge_headers() { command -v python3 >/dev/null && python3 -c "$FORGE_PY" 2>/dev/null; }

# The value that follows "KEY": in $0, as json_value and plan_value print it: a string without its
# quotes, an array of strings or numbers as written ('["adds", "deletes"]'), a number, true,
# false or null.
JSON_VALUE_AWK='
function print_value(key,    i, s) {
    i = index($0, key); if (i == 0) return 0; s = substr($0, i + length(key))
    if (substr(s, 1, 1) == "\"") { s = substr(s, 2); print substr(s, 1, index(s, "\"") - 1) }
    else if (substr(s, 1, 1) == "[") print substr(s, 1, index(s, "]"))
    else { match(s, /^[^,}]*/); print substr(s, 1, RLENGTH) }
    return 1
}'

# json_value FILE KEY: the value of a top-level "KEY": value in one-line JSON (docs/JSON.md), from
# the first line of FILE that has it: other lines (warnings on stderr before a --json summary)
# are passed over. The first "KEY": of the line is taken: a member of the object itself, which
# comes before those of the objects nested in it.
json_value() {
    awk -v key="\"$2\": " "$JSON_VALUE_AWK"'
        { if (print_value(key)) exit }' "$1"
}

# plan_value FLAGS KEY: the value of "KEY" in the entry of plan --json's "kinds" array (in $OUT)
# whose "flags" is FLAGS ("bloom", "fuse --bits 16").
plan_value() {
    awk -v flags="\"flags\": \"$1\"," -v key="\"$2\": " "$JSON_VALUE_AWK"'
        BEGIN { RS = "{" } index($0, flags) == 1 { print_value(key); exit }' "$OUT"
}

# count_of FILE WHAT: the number that check --count printed for WHAT (present / absent).
count_of() { awk -F '\t' -v what="$2" '$1 == what { print $2 }' "$1"; }

# stages_of FILE: the number of stages in an info --json of a scalable filter (each an object that
# starts with "expected_keys").
stages_of() { awk '{ n += gsub(/\{"expected_keys": /, "") } END { print n + 0 }' "$1"; }

# ---------------------------------------------------------------------------------------------
# Test data
#
# Only names are set here; the files are made by the need_* functions below, on a script's first
# call (later calls do nothing). A fixture never touches RC, $OUT or $ERR, so it may be called
# anywhere; when one of its commands fails it reports "not ok - fixture ...".

N=100000
KEYS=$T/keys.txt           # key-1 .. key-100000: inserted
OTHERS=$T/others.txt       # other-1 .. other-100000: never inserted
MIXED=$T/mixed.txt         # the two interleaved
FP_LIMIT=1500              # at -p 0.01, 100k absent lines give ~1000 false positives (sd ~32)

mkdir "$T/filters"
F=$T/filters/keys.bf       # the main filter: KEYS at -n 100000 -p 0.01, default layout and seed

# fixture_build NAME FILE BUILD_ARGS...: runs `bloomkit build BUILD_ARGS...` unless FILE exists.
fixture_build() {
    local name=$1 file=$2
    shift 2
    local rc
    [[ -e $file ]] && return 0
    { "$B" build "$@" >/dev/null 2>"$T/fixture-err"; } 2>/dev/null
    rc=$?
    if [[ $rc -ne 0 ]]; then
        fail "fixture $name" "build $* exited $rc; stderr: $(head -c 160 "$T/fixture-err")"
        rm -f "$file"
        return 1
    fi
}

need_keys() { [[ -e $KEYS ]] || seq -f 'key-%.0f' 1 $N >"$KEYS"; }
need_others() { [[ -e $OTHERS ]] || seq -f 'other-%.0f' 1 $N >"$OTHERS"; }
need_mixed() {
    need_keys
    need_others
    [[ -e $MIXED ]] || paste -d '\n' "$KEYS" "$OTHERS" >"$MIXED"
}

# keys-a.txt (the first 50000 KEYS) and keys-b.txt (the other 50000).
need_key_halves() {
    need_keys
    [[ -e $T/keys-a.txt ]] || head -n 50000 "$KEYS" >"$T/keys-a.txt"
    [[ -e $T/keys-b.txt ]] || tail -n +50001 "$KEYS" >"$T/keys-b.txt"
}

# keys-10k.txt: the first 10000 KEYS.
need_keys_10k() {
    need_keys
    [[ -e $T/keys-10k.txt ]] || head -n 10000 "$KEYS" >"$T/keys-10k.txt"
}

# part-0.txt .. part-3.txt: KEYS in 4 parts of 25000 lines (several inputs for the worker threads).
need_key_parts() {
    need_keys
    [[ -e $T/part-0.txt ]] || awk -v d="$T" '{ print > (d "/part-" int((NR - 1) / 25000) ".txt") }' "$KEYS"
    PARTS=("$T/part-0.txt" "$T/part-1.txt" "$T/part-2.txt" "$T/part-3.txt")
}

# empty.txt: an empty file.
need_empty_input() { [[ -e $T/empty.txt ]] || : >"$T/empty.txt"; }

# lf.txt: three short LF-terminated lines.
need_lf_lines() { [[ -e $T/lf.txt ]] || printf 'alpha\nbeta\ngamma\n' >"$T/lf.txt"; }

# extra.txt: two lines that are in no other input.
need_extra_lines() { [[ -e $T/extra.txt ]] || printf 'extra-1\nextra-2\n' >"$T/extra.txt"; }

# text.bf: a text file (a copy of lf.txt) where a filter is expected.
need_text_file() {
    need_lf_lines
    [[ -e $T/text.bf ]] || cp "$T/lf.txt" "$T/text.bf"
}

# The main filter $F.
need_keys_filter() {
    need_keys
    fixture_build "keys.bf" "$F" -n $N -p 0.01 -o "$F" "$KEYS"
}

# filters/lf.bf: lf.txt at -n 100.
need_lf_filter() {
    need_lf_lines
    fixture_build "lf.bf" "$T/filters/lf.bf" -n 100 -o "$T/filters/lf.bf" "$T/lf.txt"
}

# need_kind_filter LABEL...: filters/kind-LABEL.bf, KEYS built as that kind at -n 100000 -p 0.01
# (as build.sh's kind_case builds them). LABEL: bloom, counting, cuckoo, scalable, fuse, or fuse4
# (fuse --arity 4).
need_kind_filter() {
    local label options
    need_keys
    for label in "$@"; do
        case $label in
            bloom | counting | cuckoo | scalable | fuse) options=(--kind "$label") ;;
            fuse4) options=(--kind fuse --arity 4) ;;
            *) fail "fixture kind-$label.bf" "unknown label '$label'"; continue ;;
        esac
        fixture_build "kind-$label.bf" "$T/filters/kind-$label.bf" "${options[@]}" -n $N -p 0.01 \
            -o "$T/filters/kind-$label.bf" "$KEYS"
    done
}

# gen_distinct N: N distinct lines (~60 bytes), 32 pseudo-random hex digits each: little to gain
# by compressing them (were the spill files compressed, the full-tmpfs check would still fill it).
gen_distinct() {
    awk -v n="$1" 'function hex32() { x = (x * 69069 + 1) % 4294967296; return sprintf("%04x%04x", int(x / 65536), x % 65536) }
        BEGIN { x = 12345
                for (i = 0; i < n; i++)
                    printf "https://d.example.net/%s%s%s%s/%d\n", hex32(), hex32(), hex32(), hex32(), i }'
}
