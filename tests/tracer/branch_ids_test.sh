#!/usr/bin/env bash
# branch_ids_test.sh BRANCH_IDS TCGEN WPP CXX [TOOL_DIR]: tcgen-branch-ids.
# On a synthetic branch trace (make_branches.py) and a hand-made one: split
# then join gives the trace back byte for byte; the ids and table of the
# hand-made trace are the expected bytes; the id stream goes through the
# compressor tcgen generates from examples/branch_ids.tcg and back, and
# through `wpp build --raw` and `wpp expand`, unchanged. Bad input: one line
# on stderr, compared with the expected text, exit status 1, no output file.
# With TOOL_DIR (the tcgen-tracer tool directory): the same round trip on
# the branch trace of a real program: sort's first 3 million branches.
set -euo pipefail

tool=${1:?usage: branch_ids_test.sh BRANCH_IDS TCGEN WPP CXX [TOOL_DIR]}
tcgen=${2:?usage: branch_ids_test.sh BRANCH_IDS TCGEN WPP CXX [TOOL_DIR]}
wpp=${3:?usage: branch_ids_test.sh BRANCH_IDS TCGEN WPP CXX [TOOL_DIR]}
cxx=${4:?usage: branch_ids_test.sh BRANCH_IDS TCGEN WPP CXX [TOOL_DIR]}
tool_dir=${5:-}
tool=$(readlink -f "$tool"); tcgen=$(readlink -f "$tcgen"); wpp=$(readlink -f "$wpp")
[[ -z $tool_dir ]] || tool_dir=$(readlink -f "$tool_dir")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/branch_ids_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

round_trip() {  # TRACE: split and join give TRACE back
    local trace=$1 records outcomes
    "$tool" split "$trace" ids table || fail "split $trace"
    "$tool" join ids table > joined || fail "join $trace"
    cmp "$trace" joined || fail "$trace: split and join differ"
    records=$(( ($(stat -c %s "$trace") - 4) / 17 ))
    [[ $(stat -c %s ids) == $(( 4 * records )) ]] || fail "$trace: not one id per branch"
    outcomes=$(tail -c +5 "$trace" | od -An -v -tx1 -w17 | sort -u | wc -l)
    [[ $(stat -c %s table) == $(( 4 + 17 * outcomes )) ]] \
        || fail "$trace: the table does not hold each of the $outcomes distinct outcomes once"
}

if [[ -n $tool_dir ]]; then
    command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
    [[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || fail "no tcgen-tracer-amd64-linux in $tool_dir"
    seq 200000 -1 1 | sed 's/$/ line/' > input   # sorting it takes far more branches
    ( exec 9<"$tool_dir"
      exec env -i -C / PATH=/usr/bin:/bin LC_ALL=C VALGRIND_LIB=/proc/self/fd/9 \
        valgrind --tool=tcgen-tracer --branches="$tmp/sort.bra" --branches-max=3000000 /usr/bin/sort --parallel=1 "$tmp/input" ) \
        > /dev/null 2> valgrind.log || { cat valgrind.log >&2; fail "valgrind failed"; }
    [[ $(stat -c %s sort.bra) == $(( 4 + 17 * 3000000 )) ]] || fail "sort's trace is not 3 million branches"
    round_trip "$tmp/sort.bra"
    echo "branch_ids_test: sort's trace ($(stat -c %s sort.bra) bytes) split and joined"
    exit 0
fi

# A hand-made trace: outcomes A B A C B A (C is A's branch not taken).
rec() { printf "$(printf '\\x%02x' "$@")"; }
le64() { local v=$1 i; for i in 0 1 2 3 4 5 6 7; do printf '%d ' $(( (v >> (8 * i)) & 255 )); done; }
A="$(le64 0x401000) $(le64 0x401800) 1"
B="$(le64 0x401010) $(le64 0x7f0000000000) 1"
C="$(le64 0x401000) $(le64 0x401800) 0"
{ printf BRA1; for r in "$A" "$B" "$A" "$C" "$B" "$A"; do rec $r; done; } > small.bra
round_trip small.bra
[[ $(od -An -v -tu4 ids | xargs) == "0 1 0 2 1 0" ]] || fail "ids of the hand-made trace: $(od -An -v -tu4 ids | xargs)"
{ printf BIT1; for r in "$A" "$B" "$C"; do rec $r; done; } > expected.table
cmp table expected.table || fail "table of the hand-made trace"
printf BRA1 > empty.bra
round_trip empty.bra

python3 "$here/make_branches.py" synthetic.bra 200000
round_trip synthetic.bra

# The id stream through the example spec's compressor and through wpp.
"$tcgen" "$repo/examples/branch_ids.tcg" -o comp.cpp || fail "tcgen examples/branch_ids.tcg"
build_line=$(grep -m1 '^// Build:.* comp.cpp' comp.cpp) || fail "no '// Build:' line in comp.cpp"
# shellcheck disable=SC2086
"$cxx" -std=c++17 -O2 -o comp comp.cpp -pthread ${build_line#*comp.cpp} || fail "compiling comp.cpp"
./comp < ids > ids.tcz || fail "compressing the ids"
./comp -d < ids.tcz > ids.back || fail "decompressing the ids"
cmp ids ids.back || fail "the ids' .tcz does not decompress to them"
(( $(stat -c %s ids.tcz) * 10 < $(stat -c %s ids) )) || fail "the ids compressed less than 10x"
"$wpp" build --raw ids ids.wpp || fail "wpp build --raw"
"$wpp" expand ids.wpp > ids.expanded || fail "wpp expand"
cmp ids ids.expanded || fail "wpp expand of the ids differs"

# Bad input: the expected line, exit status 1, nothing left behind (no
# output, no temporary) and nothing on standard output: join checks every id
# of a regular file before it writes.
bad() {  # EXPECTED-STDERR COMMAND...: the command fails as expected
    local expected=$1 rc=0; shift
    rm -f out.ids out.table
    "$tool" "$@" > out 2> err || rc=$?
    [[ $rc == 1 ]] || fail "$*: exit status $rc, not 1"
    [[ $(cat err) == "$expected" ]] || fail "$*: stderr '$(cat err)', expected '$expected'"
    [[ ! -e out.ids && ! -e out.table && -z $(compgen -G 'out.*.tmp*') ]] || fail "$*: left an output file"
    [[ ! -s out ]] || fail "$*: wrote $(stat -c %s out) bytes to standard output before failing"
}
p=tcgen-branch-ids
head -c -5 synthetic.bra > truncated.bra
printf 'STA1xxxxxxxxxxxx' > stores.trace
printf 'BR' > short.bra
head -c -3 ids > truncated.ids
head -c -1 table > truncated.table
"$tool" split small.bra small.ids small.table
{ cat small.ids; printf '\x03\x00\x00\x00'; } > outside.ids
bad "$p: truncated.bra: error: truncated: ends 12 bytes into a 17-byte branch record" \
    split truncated.bra out.ids out.table
bad "$p: stores.trace: error: not a branch trace of tcgen-tracer --branches (no BRA1 header)" \
    split stores.trace out.ids out.table
bad "$p: short.bra: error: not a branch trace of tcgen-tracer --branches (no BRA1 header)" \
    split short.bra out.ids out.table
bad "$p: missing.bra: error: cannot open: No such file or directory" split missing.bra out.ids out.table
bad "$p: nodir/out.ids: error: cannot create: No such file or directory" split small.bra nodir/out.ids out.table
bad "$p: truncated.ids: error: truncated: ends 1 bytes into a 4-byte id" join truncated.ids table
bad "$p: truncated.table: error: truncated: ends 16 bytes into a 17-byte table entry" join ids truncated.table
bad "$p: small.bra: error: not a side table of tcgen-branch-ids split (no BIT1 header)" join ids small.bra
bad "$p: outside.ids: error: id 3 at position 6 is not in small.table (3 entries)" join outside.ids small.table
bad "$p: error: unknown command 'merge' (split, join; try $p --help)" merge ids table
# join's binary output is refused on a terminal unless -f, as comp refuses it.
if command -v script > /dev/null; then
    script -qec "$tool join ids table" /dev/null > tty.out 2>&1 || true
    grep -q "^$p: error: refusing to write binary data to a terminal (redirect standard output, or use -f)" tty.out \
        || fail "join to a terminal: $(head -c 300 tty.out)"
fi
"$tool" join -f ids table | cmp -s - synthetic.bra || fail "join -f"
"$tool" --version | grep -qx "$p [0-9.]*" || fail "$p --version: $("$tool" --version 2>&1)"
echo "branch_ids_test: all checks passed"
