#!/usr/bin/env bash
# A ChampSim-style reader gets from trace.champsimtrace.tcz exactly the
# records of the raw trace, each way docs/champsim.md describes: `comp -dc`
# through popen() chosen by the name's suffix (ChampSim up to 2023), a pipe
# from `comp -dc` read as a file (ChampSim since 2023, no change to it), and
# in-process through TczIstream over the generated Reader. The trace spans
# many blocks; a damaged .tcz is an error each way, never a silently short
# trace.
# Usage: champsim_read_test.sh CHAMPSIM_READ COMP_CHAMPSIM RAW_TRACE
set -u
reader=$1 comp=$2 raw=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 40 copies of the 600-record trace in 64 KiB blocks: 24000 records, 24000
# being no multiple of a read's 127 records, in 24 blocks.
for _ in $(seq 40); do cat "$raw"; done >"$work/trace.champsimtrace"
trace=$work/trace.champsimtrace
"$comp" -q -k --block-size=64K "$trace" || fail "compressing the trace"
tcz=$trace.tcz
blocks=$("$comp" -l "$tcz" | sed -n 's/.* in \([0-9]*\) blocks,.*/\1/p')
[ "$blocks" = 24 ] || fail "the .tcz has '$blocks' blocks, not 24"


"$reader" --popen --tcz-command="$comp" "$tcz" >"$work/popen.out" || fail "reading through popen"
cmp "$work/popen.out" "$trace" || fail "popen('comp -dc') gave other records than the trace"

"$reader" --ifstream <("$comp" -dc "$tcz") >"$work/pipe.out" || fail "reading the pipe from comp -dc"
cmp "$work/pipe.out" "$trace" || fail "a pipe from comp -dc gave other records than the trace"

"$reader" --tcz "$tcz" >"$work/tcz.out" || fail "reading through TczIstream"
cmp "$work/tcz.out" "$trace" || fail "TczIstream gave other records than the trace"

# Assigned anew at the end, as ChampSim repeats a trace, it reads it again.
"$reader" --tcz-repeat "$tcz" >"$work/repeat.out" || fail "reading through TczIstream twice"
cat "$trace" "$trace" | cmp - "$work/repeat.out" || fail "TczIstream assigned anew gave other records than the trace twice"

# A trace ending in a partial record: TczIstream gives its bytes too.
{ cat "$raw"; head -c 10 "$raw"; } >"$work/partial.champsimtrace"
"$comp" -q -k "$work/partial.champsimtrace" 2>/dev/null || fail "compressing the partial trace"
"$reader" --tcz-bytes "$work/partial.champsimtrace.tcz" >"$work/bytes.out" || fail "reading the partial trace's bytes"
cmp "$work/bytes.out" "$work/partial.champsimtrace" || fail "TczIstream gave other bytes than a trace with a partial record"

# The suffix still selects xz for an .xz trace, as before the .tcz case.
if command -v xz >/dev/null; then
    xz -k -c "$trace" >"$work/trace.champsimtrace.xz"
    "$reader" --popen --tcz-command="$comp" "$work/trace.champsimtrace.xz" >"$work/xz.out" || fail "reading the .xz"
    cmp "$work/xz.out" "$trace" || fail "popen('xz -dc') gave other records than the trace"
fi

# A truncated .tcz: comp's one-line error and a failing status through the
# pipe, an exception in-process.
head -c $(($(wc -c <"$tcz") * 2 / 3)) "$tcz" >"$work/cut.tcz"
"$reader" --popen --tcz-command="$comp" "$work/cut.tcz" >"$work/out" 2>"$work/err" && fail "a truncated .tcz read through popen"
grep -q "error: truncated input" "$work/err" || fail "popen, truncated: $(cat "$work/err")"
grep -q "^champsim_read: .*cut.tcz: error: the decompressor exited with status 1$" "$work/err" ||
    fail "popen, truncated: no failing status: $(cat "$work/err")"
"$reader" --tcz "$work/cut.tcz" >"$work/out" 2>"$work/err" && fail "a truncated .tcz read through TczIstream"
grep -q "^champsim_read: .*cut.tcz: error: truncated input" "$work/err" || fail "TczIstream, truncated: $(cat "$work/err")"

[ "$failures" -eq 0 ] && echo "a ChampSim-style reader reads the records of a $blocks-block .tcz exactly, through popen, a pipe and in-process"
exit "$failures"
