#!/usr/bin/env bash
# The tcgen command line: exit statuses and one-line errors.
# Usage: cli_test.sh TCGEN SOURCE_DIR
set -u
tcgen=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# stderr_matches REGEX: an empty REGEX means stderr must be empty.
stderr_matches() {
    if [ -z "$1" ]; then
        [ ! -s "$work/err" ]
    else
        grep -Eq -- "$1" "$work/err"
    fi
}

# expect STATUS STDERR_REGEX -- ARGS...: runs tcgen and checks both.
expect() {
    local status=$1 pattern=$2
    shift 3
    "$tcgen" "$@" >"$work/out" 2>"$work/err"
    local actual=$?
    if [ "$actual" -ne "$status" ] || ! stderr_matches "$pattern"; then
        echo "FAIL: tcgen $* -> status $actual (want $status), stderr:"
        cat "$work/err"
        failures=$((failures + 1))
    fi
}

expect 0 '' -- --help
grep -q -- '--canonical' "$work/out" || { echo "FAIL: --help does not list --canonical"; failures=$((failures + 1)); }
expect 0 '' -- --version
grep -Eq '^tcgen [0-9]+\.[0-9]+\.[0-9]+$' "$work/out" || { echo "FAIL: --version printed: $(cat "$work/out")"; failures=$((failures + 1)); }
expect 1 '^tcgen: error: .*--frobnicate.*' -- --frobnicate "$source_dir/examples/vpc3.tcg"
[ "$(wc -l <"$work/err")" -eq 1 ] || { echo "FAIL: unknown option error is not one line"; failures=$((failures + 1)); }
expect 1 "^tcgen: error: cannot read '$work/missing.tcg': No such file or directory$" -- --canonical "$work/missing.tcg"
expect 1 "^tcgen: error: cannot read '$work': Is a directory$" -- --canonical "$work"
expect 1 '^tcgen: error: ' -- --canonical

printf 'TCgen Trace Specification;\n8-Bit Feild 1 = {: LV[1]};\nPC = Field 1;\n' >"$work/bad.tcg"
expect 1 "^$work/bad.tcg:2:7: error: unexpected 'Feild'; expected 'Header', 'Ids' or 'Field'$" -- --canonical "$work/bad.tcg"
[ ! -s "$work/out" ] || { echo "FAIL: a bad spec wrote to stdout"; failures=$((failures + 1)); }

# Standard input as "-", and the canonical text accepted back.
"$tcgen" --canonical - <"$source_dir/examples/vpc3.tcg" >"$work/canonical.tcg" 2>"$work/err" \
    || { echo "FAIL: --canonical - failed: $(cat "$work/err")"; failures=$((failures + 1)); }
"$tcgen" --canonical "$work/canonical.tcg" >"$work/canonical2.tcg" 2>"$work/err" \
    || { echo "FAIL: canonical text not accepted back"; failures=$((failures + 1)); }
cmp -s "$work/canonical.tcg" "$work/canonical2.tcg" || { echo "FAIL: canonical form is not a fixed point"; failures=$((failures + 1)); }

# Several specs at once, into a directory, one file each, named after the spec.
mkdir "$work/out_dir"
printf 'TCgen Trace Specification;\n8-Bit Feild 1 = {: LV[1]};\nPC = Field 1;\n' >"$work/bad2.tcg"
expect 0 '' -- --output-dir="$work/out_dir" "$source_dir/examples/vpc3.tcg" "$source_dir/examples/champsim.tcg"
for file in vpc3.cpp champsim.cpp; do
    "$tcgen" "$source_dir/examples/${file%.cpp}.tcg" | cmp -s - "$work/out_dir/$file" \
        || { echo "FAIL: --output-dir: $file is not what tcgen writes for its spec alone"; failures=$((failures + 1)); }
done
expect 0 '' -- --emit=header --output-dir="$work/out_dir" "$source_dir/examples/vpc3.tcg"
grep -q "^namespace vpc3 {" "$work/out_dir/vpc3.hpp" || { echo "FAIL: --emit=header --output-dir wrote no vpc3.hpp"; failures=$((failures + 1)); }
expect 1 "^$work/bad2.tcg:2:7: error: unexpected 'Feild'; expected 'Header', 'Ids' or 'Field'$" -- --canonical \
    --output-dir="$work/out_dir" "$work/bad2.tcg" "$source_dir/examples/any_file.tcg"
[ -s "$work/out_dir/any_file.tcg" ] || { echo "FAIL: a bad spec stopped the next one"; failures=$((failures + 1)); }
[ ! -e "$work/out_dir/bad2.tcg" ] || { echo "FAIL: a bad spec wrote output"; failures=$((failures + 1)); }
expect 1 '^tcgen: error: 2 specs need --output-dir=DIR to write their files into$' -- \
    "$source_dir/examples/vpc3.tcg" "$source_dir/examples/champsim.tcg"
expect 1 '^tcgen: error: -o and --output-dir both name the output; give one$' -- -o "$work/x.cpp" \
    --output-dir="$work/out_dir" "$source_dir/examples/vpc3.tcg"
cp "$source_dir/examples/vpc3.tcg" "$work/vpc3-x.tcg"
expect 1 "^tcgen: error: 'vpc3-x' cannot name the codec's C\+\+ namespace; give --namespace=NAME \(identifiers joined by '::'\)$" \
    -- --emit=header "$work/vpc3-x.tcg"

if [ "$failures" -ne 0 ]; then
    echo "$failures CLI check(s) failed"
    exit 1
fi
echo "all CLI checks passed"
