#!/usr/bin/env bash
# Pins the encoding: a generated compressor must turn a small real trace into
# exactly the checked-in .tcz, and must turn that .tcz back into the trace.
# A change to the generator that alters a single byte of any .tcz fails here;
# if it is meant to (a format or encoding change), bump the format version and
# run tests/update-goldens.
# Usage: tcz_golden_test.sh COMP INPUT GOLDEN_TCZ
set -u
comp=$1 input=$2 golden=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

if ! "$comp" <"$input" >"$work/out.tcz" 2>"$work/err"; then
    echo "FAIL: compressing $(basename "$input"): $(head -3 "$work/err")"
    exit 1
fi
if ! cmp "$work/out.tcz" "$golden"; then
    echo "FAIL: the .tcz of $(basename "$input") differs from $golden"
    status=1
fi
if ! "$comp" -d <"$golden" >"$work/out" 2>"$work/err"; then
    echo "FAIL: decompressing $golden: $(head -3 "$work/err")"
    exit 1
fi
if ! cmp "$work/out" "$input"; then
    echo "FAIL: $golden does not decompress to $(basename "$input")"
    status=1
fi
[ "$status" -ne 0 ] || echo "$(basename "$golden"): byte-identical both ways"
exit "$status"
