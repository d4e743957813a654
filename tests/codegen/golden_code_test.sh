#!/usr/bin/env bash
# Golden generated code: for every entry of tests/golden/generated/goldens.txt
# the code tcgen writes, runtime elided, must be the checked-in file, and two
# tcgen processes must write byte-identical files. A failure shows in the
# diff how a change alters the generated code; if intended, run
# tests/update-goldens and review `git diff tests/golden`.
# Usage: golden_code_test.sh TCGEN SOURCE_DIR
set -u
tcgen=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checked=0

while read -r name spec options; do
    case "$name" in '' | '#'*) continue ;; esac
    checked=$((checked + 1))
    # shellcheck disable=SC2086  # options are words
    if ! "$tcgen" $options "$root/$spec" >"$work/first.cpp" 2>"$work/err"; then
        echo "FAIL [$name]: tcgen $options $spec: $(head -3 "$work/err")"
        failures=$((failures + 1))
        continue
    fi
    # shellcheck disable=SC2086
    "$tcgen" $options "$root/$spec" >"$work/second.cpp" 2>/dev/null
    if ! cmp -s "$work/first.cpp" "$work/second.cpp"; then
        echo "FAIL [$name]: two runs of tcgen wrote different code"
        failures=$((failures + 1))
    fi
    "$root/tests/tools/elide-runtime" "$work/first.cpp" >"$work/elided.cpp"
    if ! diff -u "$root/tests/golden/generated/$name.cpp" "$work/elided.cpp" >"$work/diff"; then
        echo "FAIL [$name]: generated code differs from tests/golden/generated/$name.cpp:"
        head -60 "$work/diff"
        failures=$((failures + 1))
    fi
done <"$root/tests/golden/generated/goldens.txt"

if [ "$failures" -ne 0 ]; then
    echo "$failures of $checked golden files differ"
    exit 1
fi
echo "$checked golden files match; tcgen is deterministic across processes"
