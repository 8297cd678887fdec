#!/usr/bin/env bash
# tests/docs/check_api_reference.sh — the API reference builds without a single Doxygen warning
# (docs/api/Doxyfile): every public name of include/bloomkit/ has its `///` comment, and every
# comment reads. Builds into a temporary folder, removed afterwards; prints the warnings and
# exits 1 if there is one, exits 77 (skipped) where doxygen is not installed.
#
#   bash tests/docs/check_api_reference.sh [project-dir [doxygen]]
#   make docs                                     # the same reference, into build/docs/html
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
doxygen=${2:-$(command -v doxygen || true)}
if [[ -z $doxygen ]]; then
    echo "check_api_reference: doxygen is not installed (scripts/install-deps.sh test): not checked"
    exit 77
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# WARN_AS_ERROR=FAIL_ON_WARNINGS makes doxygen exit 1 after any warning; anything it prints at
# all (QUIET leaves only warnings and errors) fails the check too.
status=0
BLOOMKIT_DOCS_DIR="$out" "$doxygen" docs/api/Doxyfile >"$out/log" 2>&1 || status=$?
if [[ $status -ne 0 || -s $out/log ]]; then
    cat "$out/log"
    echo "check_api_reference: $(grep -cE '(warning|error):' "$out/log" || true) warning(s) from doxygen" \
         "$("$doxygen" --version) (exit status $status): every public name needs its /// comment"
    exit 1
fi
if [[ ! -s $out/html/index.html ]]; then
    echo "check_api_reference: doxygen wrote no $out/html/index.html"
    exit 1
fi
echo "check_api_reference: $("$doxygen" --version), no warnings, $(find "$out/html" -name '*.html' | wc -l) pages"
