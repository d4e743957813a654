#!/usr/bin/env bash
# Names do not touch the encoding: the program of the named
# examples/champsim.tcg and that of the same spec without names (its
# `comp --spec`, which stores no names) write the same .tcz byte for byte and
# decompress each other's files; the named program's report and listing
# name the fields.
# Usage: named_fields_test.sh TCGEN NAMED_COMP TRACE
set -u
tcgen=$1 named=$2 input=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
link_flags=$(dirname "$0")/../tools/link-flags

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

"$named" --spec >"$work/unnamed.tcg" || { echo "FAIL: --spec"; exit 1; }
if grep -q 'ip' "$work/unnamed.tcg"; then
    fail "the stored spec has names"
fi
"$tcgen" -o "$work/unnamed.cpp" "$work/unnamed.tcg" || { echo "FAIL: tcgen of the unnamed spec"; exit 1; }
# shellcheck disable=SC2046  # the flags are words
c++ -std=c++17 -O1 -Wall -Wextra -Werror -o "$work/unnamed" "$work/unnamed.cpp" -pthread \
    $("$link_flags" "$work/unnamed.cpp") || { echo "FAIL: compiling the unnamed program"; exit 1; }

"$work/unnamed" <"$input" >"$work/unnamed.tcz" 2>/dev/null || fail "the unnamed program compressing"
"$named" <"$input" >"$work/named.tcz" 2>"$work/report" || fail "the named program compressing"
cmp "$work/unnamed.tcz" "$work/named.tcz" || fail "names changed the .tcz"
"$named" -d <"$work/unnamed.tcz" | cmp - "$input" || fail "the named program does not decompress the unnamed one's .tcz"
"$work/unnamed" -d <"$work/named.tcz" | cmp - "$input" || fail "the unnamed program does not decompress the named one's .tcz"

"$named" --report -c "$input" 2>"$work/report" >/dev/null || fail "--report"
for title in "Field 1 (ip, 64-bit, PC): " "Field 4 (destination_registers[0], 8-bit): " \
    "Field 15 (source_memory[3], 64-bit): "; do
    grep -qF "$title" "$work/report" || fail "the report has no line '$title'"
done
"$named" -l <"$work/unnamed.tcz" >"$work/list" || fail "-l"
for stream in "  ip_misses  " "  source_memory[0]_misses  " "  field_"; do
    case "$stream" in
        *field_*) ! grep -qF "$stream" "$work/list" || fail "the listing still has '$stream'" ;;
        *) grep -qF "$stream" "$work/list" || fail "the listing has no stream '$stream'" ;;
    esac
done

if [ "$failures" -ne 0 ]; then
    echo "$failures failures"
    exit 1
fi
echo "named and unnamed champsim programs write the same .tcz and read each other's"
