#!/usr/bin/env bash
# wet_example_test.sh WET_EXAMPLE TOOL_DIR: traces a real run of /usr/bin/sort
# with tcgen-tracer --wet, then runs wet-example on the WET files; passes when
# it exits 0, prints the WET's sizes and last blocks, and answers the query
# with the store a load read from. Also: a truncated file gives a one-line
# error, exit 1.
# valgrind runs sort (a system binary, never sanitized); wet-example runs
# natively, so sanitizer builds check it too.
set -euo pipefail

example=$(realpath "${1:?usage: wet_example_test.sh WET_EXAMPLE TOOL_DIR}")
tool_dir=${2:?usage: wet_example_test.sh WET_EXAMPLE TOOL_DIR}
[[ -x "$tool_dir/tcgen-tracer-amd64-linux" ]] || { echo "no tcgen-tracer-amd64-linux in $tool_dir" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind not installed; skipping"; exit 0; }
tool_dir=$(cd "$tool_dir" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wet_example_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

seq 1 300 | awk '{ print ($1 * 7919) % 1000 }' > "$tmp/in"
# A clean environment, as tracer_test.sh runs the tool (no sanitizer options
# or preloads reach the traced program).
env -i PATH=/usr/bin:/bin LC_ALL=C VALGRIND_LIB="$tool_dir" \
    valgrind --tool=tcgen-tracer --wet="$tmp/run" --wet-max=2000000 /usr/bin/sort -n "$tmp/in" \
    > "$tmp/sorted" 2> "$tmp/valgrind.log" || { cat "$tmp/valgrind.log" >&2; fail "valgrind run failed"; }
cmp -s "$tmp/sorted" <(LC_ALL=C sort -n "$tmp/in") || fail "sort output under the tool is wrong"

"$example" "$tmp/run" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/out" "$tmp/err" >&2; fail "wet-example failed"; }
cat "$tmp/out"
grep -q '^labels: [0-9]* raw bytes, [0-9]* in memory' "$tmp/out" || fail "no sizes"
grep -q '^last blocks: t=[0-9]*:0x' "$tmp/out" || fail "no control flow"
grep -q '^query answer: it read 0x[0-9a-f]* at 0x[0-9a-f]*, written by the store at pc 0x' "$tmp/out" ||
    fail "the default query shows no def edge"
grep -q '^slice: [1-9][0-9]* items' "$tmp/out" || fail "no slice"

# The query at an explicit pc: the use node of the last edge instance.
use=$(tail -c 16 "$tmp/run.edges" | od -An -tu4 -N4 | tr -d ' ')
pc=$(printf '0x%x' "$(od -An -tu8 -j $((4 + 24 * use + 16)) -N8 "$tmp/run.nodes" | tr -d ' ')")
"$example" "$tmp/run" "$pc" > "$tmp/out2" 2>&1 || { cat "$tmp/out2" >&2; fail "wet-example $pc failed"; }
grep -q "^query: load at pc $pc, " "$tmp/out2" || fail "PC $pc not honoured: $(grep '^query' "$tmp/out2")"
grep -q '^query answer: ' "$tmp/out2" || fail "no query answer for PC $pc"
sed -n '/^query/,$p' "$tmp/out2"

# Bad input: a one-line error naming the file, exit status 1.
for f in blocks flow nodes edges; do cp "$tmp/run.$f" "$tmp/bad.$f"; done
head -c -5 "$tmp/run.events" > "$tmp/bad.events"
rc=0; "$example" "$tmp/bad" > /dev/null 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] && grep -q "bad.events: error: truncated" "$tmp/err" \
    || fail "truncated events: exit status $rc, $(cat "$tmp/err")"
cp "$tmp/run.events" "$tmp/bad.events"; cp "$tmp/run.events" "$tmp/bad.edges"
rc=0; "$example" "$tmp/bad" > /dev/null 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] && grep -q "bad.edges: error: not a WET" "$tmp/err" \
    || fail "foreign edges file: exit status $rc, $(cat "$tmp/err")"
rc=0; "$example" "$tmp/run" 0xzz > /dev/null 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] && grep -q "bad PC" "$tmp/err" \
    || fail "bad PC: exit status $rc, $(cat "$tmp/err")"
echo PASS
