#!/usr/bin/env bash
# make demo: a weak-password screen built from the word lists Debian ships (wamerican-huge and
# cracklib-runtime), first through the library, then through the bloomkit command.
set -euo pipefail
build=${1:-build/release}
bloomkit="$build/src/cli/bloomkit"
lists=(/usr/share/dict/american-english-huge /usr/share/dict/cracklib-small)
candidates=(password letmein dragon sunshine "Tr0ub4dor&3" "correct horse battery staple" "xkcd-936-staple" "g7#Vq!p2Lm")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== 1. The library: bloomkit::bloom_filter against std::unordered_set (examples/password_screen.cpp)"
echo
"$build/examples/password_screen" --fpr 0.001 "${lists[@]}" -- "${candidates[@]}"

echo
echo "== 2. The command: plan, build, info, check"
cat "${lists[@]}" > "$work/weak.txt"
words=$(sort -u "$work/weak.txt" | wc -l)
echo
echo "\$ bloomkit plan -n $words -p 0.001"
"$bloomkit" plan -n "$words" -p 0.001
echo
echo "\$ bloomkit build -n $words -p 0.001 -o weak.bkf american-english-huge cracklib-small"
"$bloomkit" build -n "$words" -p 0.001 -o "$work/weak.bkf" "${lists[@]}"
echo
echo "\$ bloomkit info weak.bkf"
"$bloomkit" info "$work/weak.bkf"
echo
echo "\$ printf '%s\\n' candidates... | bloomkit check weak.bkf      # lines that may be weak"
set +e
printf '%s\n' "${candidates[@]}" | "$bloomkit" check "$work/weak.bkf"
echo "(exit $?)"
echo
echo "\$ printf '%s\\n' candidates... | bloomkit check --absent weak.bkf   # certainly not on the list"
printf '%s\n' "${candidates[@]}" | "$bloomkit" check --absent "$work/weak.bkf"
echo "(exit $?)"
set -e
echo
echo "\$ bloomkit check --count weak.bkf american-english-huge cracklib-small   # every listed word is found"
"$bloomkit" check --count "$work/weak.bkf" "${lists[@]}"
