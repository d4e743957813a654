#!/usr/bin/env bash
# tracer_test.sh TOOL_DIR: smoke test of the tcgen-tracer valgrind tool.
# Runs `sort` on 10 fixed lines under the tool with every kind requested and
# checks the files' structure: header bytes, sizes a whole number of records,
# non-empty, caps obeyed, ChampSim ips nonzero, branches agreeing with the
# ChampSim records (branch_check.py); then runs it again and checks the
# traces are the same bytes (determinism), and that --skip skips the same
# start-up in every kind, the cache model warming meanwhile.
# The WET files (--wet) of the same runs are checked by wet_check.py
# (blocks, flow, block timestamps, edges against an unbounded replay of the
# stores, values along exact edges, load values against the LDV1 trace), the
# flow against the branch trace, then cut by bench/wet-split.py,
# whose output wet_check.py compares with the streams; a truncated input must
# give wet-split's one-line error.
set -euo pipefail

tool_dir=${1:?usage: tracer_test.sh TOOL_DIR (build/tracer/lib)}
[[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || { echo "no tcgen-tracer-amd64-linux in $tool_dir" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
tool_dir=$(cd "$tool_dir" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracer_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

printf '%s\n' pear apple fig banana cherry date kiwi lemon mango grape > "$tmp/in"

# Same isolation as bench/corpus.sh: no ASLR (the vDSO address is a loaded
# value) and a pid namespace (getpid); without them only the address traces
# are compared between runs.
wrap=(); isolated=1
if setarch "$(uname -m)" -R true 2>/dev/null; then wrap=(setarch "$(uname -m)" -R); else isolated=0; fi
if unshare --pid --fork --kill-child true 2>/dev/null; then
    wrap+=(unshare --pid --fork --kill-child)
elif unshare --user --map-root-user --pid --fork --kill-child true 2>/dev/null; then
    wrap+=(unshare --user --map-root-user --pid --fork --kill-child)
else
    isolated=0
fi

run() {  # suffix, extra options...
    local s=$1; shift
    ( exec 9<"$tool_dir"
      exec "${wrap[@]}" env -i -C / PATH=/usr/bin:/bin LC_ALL=C VALGRIND_LIB=/proc/self/fd/9 \
        valgrind --tool=tcgen-tracer --stores="$tmp/s$s" --misses="$tmp/m$s" \
        --loads="$tmp/l$s" --champsim="$tmp/c$s" --branches="$tmp/b$s" --wet="$tmp/w$s" "$@" /usr/bin/sort ) \
        < "$tmp/in" > "$tmp/out$s" 2> "$tmp/log$s" || { cat "$tmp/log$s" >&2; fail "valgrind run $s failed"; }
}

run 1
cmp -s "$tmp/out1" <(LC_ALL=C sort "$tmp/in") || fail "sort output under the tool is wrong"

check12() {  # file header
    local f=$1 h=$2 n
    [[ "$(head -c 4 "$f")" == "$h" ]] || fail "$f: header is not $h"
    n=$(stat -c %s "$f")
    (( n > 4 )) || fail "$f: no records"
    (( (n - 4) % 12 == 0 )) || fail "$f: size $n is not 4 + 12k"
    echo "ok: $h $(( (n - 4) / 12 )) records"
}
check12 "$tmp/s1" STA1
check12 "$tmp/m1" CMA1
check12 "$tmp/l1" LDV1
n=$(stat -c %s "$tmp/c1")
(( n > 0 && n % 64 == 0 )) || fail "champsim: size $n is not a positive multiple of 64"
# every ip (first 8 bytes of each record) nonzero; is_branch/taken are 0/1
od -An -v -tu8 -w64 "$tmp/c1" | awk '{ if ($1 == 0) bad++ } END { exit bad ? 1 : 0 }' \
    || fail "champsim: a record has ip 0"
od -An -v -tu1 -w64 -j8 -N$((n - 8)) "$tmp/c1" | awk 'NR % 1 == 0 { if ($1 > 1 || $2 > 1 || ($2 == 1 && $1 == 0)) bad++ }
    END { exit bad ? 1 : 0 }' || fail "champsim: bad is_branch/branch_taken byte"
branches=$(od -An -v -tu1 -w64 -j8 "$tmp/c1" | awk '$1 == 1 { b++ } END { print b + 0 }')
(( branches > 0 )) || fail "champsim: no branches"
echo "ok: champsim $(( n / 64 )) records, $branches branches"
[[ "$(head -c 4 "$tmp/b1")" == BRA1 ]] || fail "branches: header is not BRA1"
n=$(stat -c %s "$tmp/b1")
(( n > 4 && (n - 4) % 17 == 0 )) || fail "branches: size $n is not 4 + 17k, k > 0"

# WET streams: structure and invariants, then wet-split.
wet_files="blocks flow nodes events edges"
[[ "$(for f in $wet_files; do head -c 4 "$tmp/w1.$f"; done)" == WTB1WTF1WTN2WTE2WTD2 ]] \
    || fail "WET files: wrong magic"
grep -q "tcgen-tracer: wet: [1-9][0-9]* blocks executed, [1-9][0-9]* static blocks" "$tmp/log1" \
    || fail "WET report: no block counts"
[[ -x $python ]] || { echo "no $python: WET invariants not checked" >&2; python=; }
if [[ -n $python ]]; then
    "$python" "$here/wet_check.py" "$tmp/w1" --loads="$tmp/l1" || fail "WET invariants"
    # The flow is the control flow: every taken branch of the branch trace
    # is a move to another block at its target, in the same order; the only
    # other moves that do not fall through are the iterations of rep-prefixed
    # instructions (a jump back into the block just run), which the branch
    # trace does not hold (they are not branches). Block ends: a call
    # never falls through, and a return goes back to the fall-through of a
    # call still open (sort has no longjmp).
    "$python" - "$tmp/w1" "$tmp/b1" <<'EOF' || fail "WET flow and branch trace disagree"
import struct, sys
def recs(path, fmt):
    data = open(path, "rb").read()[4:]
    return [struct.unpack_from(fmt, data, i) for i in range(0, len(data), struct.calcsize(fmt))]
blocks = recs(sys.argv[1] + ".blocks", "<IHBBIIQ")
flow = [b for (b,) in recs(sys.argv[1] + ".flow", "<I")]
taken = [target for _, target, t in recs(sys.argv[2], "<QQB") if t]
j = moves = 0
calls = []
for t in range(1, len(flow)):
    prev, cur = blocks[flow[t - 1]], blocks[flow[t]]
    pc, start, size = cur[6], prev[6], prev[4]
    if prev[2] == ord("C"):
        calls.append(start + size)
    elif prev[2] == ord("R"):
        if pc not in calls:
            sys.exit(f"flow: the return at t {t} goes to {pc:#x}, no open call returns there")
        # the callee's frame, and the frames it left without returning
        del calls[len(calls) - 1 - calls[::-1].index(pc):]
    if pc == start + size:
        if prev[2] == ord("C"):
            sys.exit(f"flow: the call block at t {t} falls through")
        continue
    moves += 1
    if j < len(taken) and taken[j] == pc:
        j += 1
    elif not start <= pc < start + size:
        sys.exit(f"flow: block at t {t + 1} starts at {pc:#x}, next taken branch goes to "
                 f"{taken[j] if j < len(taken) else None}")
if j != len(taken):
    sys.exit(f"flow: {j} of {len(taken)} taken branches seen, {moves - j} other moves")
print(f"ok: WET flow, {len(flow)} blocks, {j} taken branches, {moves - j} rep iterations")
EOF
    "$python" "$here/../../bench/wet-split.py" --nodes=5 --edges=4 --out="$tmp/split" "$tmp/w1" 2>/dev/null \
        || fail "wet-split failed"
    "$python" "$here/wet_check.py" "$tmp/w1" --split="$tmp/split" --nodes=5 --edges=4 >/dev/null \
        || fail "wet-split output"
    # a second split into the same directory replaces the first one's files
    "$python" "$here/../../bench/wet-split.py" --nodes=2 --edges=1 --out="$tmp/split" "$tmp/w1" 2>/dev/null \
        || fail "wet-split failed"
    "$python" "$here/wet_check.py" "$tmp/w1" --split="$tmp/split" --nodes=2 --edges=1 >/dev/null \
        || fail "wet-split output (second split)"
    [[ $(ls "$tmp/split" | wc -l) == 6 ]] || fail "wet-split left stale files: $(ls "$tmp/split")"
    echo "ok: wet-split"
    # truncated and foreign input: a one-line error, exit status 1
    for f in blocks flow nodes edges; do cp "$tmp/w1.$f" "$tmp/bad.$f"; done
    head -c -5 "$tmp/w1.events" > "$tmp/bad.events"
    rc=0; "$python" "$here/../../bench/wet-split.py" --out="$tmp/badsplit" "$tmp/bad" 2> "$tmp/err" || rc=$?
    [[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] && grep -q "bad.events: truncated" "$tmp/err" \
        || fail "wet-split on a truncated file: exit status $rc, $(cat "$tmp/err")"
    cp "$tmp/s1" "$tmp/bad.nodes"
    rc=0; "$python" "$here/../../bench/wet-split.py" --out="$tmp/badsplit" "$tmp/bad" 2> "$tmp/err" || rc=$?
    [[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] && grep -q "not a WET nodes file" "$tmp/err" \
        || fail "wet-split on a foreign file: exit status $rc, $(cat "$tmp/err")"
    [[ ! -e "$tmp/badsplit" ]] || fail "wet-split wrote output for bad input"
    echo "ok: wet-split errors"
    "$python" "$here/branch_check.py" "$tmp/b1" "$tmp/c1" || fail "branch trace"
fi

# determinism and caps
run 2
cmp -s "$tmp/s1" "$tmp/s2" || fail "store trace differs between two identical runs"
if [[ $isolated == 1 ]]; then
    cmp -s "$tmp/l1" "$tmp/l2" || fail "load-value trace differs between two identical runs"
else
    echo "note: no setarch -R / pid namespace here; load values not compared"
fi
cmp -s "$tmp/c1" "$tmp/c2" || fail "champsim trace differs between two identical runs"
cmp -s "$tmp/b1" "$tmp/b2" || fail "branch trace differs between two identical runs"
for f in blocks flow nodes edges $([[ $isolated == 1 ]] && echo events); do
    cmp -s "$tmp/w1.$f" "$tmp/w2.$f" || fail "WET $f differ between two identical runs"
done
run 3 --stores-max=100 --misses-max=50 --loads-max=70 --champsim-max=30 --wet-max=500 --branches-max=40
[[ $(stat -c %s "$tmp/s3") == $((4 + 12 * 100)) ]] || fail "--stores-max not obeyed"
[[ $(stat -c %s "$tmp/m3") == $((4 + 12 * 50)) ]] || fail "--misses-max not obeyed"
[[ $(stat -c %s "$tmp/l3") == $((4 + 12 * 70)) ]] || fail "--loads-max not obeyed"
[[ $(stat -c %s "$tmp/c3") == $((64 * 30)) ]] || fail "--champsim-max not obeyed"
[[ $(stat -c %s "$tmp/b3") == $((4 + 17 * 40)) ]] || fail "--branches-max not obeyed"
cmp -s "$tmp/b3" <(head -c $((4 + 17 * 40)) "$tmp/b1") || fail "capped branch trace is not a prefix of the full one"
cmp -s "$tmp/s3" <(head -c $((4 + 12 * 100)) "$tmp/s1") || fail "capped store trace is not a prefix of the full one"
[[ $(stat -c %s "$tmp/w3.events") == $((4 + 24 * 500)) ]] || fail "--wet-max not obeyed"
for f in blocks flow nodes edges $([[ $isolated == 1 ]] && echo events); do
    cmp -s "$tmp/w3.$f" <(head -c "$(stat -c %s "$tmp/w3.$f")" "$tmp/w1.$f") \
        || fail "capped WET $f are not a prefix of the full ones"
done
# the cap stops all five files inside the block of the 500th event, which
# still counts in the flow
last_t=$(od -An -tu4 -j $((4 + 24 * 499 + 4)) -N4 "$tmp/w3.events" | tr -d ' ')
[[ $(stat -c %s "$tmp/w3.flow") == $((4 + 4 * last_t)) ]] \
    || fail "capped WET flow: $(stat -c %s "$tmp/w3.flow") bytes, last event at t $last_t"
[[ -z $python ]] || "$python" "$here/wet_check.py" "$tmp/w3" >/dev/null || fail "capped WET invariants"
echo "ok: determinism and caps"
# Skipping start-up: both instruction-level traces start after the same
# instruction, so they still agree, and the branches are a slice of run 1's.
run 4 --champsim-skip=100000 --branches-skip=100000
[[ -z $python ]] || "$python" "$here/branch_check.py" "$tmp/b4" "$tmp/c4" --part-of="$tmp/b1" \
    || fail "branch trace after --branches-skip"

# --skip: no kind writes a record before instruction 100001. The ChampSim and
# branch traces are those of the per-kind skips; stores and load values are
# the ends of run 1's, shorter; and so are the misses, which proves the cache
# model ran during the skip (a cold cache would give extra misses first).
suffix() {  # what file full: FILE must be a proper suffix of FULL, past the header
    local a b
    a=$(stat -c %s "$2"); b=$(stat -c %s "$3")
    (( a > 4 && a < b )) || fail "$1 with --skip: $a bytes, without: $b (expected fewer, but some)"
    cmp -s <(tail -c +5 "$2") <(tail -c $(( a - 4 )) "$3") || fail "$1 with --skip is not the end of the trace without"
}
# run() asks for --wet, which turns valgrind's chasing off (superblocks end
# at every branch); runs without --wet compared with them do the same with
# valgrind's --vex-guest-chase=no, since chasing changes the ChampSim and
# branch records (its "A && B" merging makes them count instructions that
# did not run).
skip_only() {  # suffix, options... (as run, output to a file too: sort looks at it)
    local s=$1; shift
    ( exec 9<"$tool_dir"
      exec "${wrap[@]}" env -i -C / PATH=/usr/bin:/bin LC_ALL=C VALGRIND_LIB=/proc/self/fd/9 \
        valgrind --tool=tcgen-tracer --vex-guest-chase=no "$@" /usr/bin/sort ) \
        < "$tmp/in" > "$tmp/out$s" 2> "$tmp/log$s" || { cat "$tmp/log$s" >&2; fail "valgrind run $s failed"; }
}
skip_only 5 --skip=100000 --stores="$tmp/s5" --misses="$tmp/m5" --loads="$tmp/l5" \
    --champsim="$tmp/c5" --branches="$tmp/b5"
cmp -s "$tmp/c5" "$tmp/c4" || fail "--skip: ChampSim trace differs from --champsim-skip's"
cmp -s "$tmp/b5" "$tmp/b4" || fail "--skip: branch trace differs from --branches-skip's"
suffix stores "$tmp/s5" "$tmp/s1"
suffix misses "$tmp/m5" "$tmp/m1"
[[ $isolated == 0 ]] || suffix "load values" "$tmp/l5" "$tmp/l1"
# The stores start at the instruction ChampSim starts at: the first store is
# the first destination address of a ChampSim record, with its pc.
[[ -z $python ]] || "$python" - "$tmp/s5" "$tmp/c5" <<'EOF' || fail "--skip: stores and ChampSim start at different instructions"
import struct, sys
store = struct.unpack_from("<IQ", open(sys.argv[1], "rb").read(), 4)
cs = open(sys.argv[2], "rb").read()
ip, dst = next((ip, dst) for ip, dst in (struct.unpack_from("<Q8xQ", cs, i) for i in range(0, len(cs), 64)) if dst)
sys.exit(0 if (ip & 0xFFFFFFFF, dst) == store else f"first store {store}, first ChampSim store {(ip, dst)}")
EOF
# Without an instruction-level kind the skip still counts instructions.
skip_only 6 --skip=100000 --stores="$tmp/s6" --misses="$tmp/m6"
cmp -s "$tmp/s6" "$tmp/s5" && cmp -s "$tmp/m6" "$tmp/m5" \
    || fail "--skip without ChampSim or branches skips a different number of instructions"
# A skip longer than the run: headers only, and a warning.
skip_only 7 --skip=1000000000000 --stores="$tmp/s7" --branches="$tmp/b7"
[[ $(cat "$tmp/s7")$(cat "$tmp/b7") == STA1BRA1 ]] || fail "--skip past the end still wrote records"
grep -q "within --skip=1000000000000: nothing was recorded" "$tmp/log7" || fail "--skip past the end: no warning"
if ( exec 9<"$tool_dir"; VALGRIND_LIB=/proc/self/fd/9 valgrind --tool=tcgen-tracer --skip=10 \
        --wet="$tmp/w8" /bin/true ) 2> "$tmp/log8"; then
    fail "--skip with --wet was accepted"
fi
grep -q "cannot be combined with --wet" "$tmp/log8" || fail "--skip with --wet: $(cat "$tmp/log8")"
echo "ok: --skip"
echo PASS
