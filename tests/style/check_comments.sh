#!/usr/bin/env bash
# tests/style/check_comments.sh — comments say why, not when: the public headers keep to at most
# 0.30 comment lines per code line, and no comment in include/ or src/ tells history (timings,
# machines, "before"/"used to"); git log keeps that.
#
#   bash tests/style/check_comments.sh /path/to/source/tree
#
# A comment line is one whose first non-blank characters are // (or a line inside /* */); a code
# line is any other non-blank line. Exits 1 naming what is over.
set -u
root=${1:-.}
cd "$root" || exit 2

# comment_and_code FILE...: "comment code" line counts over the files.
comment_and_code() {
    awk '
        /^[ \t]*$/ { next }
        in_block { comment++; if ($0 ~ /\*\//) in_block = 0; next }
        /^[ \t]*\/\// { comment++; next }
        /^[ \t]*\/\*/ { comment++; if ($0 !~ /\*\//) in_block = 1; next }
        { code++ }
        END { print comment + 0, code + 0 }' "$@"
}

status=0
read -r comment code < <(comment_and_code $(find include -name '*.hpp' | sort))
ratio=$(awk -v c="$comment" -v k="$code" 'BEGIN { printf "%.3f", c / k }')
if awk -v r="$ratio" 'BEGIN { exit !(r > 0.30) }'; then
    echo "include/: $comment comment lines per $code code lines = $ratio, above 0.30"
    status=1
else
    echo "include/: $comment comment lines per $code code lines = $ratio"
fi

# History in comments: measured timings, machine names, what the code was before.
history='([0-9] ?(ns|µs)\b|[0-9]+(\.[0-9]+)?[x×] (faster|slower)|[0-9]+(–[0-9]+)?% (faster|slower)|measured (~|about )?[0-9.]*%? ?(faster|slower)|\b(Xeon|Zen ?[0-9]|EPYC|Ryzen|Skylake|Ice ?Lake|Sapphire Rapids|Graviton)\b|\b(used to|previously|formerly|we measured)\b)'
found=$(grep -rnE --include='*.hpp' --include='*.cpp' --include='*.h' "^\s*(//|\*).*$history" include src || true)
if [[ -n $found ]]; then
    echo "history in comments (git log keeps it):"
    echo "$found"
    status=1
fi
exit $status
