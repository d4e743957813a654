#!/usr/bin/env bash
# A .tcz made by one spec's compressor, fed to another spec's decompressor,
# is refused with a message that names the mismatch and shows the spec that
# made the file.
# Usage: wrong_spec_test.sh COMP_A COMP_B SYNTH_TRACE
set -u
comp_a=$1 comp_b=$2 synth=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$synth" --fields=32,64 --header=4 --records=1000 >"$work/trace"
"$comp_a" <"$work/trace" >"$work/a.tcz" 2>/dev/null || { echo "FAIL: cannot compress"; exit 1; }
"$comp_b" -d <"$work/a.tcz" >"$work/out" 2>"$work/err"
status=$?
failures=0
[ "$status" -eq 1 ] || { echo "FAIL: exit status $status, want 1"; failures=1; }
head -1 "$work/err" | grep -q "^$(basename "$comp_b"): error: .*different spec" \
    || { echo "FAIL: first line does not name the mismatch: $(head -1 "$work/err")"; failures=1; }
# The spec that made the file, as comp_a itself reports it.
"$comp_a" --spec >"$work/spec_a"
grep -qF -- "$(sed -n 3p "$work/spec_a")" "$work/err" \
    || { echo "FAIL: the message does not show the spec that made the file"; failures=1; }
[ ! -s "$work/out" ] || { echo "FAIL: wrote output"; failures=1; }
[ "$failures" -eq 0 ] && echo "wrong decompressor refused:" && cat "$work/err"
exit "$failures"
