#!/usr/bin/env bash
# bench_threads_test.sh BUILD: bench/threads.py end to end on zstd's quick run
# (tiny input, 20,000 records a kind; two kinds, and the --wet flow's
# grammar): its section is written with a row per kind whose split, join,
# decompressions and grammar expansions were checked, the
# command line in it names no path of the checkout, and an unknown program
# is refused with one line and exit status 1.
set -euo pipefail

build=$(readlink -f "${1:?usage: bench_threads_test.sh BUILD}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
command -v zstd >/dev/null || { echo "zstd not installed; skipping"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_threads_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$repo/bench/threads.py" --quick --programs=zstd --sched=fair --kinds=branches,stores,wet-flow --build="$build" \
    --work="$tmp/work" --out="$tmp/doc.md" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "bench/threads.py failed"; }
grep -q '^<!-- begin bench/threads.py -->$' "$tmp/doc.md" || fail "no bench/threads.py section"
for kind in branches stores; do
    grep -Eq "^\| zstd \| fair \| $kind \| 20,000 \| [0-9,]+ \| [0-9]+ \| [0-9,]+ \|" "$tmp/doc.md" \
        || fail "no row for zstd's $kind: $(cat "$tmp/doc.md")"
done
grep -Eq "^\| zstd \| fair \| wet-flow \| [1-9][0-9,]* \| [0-9,]+ \| [0-9]+ \|( [0-9,]+ \|){5} [-0-9.]+ % \|$" \
    "$tmp/doc.md" || fail "no row for zstd's flow: $(cat "$tmp/doc.md")"
grep -Eq '^\| total \|' "$tmp/doc.md" || fail "no total row"
! grep -qF "$repo" "$tmp/doc.md" || fail "the section names the checkout's path"

rc=0
"$repo/bench/threads.py" --programs=nosuch --build="$build" --work="$tmp/work" 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(cat "$tmp/err") == "bench/threads.py: unknown program 'nosuch' (known: xz, zstd, sort)" ]] \
    || fail "unknown program: exit status $rc, $(cat "$tmp/err")"
echo "bench_threads_test: passed"
