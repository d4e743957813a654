#!/usr/bin/env bash
# wet_example_test.sh WET_EXAMPLE TOOL_DIR: traces a real run of /usr/bin/sort
# with tcgen-tracer --wet, then runs wet-example on the WET files; passes when
# it exits 0, says every stream walked back and forth equal to the input, and
# answers the query. Also: a truncated file gives a one-line error, exit 1.
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
grep -q '^walk verified: ' "$tmp/out" || fail "no walk verification line"
grep -q '^query answer: ' "$tmp/out" || fail "no query answer"

# The query at an explicit pc: the use node of the last edge instance.
use=$(tail -c 16 "$tmp/run.edges" | od -An -tu4 -N4 | tr -d ' ')
pc=$(printf '0x%x' "$(od -An -tu8 -j $((4 + 24 * use + 16)) -N8 "$tmp/run.nodes" | tr -d ' ')")
"$example" "$tmp/run" "$pc" > "$tmp/out2" 2>&1 || { cat "$tmp/out2" >&2; fail "wet-example $pc failed"; }
grep -q "^query: .*last load at pc $pc " "$tmp/out2" || fail "NODE_PC $pc not honoured: $(grep '^query' "$tmp/out2")"
grep -q '^query answer: ' "$tmp/out2" || fail "no query answer for NODE_PC $pc"
sed -n '/^query/,$p' "$tmp/out2"

# Bad input: a one-line error naming the file, exit status 1.
cp "$tmp/run.nodes" "$tmp/bad.nodes"; cp "$tmp/run.edges" "$tmp/bad.edges"
head -c -5 "$tmp/run.events" > "$tmp/bad.events"
rc=0; "$example" "$tmp/bad" > /dev/null 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] && grep -q "bad.events: truncated" "$tmp/err" \
    || fail "truncated events: exit status $rc, $(cat "$tmp/err")"
cp "$tmp/run.events" "$tmp/bad.events"; cp "$tmp/run.events" "$tmp/bad.edges"
rc=0; "$example" "$tmp/bad" > /dev/null 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] && grep -q "bad.edges: not a WET" "$tmp/err" \
    || fail "foreign edges file: exit status $rc, $(cat "$tmp/err")"
rc=0; "$example" "$tmp/run" 0xzz > /dev/null 2> "$tmp/err" || rc=$?
[[ $rc == 1 && $(wc -l < "$tmp/err") == 1 ]] && grep -q "bad NODE_PC" "$tmp/err" \
    || fail "bad NODE_PC: exit status $rc, $(cat "$tmp/err")"
echo PASS
