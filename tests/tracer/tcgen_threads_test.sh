#!/usr/bin/env bash
# tcgen_threads_test.sh TCGEN_THREADS [TOOL_DIR PROGRAM]: tcgen-threads.
# On a synthetic run (make_threads.py: a thread log and four kinds' traces):
# split writes each thread's records, as computed by the script, and join
# gives every trace back byte for byte. Bad input (log or trace: wrong
# header, truncated, counts that disagree; a missing, short or long
# per-thread file; a bad argument): one line on stderr, compared with the
# expected text, exit status 1, no output. With TOOL_DIR (the tcgen-tracer
# tool directory) and PROGRAM (tests/tracer's four-worker program): split
# and join give back each of the eight kinds the log counts, traced.
set -euo pipefail

tool=$(readlink -f "${1:?usage: tcgen_threads_test.sh TCGEN_THREADS [TOOL_DIR PROGRAM]}")
tool_dir=${2:-}
program=${3:-}
[[ -z $tool_dir ]] || { tool_dir=$(readlink -f "$tool_dir"); program=$(readlink -f "${program:?no PROGRAM}"); }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcgen_threads_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

round_trip() {  # LOG KIND=FILE...: split, then join each kind, cmp
    local log=$1 spec kind file; shift
    rm -rf split
    "$tool" split "$log" split "$@" || fail "split $*"
    for spec in "$@"; do
        kind=${spec%%=*}; file=${spec#*=}
        "$tool" join "$log" split "$kind" joined || fail "join $kind"
        cmp "$file" joined || fail "$kind: split and join differ"
        rm joined
    done
}

if [[ -n $tool_dir ]]; then
    command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
    [[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || fail "no tcgen-tracer-amd64-linux in $tool_dir"
    ( exec 9<"$tool_dir"
      exec env -i -C / PATH=/usr/bin:/bin LC_ALL=C VALGRIND_LIB=/proc/self/fd/9 \
        valgrind --tool=tcgen-tracer --fair-sched=yes --stores="$tmp/stores" --misses="$tmp/misses" \
          --loads="$tmp/loads" --champsim="$tmp/champsim" --branches="$tmp/branches" --wet="$tmp/w" \
          --threads="$tmp/log" "$program" ) > program.out 2> valgrind.log \
        || { cat valgrind.log >&2; fail "valgrind failed"; }
    round_trip log stores=stores misses=misses loads=loads champsim=champsim branches=branches \
        wet-flow=w.flow wet-events=w.events wet-edges=w.edges
    threads=$(cut -f3 split/index.tsv | tail -n +2 | sort -u | wc -l)
    [[ $threads == 5 ]] || fail "$threads threads in the split, not 5: $(cat split/index.tsv)"
    for kind in stores misses loads champsim branches wet-flow wet-events wet-edges; do
        records=$(awk -v k="$kind" '$2 == k { n++ } END { print n }' split/index.tsv)
        [[ $records == 5 ]] || fail "$kind: $records per-thread files, not 5"
    done
    echo "tcgen_threads_test: eight traced kinds of $(($(stat -c %s log) / 68)) runs split and joined"
    exit 0
fi

/usr/bin/python3 "$here/make_threads.py" syn || fail "make_threads.py"
round_trip syn/run.thr branches=syn/branches champsim=syn/champsim stores=syn/stores wet-flow=syn/wet-flow
for expected in syn/expected/*; do
    cmp "$expected" "split/${expected##*/}" || fail "split/${expected##*/}: not the thread's records"
done
[[ $(ls split | wc -l) == $(( $(ls syn/expected | wc -l) + 1 )) ]] || fail "split wrote other files: $(ls split)"
cp -r split good

# Bad input: ARGS, then the expected line; no output appears.
expect_error() {  # EXPECTED ARGS...
    local expected=$1 rc=0; shift
    "$tool" "$@" > /dev/null 2> err || rc=$?
    [[ $rc == 1 && $(cat err) == "$expected" ]] || fail "$*: exit status $rc, '$(cat err)', expected '$expected'"
    [[ ! -e out && ! -e out.part ]] || fail "$*: left output behind"
}
cd syn
head -c -5 run.thr > log.short
{ printf THR2; tail -c +5 run.thr; } > log.magic
printf THR1 > log.empty
/usr/bin/python3 - <<'PY'
import struct
log = bytearray(open("run.thr", "rb").read())
# the branches column (4) of run 3 below that of run 2
before = struct.unpack_from("<Q", log, 4 + 68 + 4 + 8 * 4)[0]
struct.pack_into("<Q", log, 4 + 68 * 2 + 4 + 8 * 4, before - 1)
open("log.back", "wb").write(log)
PY
head -c -3 branches > branches.cut
head -c $(( 4 + 17 * 10 )) branches > branches.short
e="tcgen-threads"
expect_error "$e: log.magic: error: not a thread log of tcgen-tracer --threads (no THR1 header)" \
    split log.magic out branches=branches
expect_error "$e: log.short: error: truncated: ends 63 bytes into run 61 (a run is 68 bytes)" \
    split log.short out branches=branches
expect_error "$e: log.empty: error: no thread runs" split log.empty out branches=branches
expect_error "$e: log.back: error: run 3: the branches count goes from 30 to 29" split log.back out branches=branches
expect_error "$e: branches.cut: error: truncated: ends 14 bytes into a 17-byte branches record, after record 844" \
    split run.thr out branches=branches.cut
expect_error "$e: branches.short: error: has 10 records, but the log run.thr counts at least 30" \
    split run.thr out branches=branches.short
expect_error "$e: branches: error: not a stores trace (no STA1 header)" split run.thr out stores=branches
expect_error "$e: bogus=branches: error: unknown kind 'bogus' (known: stores, misses, loads, champsim, branches, wet-flow, wet-events, wet-edges)" \
    split run.thr out bogus=branches
expect_error "$e: branches: error: expected KIND=FILE" split run.thr out branches
expect_error "$e: branches=branches: error: a second branches trace" split run.thr out branches=branches branches=branches
expect_error "$e: nosuch: error: cannot open: No such file or directory" split run.thr out branches=nosuch
# join: a missing, short, long or cut per-thread file; an unknown kind
for case in missing short long cut; do cp -r ../good "$case"; done
rm missing/branches.t2
head -c -17 ../good/branches.t2 > short/branches.t2
{ cat ../good/branches.t2; tail -c 17 ../good/branches.t1; } > long/branches.t2
head -c -3 ../good/champsim.t3 > cut/champsim.t3
expect_error "$e: missing/branches.t2: error: cannot open: No such file or directory" join run.thr missing branches out
expect_error "$e: short/branches.t2: error: ends after 143 records, but the log run.thr gives thread 2 at least 144" \
    join run.thr short branches out
expect_error "$e: long/branches.t2: error: more records than the log run.thr gives thread 2 (144)" join run.thr long branches out
expect_error "$e: cut/champsim.t3: error: truncated: ends 61 bytes into a 64-byte champsim record, after record 312" \
    join run.thr cut champsim out
expect_error "$e: nokind: error: unknown kind 'nokind' (known: stores, misses, loads, champsim, branches, wet-flow, wet-events, wet-edges)" \
    join run.thr ../good nokind out
echo "tcgen_threads_test: split and join on a synthetic run; bad input refused"
