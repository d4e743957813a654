#!/usr/bin/env bash
# The simulator reads a ChampSim trace in-process from its .tcz and computes
# exactly what it computes from the raw trace, with and without skipping
# warm-up instructions; a damaged .tcz is an error, not statistics.
# Usage: simulator_test.sh SIMULATOR COMP_CHAMPSIM RAW_TRACE
set -u
simulator=$1 comp=$2 raw=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"$comp" -q -c "$raw" >"$work/trace.tcz" || fail "compressing the trace"
for options in "" "--skip=100" "--skip=250 --instructions=200" "--skip=100000"; do
    # shellcheck disable=SC2086  # options are words
    "$simulator" $options "$work/trace.tcz" >"$work/tcz.out" 2>&1 || fail "simulator $options: $(cat "$work/tcz.out")"
    # shellcheck disable=SC2086
    "$simulator" --raw $options "$raw" >"$work/raw.out" 2>&1 || fail "simulator --raw $options"
    cmp -s "$work/tcz.out" "$work/raw.out" || fail "$options: the .tcz gives $(cat "$work/tcz.out"), the raw trace $(cat "$work/raw.out")"
done
"$simulator" "$work/trace.tcz" | grep -q "^instructions 600$" || fail "the trace's 600 instructions were not all simulated"

head -c 1000 "$work/trace.tcz" >"$work/cut.tcz"
"$simulator" "$work/cut.tcz" >"$work/out" 2>&1 && fail "a truncated .tcz was simulated"
grep -q "^simulator: error: truncated input" "$work/out" || fail "truncated: $(cat "$work/out")"

[ "$failures" -eq 0 ] && echo "the simulator reads the .tcz in-process exactly as the raw trace"
exit "$failures"
