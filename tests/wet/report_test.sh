#!/usr/bin/env bash
# report_test.sh WET TRACER SOURCE_DIR: `wet report` on a real run
# (examples/wet/histogram.c traced by tcgen-tracer --wet): the page names the
# run's hottest function, its hottest loads by source line with their value
# ranges, draws the control flow of main and a slice; it is one file with no
# reference outside it; then a real headless browser (Debian's chromium)
# renders it, its script runs to the end (it marks the page ready) with no
# error on the console, and a screenshot is taken. Without chromium the
# rendering is skipped (status 77) after the other checks.
set -euo pipefail
usage="usage: report_test.sh WET TRACER SOURCE_DIR"
wet=$(realpath "${1:?$usage}")
tracer=$(realpath "${2:?$usage}")
source=$(realpath "${3:?$usage}")
for tool in valgrind cc; do
    command -v "$tool" > /dev/null || { echo "no $tool: skipping"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/report_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cc -O1 -g -o "$work/histogram" "$source/examples/wet/histogram.c"
(cd "$work" && env -i PATH=/usr/bin:/bin LC_ALL=C HOME="$work" "$tracer" --wet="$work/run" ./histogram) \
    > "$work/trace.out" 2>&1 || { cat "$work/trace.out"; fail "tracing failed"; }
"$wet" build "$work/run" "$work/run.wet" 2> /dev/null
"$wet" report "$work/run.wet" "$work/report.html"
page=$work/report.html

for heading in "The run" "The hottest functions" "The hottest blocks" "The busiest loads" \
               "Control flow of main, the hottest function" "A slice"; do
    grep -qF "<h2>$heading</h2>" "$page" || fail "no section '$heading'"
done
# main runs most of the instructions; its two hot lines are the top blocks.
grep -qE '<tr><td>main</td><td class="n">[0-9,]+</td><td class="n">[0-9.]+ %</td>' "$page" || fail "main not listed"
functions=$(tr -d '\n' < "$page" | sed 's#.*<h2>The hottest functions</h2>##; s#</section>.*##')
[[ $(grep -o '<tr><td>[^<]*</td><td class="n">' <<< "$functions" | head -n 1) == '<tr><td>main</td><td class="n">' ]] ||
    fail "main is not the hottest function"
# The load of histogram.c:24 ran 20,000 times and read 1,000 distinct counts.
grep -qE 'main\+[0-9]+ \(histogram.c:24\)</td><td class="n">20,000</td><td class="n">0x0</td><td class="n">0x[0-9a-f]+</td><td class="n">1,000</td>' "$page" ||
    fail "no row of the load of histogram.c:24 with its 1,000 distinct values"
[[ $(grep -o '<svg ' "$page" | wc -l) -eq 2 ]] || fail "not two drawings"
grep -qF 'block executions' "$page" && grep -qE 'class="arc def"' "$page" || fail "no def arc in the slice"
# Self-contained: nothing fetched from elsewhere.
if grep -qE '(src|href)="|url\((https?:|//)|@import' "$page"; then
    fail "the page refers to something outside it: $(grep -oE '(src|href)="[^"]*"|@import[^;]*' "$page" | head -n 3)"
fi
# Written as every output is: a symlink at OUT is replaced, not followed.
ln -s "$work/elsewhere" "$work/link.html"
"$wet" report "$work/run.wet" "$work/link.html"
[[ ! -e $work/elsewhere && -f $work/link.html && ! -L $work/link.html ]] || fail "a symlink at OUT was followed"
rc=0
"$wet" report "$work/missing.wet" "$work/x.html" 2> "$work/err" || rc=$?
[[ $rc -eq 1 && ! -e $work/x.html ]] || fail "a missing WET: status $rc"
echo "ok: the page"

browser=$(command -v chromium || true)
[[ -n $browser ]] || { echo "no chromium (apt-get install chromium): rendering skipped"; exit 77; }
headless=("$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile"
          --enable-logging=stderr --v=0)
"${headless[@]}" --dump-dom "file://$page" > "$work/dom.html" 2> "$work/console.txt" || fail "chromium failed: $(tail -n 3 "$work/console.txt")"
grep -q '<body data-ready="yes">' "$work/dom.html" || fail "the page's script did not run to its end: $(grep -i console "$work/console.txt" | head -n 3)"
if grep -qiE 'CONSOLE.*(Uncaught|Error)' "$work/console.txt"; then
    fail "script errors: $(grep -iE 'CONSOLE.*(Uncaught|Error)' "$work/console.txt" | head -n 3)"
fi
"${headless[@]}" --window-size=1100,1400 --screenshot="$work/report.png" "file://$page" > /dev/null 2>&1
[[ $(head -c 8 "$work/report.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a && $(stat -c %s "$work/report.png") -gt 20000 ]] ||
    fail "no screenshot"
echo "ok: rendered by $("$browser" --version 2>/dev/null | head -n 1)"
