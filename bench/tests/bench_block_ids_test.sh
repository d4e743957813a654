#!/usr/bin/env bash
# bench_block_ids_test.sh BUILD: bench/block-ids.py end to end on sort's quick
# corpus trace (bench/corpus.sh --quick): its section is written with a row for
# sort whose split, join, grammar expansion and decompressions were checked,
# every size column filled (.wpp and .wpp + table included), and a row of
# query times whose tables wpp-bench found equal (hot L = 4, 8, 16, 64 and the
# backward walk); the command line in it names no path of the checkout.
# --manifest takes the same trace from the corpus's manifest and gives the
# same sizes. An unknown program or a missing manifest is refused with one
# line and exit status 1. The compressors are built at -O0 (sizes and round
# trips are checked, no speed), once for both runs (--build-cache).
set -euo pipefail

build=$(readlink -f "${1:?usage: bench_block_ids_test.sh BUILD}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench_block_ids_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

builds=(--opt-level=0 --build-cache="$tmp/builds")
"$repo/bench/block-ids.py" --quick --programs=sort --build="$build" --corpus="$tmp/corpus" --work="$tmp/work" \
    "${builds[@]}" --out="$tmp/doc.md" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "bench/block-ids.py failed"; }
grep -q '^<!-- begin bench/block-ids.py -->$' "$tmp/doc.md" || fail "no bench/block-ids.py section"
sizes='^\| sort \| [0-9,]+ \| [0-9,]+ \|( [0-9,]+ \|){8} [-0-9.]+ % \| [0-9,]+ \| [0-9,]+ \|$'
grep -Eq "$sizes" "$tmp/doc.md" || fail "no row of sizes for sort: $(cat "$tmp/doc.md")"
grep -Eq '^\| total \|.* \| [0-9,]+ \| [0-9,]+ \|$' "$tmp/doc.md" || fail "no total row with the .wpp columns"
time='[0-9.]+ / [0-9.]+ s \(([0-9.]+×|–)\)'
queries="^\| sort \| [0-9,]+ \| [0-9,]+ \| [0-9.]+ \|( $time \|){4} ([0-9.]+ M/s|–) \|$"
grep -Eq "$queries" "$tmp/doc.md" || fail "no row of query times for sort: $(cat "$tmp/doc.md")"
grep -Fq '| program | ids | grammar symbols | ratio | hot L = 4 | hot L = 8 | hot L = 16 | hot L = 64 | backward walk |' \
    "$tmp/doc.md" || fail "no query table header"
! grep -qF "$repo" "$tmp/doc.md" || fail "the section names the checkout's path"

"$repo/bench/block-ids.py" --manifest="$tmp/corpus/quick/manifest.tsv" --programs=sort --build="$build" \
    --work="$tmp/work" "${builds[@]}" > "$tmp/out2" 2> "$tmp/err" || { cat "$tmp/err" >&2; fail "bench/block-ids.py --manifest failed"; }
cmp <(grep -E "$sizes" "$tmp/out") <(grep -E "$sizes" "$tmp/out2") || fail "--manifest gave other sizes"

rc=0
"$repo/bench/block-ids.py" --manifest="$tmp/nosuch.tsv" --build="$build" 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(cat "$tmp/err") == "bench/block-ids.py: no manifest $tmp/nosuch.tsv" ]] \
    || fail "missing manifest: exit status $rc, $(cat "$tmp/err")"
rc=0
"$repo/bench/block-ids.py" --programs=nosuch --build="$build" --corpus="$tmp/corpus" 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(cat "$tmp/err") == "bench/block-ids.py: unknown program 'nosuch' (known: bzip2, gzip, xz, sort, sqlite3, python3, perl, cc1)" ]] \
    || fail "unknown program: exit status $rc, $(cat "$tmp/err")"
echo "bench_block_ids_test: passed"
