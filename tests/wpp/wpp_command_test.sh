#!/usr/bin/env bash
# The `wpp` command against naive answers computed here (python3) from the
# input itself:
# 1. Synthetic inputs (bare u32 and PREFIX.flow; empty, one symbol, long
#    repeats, random, loop-like): expand gives the input's bytes (cmp);
#    building twice gives the same file; stats names the length; every
#    hot-subpath table (all rows) equals brute-force counting; walks forward
#    and backward, from positions and for counts, equal the sequence.
# 2. A real run: a small C program traced by tcgen-tracer --wet, the same
#    checks on its PREFIX.flow (when TRACER_LIB_DIR is given).
# 3. Bad input: one line on stderr, exit status 1.
# Under the sanitizers (a sanitized wpp starts in a tenth of a second) the
# hot-subpath tables of three lengths, 1, 3 and 16, not six.
# Usage: wpp_command_test.sh WPP [TRACER_LIB_DIR]
set -euo pipefail
wpp=$(realpath "$1")
tool_dir=${2:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/wpp_command_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The naive answers, all at once for one input (one python start, not dozens):
# NAIVE FILE OUTDIR writes OUTDIR/length, OUTDIR/hot.L for each L of the
# checks below, and OUTDIR/walk.DIRECTION.FROM.COUNT for each walk ('-' for
# an option left out); FILE is bare u32 symbols or a flow.
cat > "$work/naive.py" <<'PY'
import os, struct, sys
from collections import Counter
path, outdir = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
if data[:4] == b'WTF1':
    data = data[4:]
s = list(struct.unpack('<%dI' % (len(data) // 4), data))
os.makedirs(outdir, exist_ok=True)
def write(name, text):
    with open(os.path.join(outdir, name), 'w') as f:
        f.write(text)
write('length', '%d\n' % len(s))
for length in (1, 2, 3, 4, 8, 16):
    counts = Counter(tuple(s[i:i + length]) for i in range(len(s) - length + 1))
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    write('hot.%d' % length, ''.join('%d %s\n' % (c, ' '.join(map(str, w))) for w, c in rows))
mid = str(len(s) // 3)
for direction, start, count in [('forward', '-', '-'), ('backward', '-', '-'), ('forward', mid, '-'),
                                ('backward', mid, '-'), ('forward', mid, '17'), ('backward', mid, '17'),
                                ('forward', str(len(s)), '-'), ('backward', '0', '-')]:
    if direction == 'forward':
        part = s[(0 if start == '-' else int(start)):]
    else:
        part = s[:(len(s) if start == '-' else int(start))][::-1]
    if count != '-':
        part = part[:int(count)]
    write('walk.%s.%s.%s' % (direction, start, count), ''.join('%d\n' % x for x in part))
PY

# Inputs: NAME and the python expression of its symbols.
cat > "$work/make.py" <<'PY'
import random, struct, sys
random.seed(int(sys.argv[3]))
kind, path = sys.argv[1], sys.argv[2]
def loops(n):
    s = []
    while len(s) < n:
        body = random.randrange(6)
        for _ in range(1 + random.randrange(30)):
            s += [10 * body + b + (1000 if random.randrange(40) == 0 else 0) for b in range(body + 1)]
    return s[:n]
seqs = {
    'empty': [], 'one': [7], 'two': [4294967295, 0], 'repeat': [3] * 5000,
    'random': [random.randrange(50) for _ in range(3000)],
    'wide': [random.randrange(2**32) for _ in range(300)],
    'loops': loops(8000),
}
s = seqs[kind]
flow = sys.argv[4] == 'flow'
open(path, 'wb').write((b'WTF1' if flow else b'') + struct.pack('<%dI' % len(s), *s))
PY

checks=0
lengths="1 2 3 4 8 16"
if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then lengths="1 3 16"; fi
# check_all INPUT [--raw]: every check of part 1 on one input file.
check_all() {
    local input=$1 raw=${2:-}
    local name
    name=$(basename "$input")
    "$wpp" build $raw "$input" "$work/$name.wpp" || fail "$name: build failed"
    "$wpp" build $raw "$input" "$work/$name.again.wpp" || fail "$name: second build failed"
    cmp -s "$work/$name.wpp" "$work/$name.again.wpp" || fail "$name: two builds differ"
    "$wpp" expand "$work/$name.wpp" > "$work/$name.expanded" || fail "$name: expand failed"
    cmp -s "$input" "$work/$name.expanded" || fail "$name: expand does not give the input's bytes"
    local naive=$work/$name.naive
    python3 "$work/naive.py" "$input" "$naive"
    local length
    length=$(cat "$naive/length")
    "$wpp" stats "$work/$name.wpp" > "$work/$name.stats"
    grep -qx "symbols $length" "$work/$name.stats" || fail "$name: stats: $(head -1 "$work/$name.stats"), want $length"
    local L
    for L in $lengths; do
        "$wpp" hot "$work/$name.wpp" "$L" --top=0 > "$work/hot.wpp"
        cmp -s "$work/hot.wpp" "$naive/hot.$L" || fail "$name: hot L=$L differs from brute force"
        "$wpp" hot "$work/$name.wpp" "$L" --top=5 > "$work/hot5.wpp"
        head -5 "$naive/hot.$L" | cmp -s - "$work/hot5.wpp" || fail "$name: hot L=$L --top=5 is not the first 5 rows"
        checks=$((checks + 2))
    done
    local mid=$(( length / 3 ))
    local walk
    for walk in "forward - -" "backward - -" "forward $mid -" "backward $mid -" "forward $mid 17" "backward $mid 17" \
                "forward $length -" "backward 0 -"; do
        set -- $walk
        local args=()
        [[ $1 == backward ]] && args+=(--backward)
        [[ $2 != - ]] && args+=(--from="$2")
        [[ $3 != - ]] && args+=(--count="$3")
        "$wpp" walk "$work/$name.wpp" "${args[@]}" > "$work/walk.wpp"
        cmp -s "$work/walk.wpp" "$naive/walk.$1.$2.$3" || fail "$name: walk $walk differs from the sequence"
        checks=$((checks + 1))
    done
    checks=$((checks + 4))
}

for kind in empty one two repeat random wide loops; do
    python3 "$work/make.py" "$kind" "$work/$kind.u32" 1 raw
    check_all "$work/$kind.u32" --raw
    python3 "$work/make.py" "$kind" "$work/$kind.flow" 1 flow
    check_all "$work/$kind.flow"
done
echo "ok: synthetic inputs: $checks checks"


# 2. A real run.
if [[ -n $tool_dir ]] && command -v valgrind > /dev/null; then
    traced=0
    "$(dirname "$0")/../tools/wet-traced-program" "$tool_dir" "$work" || traced=$?
    if [[ $traced == 0 ]]; then
        [[ -s $work/real.flow ]] || fail "tcgen-tracer wrote no real.flow"
        checks=0
        check_all "$work/real.flow"
        echo "ok: real run: $(cat "$work/real.flow.naive/length") executed blocks, $checks checks"
    elif [[ $traced != 3 ]]; then  # 3: no C compiler, the real run is skipped
        exit 1
    fi
else
    echo "no tracer or valgrind: real run skipped"
fi

# 3. Bad input: exactly one line on stderr, exit status 1.
# bad WHAT EXPECTED_TEXT ARGS...
bad() {
    local what=$1 expect=$2; shift 2
    local rc=0
    "$wpp" "$@" > "$work/bad.out" 2> "$work/bad.err" || rc=$?
    [[ $rc -eq 1 ]] || fail "$what: exit status $rc, want 1 ($(cat "$work/bad.err"))"
    [[ $(wc -l < "$work/bad.err") -eq 1 ]] || fail "$what: stderr is not one line: $(cat "$work/bad.err")"
    grep -qF -- "$expect" "$work/bad.err" || fail "$what: stderr '$(cat "$work/bad.err")' lacks '$expect'"
}
good=$work/loops.flow.wpp
size=$(stat -c %s "$good")
head -c $((size - 1)) "$good" > "$work/truncated.wpp"
bad "a truncated file" "wpp: $work/truncated.wpp: error: " expand "$work/truncated.wpp"
head -c 30 "$good" > "$work/short.wpp"
bad "a file shorter than its header" "truncated" stats "$work/short.wpp"
cp "$good" "$work/flipped.wpp"
printf '\x55' | dd of="$work/flipped.wpp" bs=1 seek=$((size / 2)) conv=notrunc status=none
bad "a flipped byte" "checksum mismatch" hot "$work/flipped.wpp" 4
cp "$good" "$work/old.wpp"
printf '\x01' | dd of="$work/old.wpp" bs=1 seek=8 conv=notrunc status=none
bad "a file of format 1" "wpp: $work/old.wpp: error: made by an older wpp (format 1, varint payload); rebuild it with \`wpp build\`" stats "$work/old.wpp"
printf 'NOTAWPP!%056d' 0 > "$work/magic.wpp"
bad "a wrong magic" "no TCGENWPP magic" walk "$work/magic.wpp"
bad "a missing file" "cannot open" stats "$work/missing.wpp"
bad "a missing input" "cannot open" build "$work/missing.flow" "$work/out.wpp"
printf 'WTF1\1\2\3' > "$work/odd.flow"
bad "a flow cut inside a symbol" "truncated" build "$work/odd.flow" "$work/out.wpp"
bad "a flow without its magic" "no WTF1 or BRA1 magic" build "$work/loops.u32" "$work/out.wpp"
# --raw on the files tcgen and its tracer write: named, never read as symbols.
bad "--raw on a flow" "--raw reads bare u32 symbols, but this is a PREFIX.flow of tcgen-tracer --wet (WTF1 magic)" \
    build --raw "$work/odd.flow" "$work/out.wpp"
printf 'BRA1%017d%017d' 0 0 > "$work/run.bra"
bad "--raw on a branch trace" "but this is a branch trace (BRA1 magic): give it without --raw" \
    build --raw "$work/run.bra" "$work/out.wpp"
[[ ! -e $work/out.wpp ]] || fail "a failed build left its output behind"
# --raw reads every byte as symbols, the first four too.
printf '\1\0\0\0\2\0\0\0\1\0\0\0' > "$work/three.u32"
"$wpp" build --raw "$work/three.u32" "$work/three.wpp" && "$wpp" expand "$work/three.wpp" | cmp -s - "$work/three.u32" \
    || fail "--raw: the first symbols are lost"
# Binary output to a terminal is refused unless -f (script gives expand a terminal when it is there).
if command -v script > /dev/null; then
    script -qec "$wpp expand $good" /dev/null > "$work/tty.out" 2>&1 || true
    grep -q "wpp: error: refusing to write binary data to a terminal (redirect standard output, or use -f)" \
        "$work/tty.out" || fail "expand to a terminal: $(head -c 300 "$work/tty.out")"
fi
"$wpp" --version | grep -qx "wpp [0-9.]*" || fail "wpp --version: $("$wpp" --version 2>&1)"
bad "a walk past the end" "past the end" walk "$good" --from=99999999
bad "L of 0" "L must be 1 or more" hot "$good" 0
bad "an unknown command" "unknown command" frobnicate "$good"
# A directory as a grammar: named with the reason, never the library's words.
mkdir -p "$work/a-directory.wpp"
bad "a directory as input" "wpp: $work/a-directory.wpp: error: cannot read: is a directory" stats "$work/a-directory.wpp"
bad "a directory to build from" "wpp: $work/a-directory.wpp: error: cannot read: is a directory" \
    build --raw "$work/a-directory.wpp" "$work/out.wpp"
# Numbers are unsigned decimals: -1 is refused, not read as 2^64 - 1.
bad "a negative L" "'-1' is not an unsigned decimal number" hot "$good" -1
bad "a negative --top" "'-3' is not an unsigned decimal number" hot "$good" 2 --top=-3
bad "a negative --from" "'-1' is not an unsigned decimal number" walk "$good" --from=-1
bad "a signed --count" "'+5' is not an unsigned decimal number" walk "$good" --count=+5
bad "a number past 2^64" "is more than 2^64 - 1" walk "$good" --count=18446744073709551616
# hot keeps the first and last L - 1 symbols of every rule: refused past
# 1024 bytes a file byte (at least 256 MiB) before anything is allocated.
python3 -c '
import random, struct, sys
r = random.Random(5); out = []
while len(out) < 300000:
    body = [r.randrange(5000) for _ in range(r.randrange(3, 40))]
    out += body * r.randrange(1, 4)
sys.stdout.buffer.write(b"".join(struct.pack("<I", x) for x in out))' > "$work/many.u32"
"$wpp" build --raw "$work/many.u32" "$work/many.wpp"
bad "an L past the rules' ends' limit" "wpp: $work/many.wpp: error: L = 7000 keeps the first and last 6999 symbols of each of" \
    hot "$work/many.wpp" 7000
echo "ok: bad input"

# --pcs: symbols printed as the pcs a run's PREFIX.blocks (WTB1) or a branch
# side table (BIT1) gives them, in walk and hot alike.
python3 - "$work/loops.flow" "$work/loops.blocks" "$work/loops.table" <<'PY'
import struct, sys
flow = open(sys.argv[1], "rb").read()[4:]
blocks = max(struct.unpack_from("<I", flow, i)[0] for i in range(0, len(flow), 4)) + 1
with open(sys.argv[2], "wb") as out:
    out.write(b"WTB1" + b"".join(struct.pack("<IHBBIIQ", b, 3, ord("J"), 0, 12, 0, 0x400000 + 16 * b)
                                 for b in range(blocks)))
with open(sys.argv[3], "wb") as out:
    out.write(b"BIT1" + b"".join(struct.pack("<QQB", 0x500000 + 4 * b, 0x600000, b % 2) for b in range(blocks)))
PY
"$wpp" walk "$good" --count=50 | awk '{ printf "0x%x\n", 4194304 + 16 * $1 }' > "$work/pcs.expected"
"$wpp" walk "$good" --count=50 --pcs="$work/loops.blocks" | cmp -s - "$work/pcs.expected" || fail "walk --pcs=blocks"
"$wpp" hot "$good" 3 --top=4 | awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) printf " 0x%x%s", 5242880 + 4 * $i,
    $i % 2 ? "+" : "-"; print "" }' > "$work/pcs.expected"
"$wpp" hot "$good" 3 --top=4 --pcs="$work/loops.table" | cmp -s - "$work/pcs.expected" || fail "hot --pcs=table"
head -c 28 "$work/loops.blocks" > "$work/few.blocks"
bad "--pcs without the symbol" "wpp: $work/few.blocks: error: has no entry for symbol" walk "$good" --pcs="$work/few.blocks"
bad "--pcs of another file" "not a PREFIX.blocks of tcgen-tracer --wet (WTB1) or a side table" \
    hot "$good" 2 --pcs="$work/loops.flow"
echo "ok: --pcs"

# A branch trace (BRA1): its distinct records numbered as outcome ids in
# order of first appearance (as tcgen-branch-ids split numbers them), the
# outcomes kept in the grammar: expand gives the trace's bytes, the grammar
# is the one of the ids (built here with --raw), walk and hot print each
# id's pc, + taken, - not.
outcomes=$(python3 - "$work/loops.flow" "$work/loops.bra" "$work/loops.ids" "$work/loops.names" <<'PY'
import struct, sys
flow = open(sys.argv[1], "rb").read()[4:]
blocks = [struct.unpack_from("<I", flow, i)[0] for i in range(0, len(flow), 4)]
records, ids, names, seen = [], [], [], {}
for b in blocks:  # a block's branch: taken when the next block is not the one after it
    record = struct.pack("<QQB", 0x500000 + 4 * (b % 7), 0x600000 + 16 * b, b % 3 == 0)
    if record not in seen:
        seen[record] = len(seen)
        names.append("0x%x%s" % (0x500000 + 4 * (b % 7), "+" if b % 3 == 0 else "-"))
    records.append(record)
    ids.append(seen[record])
open(sys.argv[2], "wb").write(b"BRA1" + b"".join(records))
open(sys.argv[3], "wb").write(struct.pack("<%dI" % len(ids), *ids))
open(sys.argv[4], "w").write("".join(names[i] + "\n" for i in ids))
print(len(seen))
PY
)
"$wpp" build "$work/loops.bra" "$work/bra.wpp"
"$wpp" expand "$work/bra.wpp" | cmp -s - "$work/loops.bra" || fail "branch trace: expand does not give its bytes"
"$wpp" build --raw "$work/loops.ids" "$work/ids.wpp"
diff <("$wpp" stats "$work/bra.wpp" | grep -v "^saved bytes\|^branch outcomes") \
    <("$wpp" stats "$work/ids.wpp" | grep -v "^saved bytes") > /dev/null || fail "branch trace: not the ids' grammar"
"$wpp" stats "$work/bra.wpp" | grep -qx "branch outcomes $outcomes" \
    || fail "branch trace: stats: $("$wpp" stats "$work/bra.wpp" | tail -1)"
"$wpp" walk "$work/bra.wpp" | cmp -s - "$work/loops.names" || fail "branch trace: walk does not name the outcomes"
"$wpp" hot "$work/ids.wpp" 3 --top=4 | awk '{ print $1 }' > "$work/hot.counts"
"$wpp" hot "$work/bra.wpp" 3 --top=4 | awk '{ print $1 }' | cmp -s - "$work/hot.counts" || fail "branch trace: hot counts"
"$wpp" hot "$work/bra.wpp" 3 --top=4 | grep -qv "^[0-9]* 0x[0-9a-f]*[+-] 0x[0-9a-f]*[+-] 0x[0-9a-f]*[+-]$" \
    && fail "branch trace: hot does not name the outcomes"
printf 'BRA1' > "$work/empty.bra"
"$wpp" build "$work/empty.bra" "$work/empty.wpp" && "$wpp" expand "$work/empty.wpp" | cmp -s - "$work/empty.bra" \
    || fail "an empty branch trace"
head -c 100 "$work/loops.bra" > "$work/cut.bra"
bad "a branch trace cut inside a record" "wpp: $work/cut.bra: error: truncated: ends 11 bytes into a 17-byte branch record" \
    build "$work/cut.bra" "$work/out.wpp"
[[ ! -e $work/out.wpp ]] || fail "a failed build left its output behind"
echo "ok: branch traces"

# --symbols: each pc's function+N (file:line) from a PREFIX.syms, the blocks
# of even id known to it (the others printed as bare pcs).
python3 - "$work/loops.blocks" "$work/loops.syms" <<'PY'
import struct, sys
blocks = (len(open(sys.argv[1], "rb").read()) - 4) // 24
with open(sys.argv[2], "w") as out:
    out.write("WTS1\n")
    for b in range(0, blocks, 2):
        out.write("0x%x\tloops\t0x%x\tloop_%d+%d\tloops.c\t%d\n" % (0x400000 + 16 * b, 0x1000 + 16 * b, b // 4, 4 * (b % 4), 10 + b))
PY
"$wpp" walk "$good" --count=50 | awk '{ printf "0x%x", 4194304 + 16 * $1;
    if ($1 % 2 == 0) printf " loop_%d%s (loops.c:%d)", int($1 / 4), ($1 % 4 ? "+" 4 * ($1 % 4) : ""), 10 + $1; print "" }' \
    > "$work/symbols.expected"
"$wpp" walk "$good" --count=50 --pcs="$work/loops.blocks" --symbols="$work/loops.syms" | cmp -s - "$work/symbols.expected" ||
    fail "walk --symbols: $(diff <("$wpp" walk "$good" --count=50 --pcs="$work/loops.blocks" --symbols="$work/loops.syms") "$work/symbols.expected" | head -4)"
"$wpp" hot "$good" 3 --top=2 --pcs="$work/loops.blocks" > "$work/hot.pcs"
"$wpp" hot "$good" 3 --top=2 --pcs="$work/loops.blocks" --symbols="$work/loops.syms" > "$work/hot.symbols"
python3 - "$work/hot.pcs" > "$work/hot.expected" <<'PY'
import sys
for line in open(sys.argv[1]):
    print(line, end="")
    for pc in line.split()[1:]:
        b = (int(pc, 16) - 0x400000) // 16
        known = " loop_%d%s (loops.c:%d)" % (b // 4, "+%d" % (4 * (b % 4)) if b % 4 else "", 10 + b) if b % 2 == 0 else ""
        print("    " + pc + known)
PY
cmp -s "$work/hot.symbols" "$work/hot.expected" || fail "hot --symbols: $(diff "$work/hot.symbols" "$work/hot.expected")"
bad "--symbols without --pcs" "--symbols requires --pcs" walk "$good" --symbols="$work/loops.syms"
bad "--symbols of another file" "wpp: $work/loops.blocks: error: not a PREFIX.syms of tcgen-tracer --wet (no WTS1 line)" \
    walk "$good" --pcs="$work/loops.blocks" --symbols="$work/loops.blocks"
echo "ok: --symbols"
