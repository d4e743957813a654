#!/usr/bin/env bash
# Predictor tables belong to the codec and are allocated when work starts:
# under a memory limit smaller than its tables, a compressor still answers
# -h and --spec, and compressing or decompressing fails with a one-line
# error naming the bytes it could not get, exit status 1, and no output.
# Built without sanitizers, whose shadow memory a `ulimit -v` would starve.
# Usage: table_memory_test.sh TCGEN
set -u
tcgen=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
link_flags=$(dirname "$0")/../tools/link-flags   # the back-ends' -l flags, from the generated file

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# 2^28 lines of 8 bytes: 2 GiB of tables.
printf 'TCgen Trace Specification;\n64-Bit Field 1 = {L2 = 268435456: FCM1[1]};\nPC = Field 1;\n' >"$work/big.tcg"
"$tcgen" -o "$work/big.cpp" "$work/big.tcg" || { echo "FAIL: tcgen"; exit 1; }
# shellcheck disable=SC2046  # the flags are words
c++ -std=c++17 -O1 -o "$work/big" "$work/big.cpp" -pthread $("$link_flags" "$work/big.cpp") || { echo "FAIL: compiling"; exit 1; }
field_bytes=$(sed -n 's/^    static constexpr std::uint64_t table_bytes = \([0-9]*\);$/\1/p' "$work/big.cpp" | head -1)
# The field's tables and the whole-record runs' table: 2^20 entries of 4 bytes
# for a block of 2 M records (runtime/record_runs.hpp).
bytes=$((field_bytes + 4194304))

limited() {
    (ulimit -v 500000 && "$@")
}

limited "$work/big" -h >"$work/out" 2>"$work/err" || fail "-h under a 500 MB limit: $(cat "$work/err")"
grep -q '^usage: ' "$work/out" || fail "-h printed no usage"
limited "$work/big" --spec >"$work/out" 2>"$work/err" || fail "--spec under a 500 MB limit: $(cat "$work/err")"

head -c 800 /dev/urandom >"$work/input"
# Without the limit the program works (the tables are zero pages until touched).
"$work/big" <"$work/input" >"$work/input.tcz" 2>/dev/null && "$work/big" -d <"$work/input.tcz" | cmp -s - "$work/input" \
    || fail "round trip without a limit"
# With it, the tables are the first thing that fails (a decompressor first
# checks that the file is of its spec).
for mode in compress decompress; do
    option=""
    source="$work/input"
    [ "$mode" = decompress ] && option=-d && source="$work/input.tcz"
    limited "$work/big" $option <"$source" >"$work/out" 2>"$work/err"
    status=$?
    [ "$status" -eq 1 ] || fail "$mode under a 500 MB limit exited $status, not 1"
    [ "$(cat "$work/err")" = "big: error: cannot allocate $bytes bytes of predictor tables" ] \
        || fail "$mode under a 500 MB limit said: $(cat "$work/err")"
    [ ! -s "$work/out" ] || fail "$mode under a 500 MB limit wrote output"
done


if [ "$failures" -ne 0 ]; then
    exit 1
fi
echo "a 2 GiB-table compressor answers -h under 500 MB and reports the tables it cannot allocate"
