#!/usr/bin/env bash
# walkthrough_test.sh DOC BUILD_DIR SOURCE_DIR: runs the lines of DOC's
# walk-through (between "<!-- walkthrough: start" and "<!-- walkthrough:
# end") as a user would, in an empty directory where build/ and examples/
# are the build tree's and the checkout's; then checks what they printed:
# the hottest load with its source line, its values, its def, its slice.
set -euo pipefail
doc=${1:?usage: walkthrough_test.sh DOC BUILD_DIR SOURCE_DIR}
build=$(realpath "${2:?usage: walkthrough_test.sh DOC BUILD_DIR SOURCE_DIR}")
source=$(realpath "${3:?usage: walkthrough_test.sh DOC BUILD_DIR SOURCE_DIR}")
for tool in valgrind cc; do
    command -v "$tool" > /dev/null || { echo "no $tool: the walk-through needs it; skipping"; exit 0; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/walkthrough_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

awk '/<!-- walkthrough: start/ { on = 1; next } /<!-- walkthrough: end/ { on = 0 } on && !/^```/' "$doc" \
    > "$work/walkthrough.sh"
[[ $(grep -c . "$work/walkthrough.sh") -ge 5 ]] || fail "$doc: no walk-through found"
mkdir -p "$work/build"
ln -s "$build/tracer" "$work/build/tracer"
ln -s "$source/examples" "$work/examples"
# A clean environment, as the other tracer tests run the tool (no sanitizer
# options or preloads reach the traced program).
(cd "$work" && env -i PATH="$build/wet:/usr/bin:/bin" LC_ALL=C HOME="$work" bash -euo pipefail walkthrough.sh) \
    > "$work/out" 2> "$work/err" || { cat "$work/out" "$work/err" >&2; fail "the walk-through failed"; }
cat "$work/out"
grep -Eq "^L 20000 0x[0-9a-f]+ main\+[0-9]+ \(histogram.c:24\)$" "$work/out" \
    || fail "wet top --symbols: no load of histogram.c:24 that ran 20000 times"
grep -Eq "^[0-9]+ L 0 <- [0-9]+ S 0 0x[0-9a-f]+ main\+[0-9]+ \(histogram.c:17\)$" "$work/out" \
    || fail "wet def: not the store of histogram.c:17"
[[ $(grep -Ec "^[0-9]+ [BLRS] 0x[0-9a-f]+ ([0-9]+|-) main\+[0-9]+ \(histogram.c:[0-9]+\)$" "$work/out") == 12 ]] \
    || fail "wet slice: not 12 items with their symbols"
grep -qx "slice: 12 items shown" "$work/err" || fail "wet slice: $(tail -n 1 "$work/err")"
# A source line with one memory access stands for its pc: line 17's store,
# which the def named.
pc=$(awk '$4 == "<-" { print $8; exit }' "$work/out")
cmp -s <("$build/wet/wet" values "$work/run.wet" histogram.c:17) <("$build/wet/wet" values "$work/run.wet" "$pc") \
    || fail "wet values histogram.c:17 is not wet values $pc"
echo "ok: the walk-through of $doc"
