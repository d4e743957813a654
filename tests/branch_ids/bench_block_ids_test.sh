#!/usr/bin/env bash
# bench_block_ids_test.sh BUILD: bench/block-ids end to end on sort's quick
# corpus trace (bench/corpus --quick): its section is written with a row for
# sort whose split, join and decompressions were checked, the command line
# in it names no path of the checkout, and an unknown program is refused
# with one line and exit status 1.
set -euo pipefail

build=$(readlink -f "${1:?usage: bench_block_ids_test.sh BUILD}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_block_ids_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$repo/bench/block-ids" --quick --programs=sort --build="$build" --corpus="$tmp/corpus" --work="$tmp/work" \
    --out="$tmp/doc.md" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "bench/block-ids failed"; }
grep -q '^<!-- begin bench/block-ids -->$' "$tmp/doc.md" || fail "no bench/block-ids section"
grep -Eq '^\| sort \| [0-9,]+ \| [0-9,]+ \| [0-9,]+ \|' "$tmp/doc.md" || fail "no row for sort: $(cat "$tmp/doc.md")"
grep -Eq '^\| total \|' "$tmp/doc.md" || fail "no total row"
! grep -qF "$repo" "$tmp/doc.md" || fail "the section names the checkout's path"

rc=0
"$repo/bench/block-ids" --programs=nosuch --build="$build" --corpus="$tmp/corpus" 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(cat "$tmp/err") == "bench/block-ids: unknown program 'nosuch' (known: bzip2, gzip, xz, sort, sqlite3, python3, perl, cc1)" ]] \
    || fail "unknown program: exit status $rc, $(cat "$tmp/err")"
echo "bench_block_ids_test: passed"
