#!/usr/bin/env bash
# The `wet` command against the naive reference (wet_reference.py): every
# query's stdout, and slice's last stderr line, must be the same bytes.
# 1. On the toy program of make_synthetic_wet.py (no valgrind needed), with
#    its register dataflow (PREFIX.regs) and without (the slices' stand-in).
# 2. On a real run: a small C program (loops, a recursion, loads reading what
#    stores wrote) compiled statically, traced by tcgen-tracer --wet; queries
#    at PCs picked from the trace inside its functions: a load with a def, a
#    store, an instruction in a loop, a late instance in the recursion. The
#    C++ control parents (control-dependence-driver, when given) must also
#    equal the reference's.
# 3. Bad input: a truncated raw file, a corrupt or truncated .wet, an unknown
#    subcommand, queries out of range: one line on stderr, exit status 1.
# 4. `wet build` groups the events through a temporary file beside its
#    output: on the real run its .wet is the same bytes as the one built
#    with the raw trace whole in memory (wet-build-in-memory, when given)
#    and as the one built on 3 threads and on one per core (-T) and under a
#    memory cap (--memory), and no
#    temporary is left beside the output after a build, a refused
#    input (refused before the temporary is made, and after), a SIGTERM
#    during a build or a write error on the temporary file.
# Usage: wet_command_test.sh WET TRACER_LIB_DIR [CONTROL_DEPENDENCE_DRIVER [IN_MEMORY_BUILD]]
set -euo pipefail
wet=$(realpath "$1")
tool_dir=$2
driver=${3:+$(realpath "$3")}
in_memory=${4:+$(realpath "$4")}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
reference=$here/wet_reference.py
work=$(mktemp -d "${TMPDIR:-/tmp}/wet_command_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

compared=0 windowed=0
# same WET N QUERY ARGS...: wet's output on WET equals the reference's answer
# to the N-th query of the batch that answer_all wrote into $work/ref.
same() {
    local file=$1 number=$2 query=$3; shift 3
    local rc_wet=0 ref=$work/ref/$number
    "$wet" "$query" "$file" "$@" > "$work/out.wet" 2> "$work/err.wet" || rc_wet=$?
    [[ $(cat "$ref.status") == 0 ]] || fail "reference: $query $*: $(cat "$ref.err")"
    [[ $rc_wet == 0 ]] || fail "wet $query $*: exit status $rc_wet: $(cat "$work/err.wet")"
    cmp -s "$work/out.wet" "$ref.out" \
        || fail "wet $query $* differs from the reference: $(diff "$work/out.wet" "$ref.out" | head -5)"
    if [[ $query == slice ]]; then
        [[ $(tail -n 1 "$work/err.wet") == $(tail -n 1 "$ref.err") ]] \
            || fail "wet slice $*: stderr '$(tail -n 1 "$work/err.wet")', reference '$(tail -n 1 "$ref.err")'"
    fi
    compared=$((compared + 1))
}

# answer_all PREFIX: the reference's answers to every query of
# $work/queries (one a line) in $work/ref, from one start of Python.
answer_all() {
    rm -rf "$work/ref" && mkdir "$work/ref"
    python3 "$reference" "$1" --batch "$work/queries" "$work/ref" || fail "reference: --batch on $1"
}

# one_line_error WHAT COMMAND...: exit status 1 and exactly one line on stderr.
one_line_error() {
    local what=$1 rc=0; shift
    "$@" > /dev/null 2> "$work/err" || rc=$?
    [[ $rc == 1 && $(wc -l < "$work/err") == 1 ]] || fail "$what: exit status $rc, stderr: $(head -c 500 "$work/err")"
    echo "ok: $what: $(cat "$work/err")"
}

# no_temporaries WHAT: nothing in $work but what was there before (the
# listing in $work/listing) and the files named after WHAT.
no_temporaries() {
    local what=$1 left; shift
    left=$(cd "$work" && ls -A | grep -vxF -f "$work/listing" | grep -vxF -e listing "${@/#/-e}" || true)
    [[ -z $left ]] || fail "$what: left in the output's directory: $left"
}
list_work() { (cd "$work" && ls -A) > "$work/listing"; }

build() {  # PREFIX OUT.wet
    list_work
    "$wet" build "$1" "$2" 2> "$work/build.err" || fail "wet build $1: $(cat "$work/build.err")"
    [[ $(wc -l < "$work/build.err") == 1 ]] || fail "wet build $1: expected one summary line: $(cat "$work/build.err")"
    no_temporaries "wet build $1" "$(basename "$2")" build.err
}

# windows WET QUERY PC [INSTANCE]: the query's --from/--count and --at forms
# against its whole output (the one `same` just checked against the
# reference, for the same query; not run again): values and
# addresses from a timestamp on, slices up to one, at most N lines; def and
# slice at the timestamp of the INSTANCE-th execution (their first field).
windows() {
    local file=$1 query=$2 pc=$3 instance=${4:-} lines t
    cp "$work/out.wet" "$work/whole"
    lines=$(wc -l < "$work/whole")
    (( lines > 0 )) || return 0
    read -r t _ < <(sed -n "$(( (lines + 1) / 2 ))p" "$work/whole")
    case $query in
    values|addresses)
        "$wet" "$query" "$file" "$pc" --from="$t" --count=3 > "$work/part" || fail "wet $query --from"
        awk -v t="$t" '$1 >= t && n++ < 3' "$work/whole" | cmp -s - "$work/part" \
            || fail "wet $query $pc --from=$t --count=3 is not the whole output's window"
        ;;
    slice)
        "$wet" slice "$file" "$pc" $instance --from="$t" --count=5 > "$work/part" 2> /dev/null \
            || fail "wet slice --from"
        awk -v t="$t" '$1 <= t && n++ < 5' "$work/whole" | cmp -s - "$work/part" \
            || fail "wet slice $pc $instance --from=$t --count=5 is not the whole slice's window"
        "$wet" slice "$file" "$pc" $instance --until="$t" > "$work/part" 2> /dev/null || fail "wet slice --until"
        awk -v t="$t" '$1 >= t' "$work/whole" | cmp -s - "$work/part" \
            || fail "wet slice $pc $instance --until=$t is not the whole slice's items from $t on"
        ;;
    esac
    if [[ $query == def || $query == slice ]]; then
        read -r t _ < "$work/whole"
        "$wet" "$query" "$file" "$pc" --at="$t" > "$work/part" 2> /dev/null || fail "wet $query $pc --at=$t"
        cmp -s "$work/whole" "$work/part" || fail "wet $query $pc --at=$t differs from INSTANCE $instance"
    fi
    windowed=$((windowed + 1))
}

# query_set PREFIX WET: cf in every direction, then the queries PICKS lists,
# one per line: "QUERY PC [INSTANCE]", with their windows.
query_set() {
    local prefix=$1 file=$2 executed middle number=0
    executed=$(( ($(stat -c %s "$prefix.flow") - 4) / 4 ))
    middle=$(( (executed + 1) / 2 ))
    {
        printf '%s\n' cf "cf --backward" "cf --count=7" "cf --from=$middle --count=25" \
            "cf --from=$middle --backward --count=25" "cf --from=$executed" "cf --from=1 --backward" \
            "cf --from=$middle --count=25 --ids" top "top --count=3"
        cat "$work/picks"
    } > "$work/queries"
    answer_all "$prefix"
    while read -r query args; do
        number=$((number + 1))
        # shellcheck disable=SC2086  # the query's arguments, split as words
        same "$file" "$number" "$query" $args
        case $query in
        values|addresses|def|slice) windows "$file" "$query" $args ;;
        esac
    done < "$work/queries"
}

# picks PREFIX [nm output]: PCs worth querying, written to $work/picks.
# Without symbols, all nodes count; with them, only those in the functions
# named, so that the queries exercise the program's own loops and recursion
# rather than the C library's start-up: the load of sum_odd with the most
# defs, fill's busiest store and busiest load, fib's last access.
picks() {
    python3 - "$1" "${2:-}" "$here" > "$work/picks" <<'PY'
import collections, struct, sys
prefix, symbols, here = sys.argv[1], sys.argv[2], sys.argv[3]
def records(suffix, fmt):
    data = open(prefix + suffix, "rb").read()[4:]
    return list(struct.iter_unpack(fmt, data))
nodes = records(".nodes", "<IIBBHIQ")
events = records(".events", "<IIQQ")
edges = records(".edges", "<IIII")
ranges = {}
if symbols:
    for line in open(symbols):
        f = line.split()
        if len(f) == 4 and f[2] in "tT" and f[3] in ("fill", "sum_odd", "fib"):
            ranges[f[3]] = (int(f[0], 16), int(f[0], 16) + int(f[1], 16))
def inside(pc, name=None):
    if not symbols:
        return True
    return any(lo <= pc < hi for n, (lo, hi) in ranges.items() if name in (None, n))
times = collections.defaultdict(set)
for n, t, _a, _v in events:
    times[nodes[n][6]].add(t)
kind = {}
for n in nodes:
    kind.setdefault(n[6], set()).add(chr(n[2]))
def best(candidates, key):
    candidates = sorted(candidates)
    if not candidates:
        sys.exit("no candidate pc in the trace: %s" % symbols)
    return max(candidates, key=key)
with_def = collections.Counter(nodes[u][6] for u, _d, _tu, _td in edges)
load = best((pc for pc in with_def if inside(pc, "sum_odd")), lambda pc: with_def[pc])
store = best((pc for pc in times if "S" in kind[pc] and inside(pc, "fill")), lambda pc: len(times[pc]))
loop = best((pc for pc in times if "L" in kind[pc] and inside(pc, "fill")), lambda pc: len(times[pc]))
late = best((pc for pc in times if inside(pc, "fib")), lambda pc: max(times[pc]))
for pc in (load, store, loop, late):
    count = len(times[pc])
    print("values 0x%x" % pc)
    print("addresses %d" % pc)
    for instance in sorted({1, (count + 1) // 2, count}) if "L" in kind[pc] else ():  # a store has no def
        print("def 0x%x %d" % (pc, instance))
    for instance in sorted({2 if count > 1 else 1, count}):
        print("slice 0x%x %d" % (pc, instance))
# Slices from instructions that access no memory (with PREFIX.regs): the
# busiest register write in sum_odd, a branch in fib.
sys.path.insert(0, here)
import wet_reference
trace = wet_reference.Trace(prefix)
runs = collections.Counter(trace.flow)
ran = collections.defaultdict(int)  # (op kind, pc) -> executions
for b, ops in enumerate(trace.ops):
    for op_kind, what, _s in ops:
        if op_kind in "RB" and what is not None and what not in kind:
            ran[(op_kind, what)] += runs[b]
for op_kind, name in (("R", "sum_odd"), ("B", "fib")):
    candidates = [pc for k, pc in ran if k == op_kind and ran[(k, pc)] and inside(pc, name)]
    if candidates:
        pc = best(candidates, lambda pc: ran[(op_kind, pc)])
        for instance in sorted({1, ran[(op_kind, pc)]}):
            print("slice 0x%x %d" % (pc, instance))
PY
}

bad_input() {  # PREFIX WET: errors, each one line and exit 1
    local prefix=$1 file=$2 size f
    for f in blocks flow nodes events edges regs; do cp "$prefix.$f" "$work/bad.$f"; done
    head -c -3 "$prefix.events" > "$work/bad.events"
    list_work
    one_line_error "a truncated raw file" "$wet" build "$work/bad" "$work/bad.wet"
    no_temporaries "a truncated raw file" err
    cp "$prefix.events" "$work/bad.events"
    # Refused after the events went to the temporary file: the first edge's
    # def given at t 0, where its store has no event (checked once each
    # node's times are known).
    python3 -c 'import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
data[4 + 12:4 + 16] = (0).to_bytes(4, "little")
open(path, "wb").write(data)' "$work/bad.edges"
    list_work
    one_line_error "an edge whose store has no event at its t" "$wet" build "$work/bad" "$work/bad.wet"
    grep -q "bad.edges: error: edge 0: the store node [0-9]* has no event at t 0$" "$work/err" ||
        fail "an edge without its store's event: $(cat "$work/err")"
    no_temporaries "an edge without its store's event" err
    cp "$prefix.edges" "$work/bad.edges"
    head -c 2 "$prefix.flow" > "$work/bad.flow"
    one_line_error "a flow file cut in its magic" "$wet" build "$work/bad" "$work/bad.wet"
    # An empty control flow (the magic alone): refused with the reason, no
    # .wet written that no command could load.
    printf 'WTF1' > "$work/bad.flow"
    one_line_error "an empty control flow" "$wet" build "$work/bad" "$work/bad.wet"
    grep -qF "bad.flow: error: no executed blocks" "$work/err" || fail "an empty flow: $(cat "$work/err")"
    [[ ! -e $work/bad.wet ]] || fail "an empty flow: bad.wet written"
    cp "$prefix.flow" "$work/bad.flow"
    # A directory where a file is read: named, with the reason, never the
    # library's words (once "OUT.wet: error: std::bad_alloc").
    rm "$work/bad.regs" && mkdir "$work/bad.regs"
    one_line_error "a directory as PREFIX.regs" "$wet" build "$work/bad" "$work/bad.wet"
    grep -qx "wet: $work/bad.regs: error: cannot read: is a directory" "$work/err" ||
        fail "a directory as PREFIX.regs: $(cat "$work/err")"
    rmdir "$work/bad.regs" && cp "$prefix.regs" "$work/bad.regs"
    mkdir -p "$work/dir.wet"
    one_line_error "a directory as the WET" "$wet" stats "$work/dir.wet"
    grep -qx "wet: $work/dir.wet: error: cannot read: is a directory" "$work/err" ||
        fail "a directory as the WET: $(cat "$work/err")"
    size=$(stat -c %s "$file")
    for at in 0 $((size / 3)) $((size / 2)) $((size - 1)); do
        cp "$file" "$work/corrupt.wet"
        python3 -c 'import sys
path, at = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
data[at] ^= 0xFF
open(path, "wb").write(data)' "$work/corrupt.wet" "$at"
        one_line_error "a .wet with byte $at of $size changed" "$wet" cf "$work/corrupt.wet"
    done
    head -c $((size / 2)) "$file" > "$work/corrupt.wet"
    one_line_error "a .wet cut in half" "$wet" values "$work/corrupt.wet" 0
    one_line_error "an unknown subcommand" "$wet" frobnicate "$file"
    grep -qx "wet: error: unknown command 'frobnicate' (build, run, stats, cf, top, values, addresses, def, slice, report; try wet --help)" \
        "$work/err" || fail "the unknown command is not named: $(cat "$work/err")"
    if [[ -w /dev/full ]]; then
        local rc=0
        "$wet" cf "$file" > /dev/full 2> "$work/err" || rc=$?
        [[ $rc == 1 ]] && grep -q "^wet: error: write error on standard output" "$work/err" ||
            fail "output to a full disk: exit status $rc, stderr: $(cat "$work/err")"
        echo "ok: output to a full disk: $(cat "$work/err")"
    fi
    one_line_error "cf from 0" "$wet" cf "$file" --from=0
    one_line_error "cf past the end" "$wet" cf "$file" --from=$(( ($(stat -c %s "$prefix.flow") - 4) / 4 + 1 ))
    one_line_error "a pc with no node" "$wet" values "$file" 0x1
    read -r _ pc _ < <(grep '^def' "$work/picks" | tail -n 1)
    one_line_error "instance 0" "$wet" def "$file" "$pc" 0
    one_line_error "an instance past the last" "$wet" slice "$file" "$pc" 4000000000
    one_line_error "neither INSTANCE nor --at" "$wet" def "$file" "$pc"
    grep -qx "wet: error: give INSTANCE or --at=T" "$work/err" || fail "neither INSTANCE nor --at: $(cat "$work/err")"
    one_line_error "INSTANCE and --at" "$wet" slice "$file" "$pc" 1 --at=1
    one_line_error "--at past the end" "$wet" slice "$file" "$pc" --at=4000000000
    one_line_error "--until 0" "$wet" slice "$file" "$pc" 1 --until=0
    grep -qx "wet: error: --until=0 is not a timestamp (1 or more)" "$work/err" || fail "--until 0: $(cat "$work/err")"
    one_line_error "a negative --count" "$wet" values "$file" "$pc" --count=-1
    read -r _ pc _ < <(grep '^values' "$work/picks" | sed -n 2p)  # fill's busiest store
    one_line_error "def of a store" "$wet" def "$file" "$pc" 1
    grep -qx "wet: $file: error: pc $pc is a store; a def is the store that a load read from: give a load's pc" \
        "$work/err" || fail "def of a store: $(cat "$work/err")"
    "$wet" --version | grep -qx "wet [0-9.]*" || fail "wet --version: $("$wet" --version 2>&1)"
}

# symbols PREFIX WET: --symbols prints what PREFIX.syms says of each pc, and
# a FUNCTION or FILE:LINE stands for its one instruction that accesses
# memory, or is refused with the instructions it has.
symbols() {
    local prefix=$1 file=$2 line pc name expected
    "$wet" top "$file" --count=5 --symbols > "$work/top.syms" || fail "wet top --symbols"
    while read -r line; do
        pc=$(awk '{ print $3 }' <<< "$line")
        expected=$(awk -F'\t' -v pc="$pc" '$1 == pc { f = $4; if ($5 != "-") f = f " (" $5 ($6 != "-" ? ":" $6 : "") ")";
                   print f; exit }' "$prefix.syms")
        [[ -n $expected && $line == *" $expected" ]] || fail "wet top --symbols: '$line', expected it to end '$expected'"
    done < "$work/top.syms"
    # The busiest load of sum_odd by its source line, when that line has no other.
    read -r _ pc _ < <(grep '^values' "$work/picks" | head -n 1)
    name=$(awk -F'\t' -v pc="$pc" '$1 == pc && $6 != "-" { print $5 ":" $6; exit }' "$prefix.syms")
    [[ -n $name ]] || fail "no source line for $pc in $prefix.syms"
    if "$wet" values "$file" "$name" > "$work/named" 2> "$work/named.err"; then
        "$wet" values "$file" "$pc" | cmp -s - "$work/named" || fail "wet values $name is not wet values $pc"
        echo "ok: wet values $name is wet values $pc"
    else
        grep -q "error: '$name' has [0-9]* instructions that access memory: .*$pc" "$work/named.err" \
            || fail "wet values $name: $(cat "$work/named.err")"
        echo "ok: $(cat "$work/named.err")"
    fi
    one_line_error "a name the symbols do not know" "$wet" values "$file" no_such_function
    one_line_error "a function with several memory accesses" "$wet" def "$file" fill 1
    grep -q "error: 'fill' has [0-9]* instructions that access memory: 0x" "$work/err" || fail "fill: $(cat "$work/err")"
    "$wet" slice "$file" "$pc" 1 --count=3 --symbols 2> /dev/null | grep -Eq "^[0-9]+ [BLRS] 0x[0-9a-f]+ [0-9-]+ [^ ]" \
        || fail "wet slice --symbols prints no symbol"
}

# 1. The toy program.
python3 "$here/make_synthetic_wet.py" "$work/toy" 3
build "$work/toy" "$work/toy.wet"
picks "$work/toy"
query_set "$work/toy" "$work/toy.wet"
echo "ok: toy program: $compared outputs equal the reference's, $windowed windows and --at forms their whole outputs'"
bad_input "$work/toy" "$work/toy.wet"
one_line_error "--symbols without symbols" "$wet" cf "$work/toy.wet" --symbols
one_line_error "a name without symbols" "$wet" values "$work/toy.wet" main
compared=0
python3 "$here/make_synthetic_wet.py" --no-regs "$work/plain" 3
build "$work/plain" "$work/plain.wet"
picks "$work/plain"
query_set "$work/plain" "$work/plain.wet"
echo "ok: toy program without registers: $compared outputs equal the reference's"

# 2. A real run.
command -v valgrind > /dev/null || { echo "valgrind not installed: real run skipped"; exit 0; }
[[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || fail "no tcgen-tracer-amd64-linux in $tool_dir"
tool_dir=$(cd "$tool_dir" && pwd)
traced=0
"$here/../tools/wet-traced-program" "$tool_dir" "$work" || traced=$?
[[ $traced != 3 ]] || exit 0  # no C compiler: the real run is skipped
[[ $traced == 0 ]] || exit 1
for f in blocks flow nodes events edges regs; do [[ -s "$work/real.$f" ]] || fail "tcgen-tracer wrote no real.$f"; done
nm -S "$work/program" > "$work/symbols" 2>/dev/null || : > "$work/symbols"
build "$work/real" "$work/real.wet"
echo "ok: real run: $(( ($(stat -c %s "$work/real.flow") - 4) / 4 )) executed blocks, $(cat "$work/build.err")"
if [[ -n $in_memory ]]; then
    "$in_memory" "$work/real" "$work/in-memory.wet" || fail "wet-build-in-memory failed"
    cmp "$work/real.wet" "$work/in-memory.wet" ||
        fail "real run: wet build's .wet differs from the one built with the raw trace in memory"
    rm "$work/in-memory.wet"
    echo "ok: real run: wet build's .wet is the same bytes as the one built in memory"
fi
# On several threads (the nodes' labels, the shared frames): the same bytes.
for threads in 3 0; do
    "$wet" build -T "$threads" "$work/real" "$work/threads.wet" 2> /dev/null || fail "wet build -T $threads failed"
    cmp -s "$work/real.wet" "$work/threads.wet" || fail "real run: wet build -T $threads's .wet differs from -T 1's"
done
rm "$work/threads.wet"
echo "ok: real run: wet build -T 3 and -T 0 write the bytes of -T 1"
one_line_error "more threads than a build takes" "$wet" build -T 5000 "$work/real" "$work/threads.wet"
# Under a memory cap (the least, and one in bytes): the labels made go to
# temporary files, the same bytes come out, and nothing is left.
list_work
for memory in 8M 16777216; do
    "$wet" build --memory="$memory" -T 2 "$work/real" "$work/capped.wet" 2> /dev/null ||
        fail "wet build --memory=$memory failed"
    cmp -s "$work/real.wet" "$work/capped.wet" || fail "real run: wet build --memory=$memory's .wet differs"
    no_temporaries "wet build --memory=$memory" capped.wet
done
rm "$work/capped.wet"
echo "ok: real run: wet build --memory=8M and =16777216 write the bytes of a build without a cap"
one_line_error "a memory cap below the least" "$wet" build --memory=512 "$work/real" "$work/capped.wet"
one_line_error "a memory cap that is no size" "$wet" build --memory=1T "$work/real" "$work/capped.wet"
one_line_error "a memory cap too large" "$wet" build --memory=99999999999999999G "$work/real" "$work/capped.wet"
# A SIGTERM during the build: the tool dies of it, leaving nothing behind.
list_work
"$wet" build "$work/real" "$work/killed.wet" 2> /dev/null &
killed=$!
sleep 0.3
kill -TERM "$killed" 2> /dev/null || :
status=0
wait "$killed" || status=$?
[[ $status == 143 || $status == 0 ]] || fail "wet build under SIGTERM: exit status $status"
rm -f "$work/killed.wet"
no_temporaries "wet build under SIGTERM (exit status $status)"
echo "ok: wet build under SIGTERM: exit status $status, nothing left"
# The temporary file refusing a write (as a full disk would; here a file
# size limit, its signal ignored): one line, exit 1, nothing left.
list_work
one_line_error "a write error on the temporary file" \
    bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' _ "$wet" build "$work/real" "$work/limited.wet"
grep -q "error: cannot write the events grouped by node: File too large$" "$work/err" ||
    fail "a write error on the temporary file: $(cat "$work/err")"
no_temporaries "a write error on the temporary file" err
if [[ -n $driver ]]; then
    "$driver" "$work/real" > "$work/parents.cpp"
    python3 "$reference" "$work/real" parents > "$work/parents.ref"
    cmp -s "$work/parents.cpp" "$work/parents.ref" || fail "real run: the C++ control parents differ from the reference's"
    echo "ok: real run: C++ control parents equal the reference's"
fi
compared=0
picks "$work/real" "$([[ -s "$work/symbols" ]] && echo "$work/symbols")"
query_set "$work/real" "$work/real.wet"
echo "ok: real run: $compared outputs equal the reference's, $windowed windows and --at forms their whole outputs'"
bad_input "$work/real" "$work/real.wet"
symbols "$work/real" "$work/real.wet"
