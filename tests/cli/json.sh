#!/usr/bin/env bash
# tests/cli/json.sh — every `--json` output of the command against its documentation: each
# command, in each of its modes, runs on small real inputs (the redis commands against a Redis
# server of their own), prints one line holding one object on the stream docs/JSON.md names,
# and that object validates against its definition in docs/json/bloomkit.schema.json (whose
# definitions refuse any member they do not list) and against the schema's top level. Every
# member a definition lists is seen in some output (the schema names nothing the command no
# longer prints), and every member is named in docs/JSON.md. A few values the conventions fix
# are checked too: "command", and "-" for a filter read from standard input.
#
#   bash tests/cli/json.sh /path/to/bloomkit
#
# Needs /usr/bin/python3 with jsonschema (Debian's python3-jsonschema). Exits 77 (skipped, once
# everything else passed) when the redis commands cannot run: redis-server is not installed, or
# the command was built without hiredis.
source "$(dirname "$0")/lib.sh" "$@"

DOCS=$(cd "$(dirname "$0")/../../docs" && pwd)
SCHEMA=$DOCS/json/bloomkit.schema.json
GUIDE=$DOCS/JSON.md
PYTHON=/usr/bin/python3
J=$T/json
mkdir "$J"

if ! "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
    fail "python3-jsonschema" "$PYTHON cannot import jsonschema: install python3-jsonschema (scripts/install-deps.sh test)"
    finish
fi

# ---------------------------------------------------------------------------------------------
# Collecting the outputs

outputs=0

# json_output NAME DEFINITION STREAM CMD...: runs CMD (exit 0, or 1 for "nothing found") and
# keeps the JSON it printed for the validation below, as an output of DEFINITION (a definition
# of the schema). STREAM "out": standard output is that one line; "err": standard error holds
# one line that is an object (beside warnings).
json_output() {
    local name=$1 definition=$2 stream=$3 objects
    shift 3
    run "$@"
    if [[ $RC -gt 1 ]]; then
        fail "$name" "exit $RC; stderr: $(err_line)"
        return 1
    fi
    local printed=$OUT
    [[ $stream == err ]] && printed=$ERR
    objects=$(grep -c '^{' "$printed")
    if [[ $objects -ne 1 || ($stream == out && $(lines_of "$OUT") -ne 1) ]]; then
        fail "$name: one line of JSON on std$stream" "$(head -c 200 "$printed")"
        return 1
    fi
    outputs=$((outputs + 1))
    grep '^{' "$printed" >"$J/$(printf '%03d' $outputs).$definition.json"
    printf '%s\n' "$name" >"$J/$(printf '%03d' $outputs).$definition.name"
    pass "$name: one line of JSON on std$stream"
}

need_keys_10k
need_extra_lines
need_empty_input
KEYS10K=$T/keys-10k.txt
D=$T/data
mkdir "$D"
seq -f 'key-%.0f' 5001 15000 >"$D/b.txt"                  # half of it in KEYS10K
seq 1 3000 | awk '{ print $1 % 1000 }' >"$D/numbers.txt"  # 1000 numbers, each 3 times
printf '7\n7\n8\n9\n9\n9\n' >"$D/few.txt"

# --- plan -------------------------------------------------------------------------------------

json_output "plan -n -p" plan out "$B" plan -n 10000 -p 0.01 --json
json_output "plan -p 1e-6 (a kind that cannot)" plan out "$B" plan -n 1000 -p 1e-6 --json
check_eq "plan -p 1e-6: fuse is not possible" false "$(plan_value fuse possible)"
json_output "plan -p --memory (no -n)" plan out "$B" plan -p 0.01 --memory 1M --json
check_eq "plan -p --memory: expected_keys null" null "$(json_value "$OUT" expected_keys)"

# --- build, add, merge, convert ---------------------------------------------------------------

json_output "build -o FILE" build out "$B" build --json -n 20000 -o "$D/keys.bkf" "$KEYS10K"
check_eq "build: command" build "$(json_value "$OUT" command)"
check_eq "build: lines_read" 10000 "$(json_value "$OUT" lines_read)"
json_output "build -o - (JSON on stderr)" build err "$B" build --json -o - "$KEYS10K"
check_eq "build -o -: file" - "$(json_value "$ERR" file)"
for kind in counting cuckoo scalable fuse; do
    json_output "build --kind $kind" build out "$B" build --json --kind $kind -o "$D/$kind.bkf" "$KEYS10K"
done
json_output "build --layout classic" build out "$B" build --json --layout classic -o "$D/classic.bkf" "$KEYS10K"
json_output "build --format guava" build out "$B" build --json --format guava -n 20000 -o "$D/keys.guava" "$KEYS10K"
json_output "build --format dcso" build out "$B" build --json --format dcso -n 20000 -o "$D/keys.dcso" "$KEYS10K"
check_eq "build --format dcso: format" dcso "$(json_value "$OUT" format)"

json_output "add (in place)" add out "$B" add --json "$D/keys.bkf" "$T/extra.txt"
check_eq "add: lines_read" 2 "$(json_value "$OUT" lines_read)"
json_output "add (a Guava stream, rewritten)" add out "$B" add --json --funnel utf8 "$D/keys.guava" "$T/extra.txt"
check_eq "add of a Guava stream: format" guava "$(json_value "$OUT" format)"
json_output "add (a scalable filter, rewritten)" add out "$B" add --json "$D/scalable.bkf" "$T/extra.txt"

"$B" build -n 20000 -o "$D/b.bkf" "$D/b.txt" 2>/dev/null
json_output "merge" merge out "$B" merge --json -o "$D/merged.bkf" "$D/keys.bkf" "$D/b.bkf"
check_eq "merge: filters" 2 "$(json_value "$OUT" filters)"
json_output "merge -o - (JSON on stderr)" merge err "$B" merge --json -o - "$D/keys.bkf" "$D/b.bkf"

json_output "convert guava -> bkf" convert out "$B" convert --json --funnel utf8 "$D/keys.guava" --to bkf \
    -o "$D/from-guava.bkf"
check_eq "convert: from_format" guava "$(json_value "$OUT" from_format)"
json_output "convert -o - (JSON on stderr)" convert err "$B" convert --json "$D/keys.bkf" --to bkf -o -

# --- info, check ------------------------------------------------------------------------------

"$B" build --kind windowed --window 1h -n 20000 --now 2026-03-01T10:00:00Z -o "$D/windowed.bkf" "$D/b.txt" 2>/dev/null
for file in keys classic counting cuckoo fuse from-guava scalable windowed; do
    json_output "info ($file.bkf)" info out "$B" info --json --now 2026-03-01T10:30:00Z "$D/$file.bkf"
done
check_cond "info of a scalable filter: current_fpr is a number (over its stages)" "$(head -c 300 "$OUT")" \
    awk -v f="$(json_value "$OUT" current_fpr)" 'BEGIN { exit !(f ~ /^[0-9]/) }'
json_output "info --verify" info out "$B" info --json --verify "$D/keys.bkf"
json_output "info (a Guava stream)" info out "$B" info --json "$D/keys.guava"
check_eq "info of a Guava stream: inserted_keys null" null "$(json_value "$OUT" inserted_keys)"
json_output "info (a DCSO file)" info out "$B" info --json "$D/keys.dcso"
json_output "info - (the filter from stdin)" info out "$B" info --json - <"$D/keys.bkf"
check_eq "info -: file" - "$(json_value "$OUT" file)"

json_output "check --count" check out "$B" check --count --json "$D/keys.bkf" "$D/b.txt"
check_eq "check --count: file" "$D/keys.bkf" "$(json_value "$OUT" file)"
json_output "check --count - (the filter from stdin)" check out "$B" check --count --json - "$D/b.txt" <"$D/keys.bkf"
check_eq "check --count -: file" - "$(json_value "$OUT" file)"
json_output "check --count of an empty input (exit 1)" check out "$B" check --count --json "$D/keys.bkf" "$T/empty.txt"

# --- the jobs: JSON on stderr, their lines on stdout ------------------------------------------

json_output "dedup" dedup err "$B" dedup --json "$D/numbers.txt"
check_eq "dedup: signal 0 when the input was read to its end" 0 "$(json_value "$ERR" signal)"
json_output "dedup -n (a Bloom filter)" dedup err "$B" dedup --json -n 1000 "$D/numbers.txt"
json_output "dedup --exact" dedup_exact err "$B" dedup --exact --json "$D/numbers.txt"
json_output "dedup --exact of nothing (every count 0)" dedup_exact err "$B" dedup --exact --json "$T/empty.txt"
check_eq "dedup --exact of nothing: distinct_lines 0" 0 "$(json_value "$ERR" distinct_lines)"
json_output "dedup --exact --key u32 (bitmaps)" dedup_exact err "$B" dedup --exact --json --key u32 "$D/numbers.txt"

json_output "intersect" intersect err "$B" intersect --json "$KEYS10K" "$D/b.txt"
check_eq "intersect: lines_read counts both inputs" 20000 "$(json_value "$ERR" lines_read)"
json_output "intersect --exact" intersect_exact err "$B" intersect --exact --json "$KEYS10K" "$D/b.txt"
json_output "intersect --exact --no-prune" intersect_exact err "$B" intersect --exact --no-prune --json "$KEYS10K" "$D/b.txt"
json_output "subtract" subtract err "$B" subtract --json "$KEYS10K" "$D/b.txt"
json_output "subtract --exact" subtract_exact err "$B" subtract --exact --json "$KEYS10K" "$D/b.txt"

json_output "once" once err "$B" once --json "$D/few.txt"
check_eq "once: command (no options in it)" once "$(json_value "$ERR" command)"
json_output "once --repeated" once err "$B" once --repeated --json "$D/few.txt"
check_eq "once --repeated: repeated" true "$(json_value "$ERR" repeated)"
json_output "once --key u32 (bitmaps)" once err "$B" once --key u32 --json "$D/few.txt"
check_eq "once --key u32: distinct_lines counted in bitmaps too" 3 "$(json_value "$ERR" distinct_lines)"

json_output "top" top err "$B" top -k 2 --json "$D/few.txt"
json_output "top --approx" top_approx err "$B" top -k 2 --approx --json "$D/few.txt"
check_eq "top --approx: command (no options in it)" top "$(json_value "$ERR" command)"

# --- redis ------------------------------------------------------------------------------------

redis_skipped=""
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    redis_skipped="redis-server is not installed (scripts/install-deps.sh test installs it)"
elif ! "$B" redis --help >/dev/null 2>&1; then
    redis_skipped="this bloomkit was built without hiredis: it has no redis command"
else
    source "$(dirname "$0")/redis_lib.sh"
    if redis_start_standalone R; then
        expect_success "redis create" "$B" redis create users -n 20000 --url "$REDIS_URL"
        json_output "redis add" redis_add out "$B" redis add users --json "$KEYS10K" --url "$REDIS_URL"
        check_eq "redis add: name" users "$(json_value "$OUT" name)"
        json_output "redis info" redis_info out "$B" redis info users --json --url "$REDIS_URL"
        json_output "redis check --count" redis_check out "$B" redis check users --count --json "$D/b.txt" --url "$REDIS_URL"
        expect_success "redis create --window" "$B" redis create seen -n 20000 --window 1h --url "$REDIS_URL"
        expect_success "redis add (windowed)" "$B" redis add seen "$KEYS10K" --url "$REDIS_URL"
        json_output "redis info (windowed)" redis_info out "$B" redis info seen --json --url "$REDIS_URL"
        check_eq "redis info (windowed): one live generation" 1 "$(json_value "$OUT" generations | grep -o '"generation"' | grep -c .)"
    fi
fi

# ---------------------------------------------------------------------------------------------
# The outputs against the schema and the guide

VALIDATE_PY='
import glob, json, os, re, sys
import jsonschema

schema_path, guide_path, directory, skipped = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
schema = json.load(open(schema_path))
guide = open(guide_path).read()
defs = schema["$defs"]

def report(ok, name, details=""):
    print(("ok\t%s" % name) if ok else ("not ok\t%s\t%s" % (name, details)))

def members(definition, seen=None):
    """The members a definition lists, with those of the definitions its members refer to."""
    seen = set() if seen is None else seen
    found = set()
    def walk(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/$defs/") and ref[8:] not in seen:
                seen.add(ref[8:])
                walk(defs[ref[8:]])
            for key, value in node.items():
                if key == "properties":
                    found.update(value)
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(definition)
    return found

def keys_in(value):
    if isinstance(value, dict):
        return set(value).union(*(keys_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(keys_in(v) for v in value))
    return set()

jsonschema.Draft202012Validator.check_schema(schema)
report(True, "the schema is a valid draft 2020-12 schema")
top_level = jsonschema.Draft202012Validator(schema)
outputs = [d["$ref"][8:] for d in schema["oneOf"]]
seen_keys = {}
for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
    definition = os.path.basename(path).split(".")[1]
    text = open(path).read()
    label = "of \"%s\"" % open(path[:-len("json")] + "name").read().strip()
    try:
        instance = json.loads(text)
    except ValueError as e:
        report(False, "output %s is JSON" % label, str(e))
        continue
    own = jsonschema.Draft202012Validator({"$defs": defs, "$ref": "#/$defs/" + definition})
    errors = sorted(own.iter_errors(instance), key=lambda e: list(e.path))
    report(not errors, "output %s validates against $defs/%s" % (label, definition),
           "; ".join(e.message[:200] for e in errors[:3]))
    errors = list(top_level.iter_errors(instance))
    report(not errors, "output %s validates against the schema" % label, "; ".join(e.message[:200] for e in errors[:2]))
    report(list(instance)[:1] == ["command"], "output %s starts with \"command\"" % label, list(instance)[:1])
    seen_keys.setdefault(definition, set()).update(keys_in(instance))

for definition in outputs:
    if definition in skipped:
        continue
    if definition not in seen_keys:
        report(False, "$defs/%s: some output exercises it" % definition, "no command of the test printed one")
        continue
    unseen = sorted(members(defs[definition]) - seen_keys[definition])
    report(not unseen, "$defs/%s: every member it lists was printed" % definition, "never printed: " + ", ".join(unseen))

named = set(re.findall(r"`([a-z_0-9]+)`", guide))
for definition in outputs:
    missing = sorted(members(defs[definition]) - named)
    report(not missing, "docs/JSON.md names every member of $defs/%s" % definition, "not named: " + ", ".join(missing))
'

redis_definitions=()
[[ -n $redis_skipped ]] && redis_definitions=(redis_add redis_info redis_check)
while IFS=$'\t' read -r verdict name details; do
    case $verdict in
        ok) pass "$name" ;;
        "not ok") fail "$name" "$details" ;;
        *) fail "the validation" "$verdict $name $details" ;;
    esac
done < <("$PYTHON" -c "$VALIDATE_PY" "$SCHEMA" "$GUIDE" "$J" "${redis_definitions[@]}" 2>&1 ||
    printf 'not ok\tthe validation ran\tpython exited %s\n' $?)

if [[ -n $redis_skipped && $failed -eq 0 ]]; then
    echo "$passed passed, $failed failed; the redis commands skipped: $redis_skipped"
    exit 77
fi
finish
