#!/usr/bin/env bash
# walkthrough_test.sh DOC BUILD_DIR SOURCE_DIR: runs the lines of DOC's
# walk-through (between "<!-- walkthrough: start" and "<!-- walkthrough:
# end") as a user would, in an empty directory where build/ and examples/
# are the build tree's and the checkout's; then checks what they printed:
# the hottest load named by addr2line, its values, its def, its slice.
set -euo pipefail
doc=${1:?usage: walkthrough_test.sh DOC BUILD_DIR SOURCE_DIR}
build=$(realpath "${2:?usage: walkthrough_test.sh DOC BUILD_DIR SOURCE_DIR}")
source=$(realpath "${3:?usage: walkthrough_test.sh DOC BUILD_DIR SOURCE_DIR}")
for tool in valgrind cc addr2line; do
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
grep -qx "tally" "$work/out" || fail "addr2line did not name the hottest load's function tally"
grep -q "^L 20000 0x" "$work/out" || fail "wet top: no load that ran 20000 times"
grep -Eq "^[0-9]+ L 0 <- [0-9]+ S 0 0x[0-9a-f]+$" "$work/out" || fail "wet def: no store found"
[[ $(grep -Ec "^[0-9]+ [BLRS] 0x[0-9a-f]+ ([0-9]+|-)$" "$work/out") == 12 ]] || fail "wet slice: not 12 items"
grep -qx "slice: 12 items shown" "$work/err" || fail "wet slice: $(tail -n 1 "$work/err")"
echo "ok: the walk-through of $doc"
