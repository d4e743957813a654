#!/usr/bin/env bash
# wpp_threads_test.sh TOOL_DIR PROGRAM TCGEN_THREADS WPP: per-thread whole
# program paths of a real multi-threaded run (docs/wpp.md, "Threads").
# PROGRAM (threads_program.c: four workers in loops of their own code) is
# traced with --wet and --threads under valgrind's fair scheduling; the flow
# is cut into one flow per thread (tcgen-threads split), each becomes a
# grammar (wpp build), each grammar is expanded again (wpp expand), and
# joining the expansions by the log (tcgen-threads join) gives the traced
# flow back byte for byte (cmp). On every per-thread grammar, the hot
# subpaths of lengths 1, 4, 8 and 16 (all rows) equal those of counting the
# expanded flow (--by-expanding), and a backward walk gives the thread's ids
# last first, as read from its per-thread file.
set -euo pipefail

usage="usage: wpp_threads_test.sh TOOL_DIR PROGRAM TCGEN_THREADS WPP"
tool_dir=${1:?$usage}
program=$(readlink -f "${2:?$usage}")
threads=$(readlink -f "${3:?$usage}")
wpp=$(readlink -f "${4:?$usage}")
[[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || { echo "no tcgen-tracer-amd64-linux in $tool_dir" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
tool_dir=$(cd "$tool_dir" && pwd)
python=/usr/bin/python3
[[ -x $python ]] || { echo "no $python; skipping"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wpp_threads_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"

( exec 9<"$tool_dir"
  exec env -i -C / PATH=/usr/bin:/bin LC_ALL=C VALGRIND_LIB=/proc/self/fd/9 \
    valgrind --tool=tcgen-tracer --fair-sched=yes --wet="$tmp/w" --threads="$tmp/log" "$program" ) \
    > program.out 2> valgrind.log || { cat valgrind.log >&2; fail "valgrind failed"; }
runs=$(( ($(stat -c %s log) - 4) / 68 ))
(( runs > 5 )) || fail "only $runs runs in the log: the threads did not take turns"

"$threads" split log split wet-flow=w.flow || fail "tcgen-threads split"
mkdir expanded
flows=(split/wet-flow.t*)
[[ ${#flows[@]} == 5 ]] || fail "${#flows[@]} per-thread flows, not 5: ${flows[*]}"
for flow in "${flows[@]}"; do
    name=${flow#split/}
    "$wpp" build "$flow" "$name.wpp" || fail "wpp build $flow"
    "$wpp" expand "$name.wpp" > "expanded/$name" || fail "wpp expand $name.wpp"
    cmp "$flow" "expanded/$name" || fail "$name: the grammar's expansion differs from the thread's flow"
done
"$threads" join log expanded wet-flow joined.flow || fail "tcgen-threads join of the expanded flows"
cmp w.flow joined.flow || fail "the joined expansions differ from the traced flow"

workers=0
for flow in "${flows[@]}"; do
    name=${flow#split/}
    symbols=$("$wpp" stats "$name.wpp" | awk '$1 == "symbols" { print $2 }')
    [[ $symbols == $(( ($(stat -c %s "$flow") - 4) / 4 )) ]] || fail "$name: wpp stats says $symbols symbols"
    (( symbols > 1000 )) && workers=$((workers + 1))
    for length in 1 4 8 16; do
        "$wpp" hot "$name.wpp" "$length" --top=0 > hot.grammar || fail "wpp hot $name.wpp $length"
        "$wpp" hot "$name.wpp" "$length" --top=0 --by-expanding > hot.expanded || fail "wpp hot --by-expanding"
        [[ -s hot.grammar || $symbols -lt $length ]] || fail "$name: no subpath of length $length"
        cmp hot.grammar hot.expanded || fail "$name: hot subpaths of length $length differ from the expanded count"
    done
    "$wpp" walk "$name.wpp" --backward > walk.grammar || fail "wpp walk --backward $name.wpp"
    "$python" -c '
import struct, sys
data = open(sys.argv[1], "rb").read()[4:]
ids = struct.unpack("<%dI" % (len(data) // 4), data)
sys.stdout.write("".join("%d\n" % i for i in reversed(ids)))' "$flow" > walk.expected
    cmp walk.grammar walk.expected || fail "$name: the backward walk differs from the thread's ids"
done
(( workers >= 4 )) || fail "$workers threads with more than 1000 blocks, not the four workers and main"
echo "wpp_threads_test: $runs runs, ${#flows[@]} per-thread grammars expanded and joined back"
