#!/usr/bin/env bash
# run_test.sh WET TRACER SOURCE_DIR: `wet run` traces a program and builds
# its WET from named pipes, no raw file on disk: the same WET as tracing to
# files and `wet build` (its control flow, hottest blocks and accesses, its
# counts; a run's loaded values differ in a few random bytes, the stack
# guard among them), the program's own output untouched, nothing left
# beside OUT after success, a failing program, a refused option or a kill
# (nor the tracer running).
set -euo pipefail
usage="usage: run_test.sh WET TRACER SOURCE_DIR"
wet=$(realpath "${1:?$usage}")
tracer=$(realpath "${2:?$usage}")
source=$(realpath "${3:?$usage}")
for tool in valgrind cc; do
    command -v "$tool" > /dev/null || { echo "no $tool: skipping"; exit 77; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/run_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export TCGEN_TRACER=$tracer
clean() { env -i PATH=/usr/bin:/bin LC_ALL=C HOME="$work" TCGEN_TRACER="$tracer" "$@"; }
leftovers() { find "$work/out" -name '*.run-*' | head -n 3; }

cc -O1 -g -o "$work/histogram" "$source/examples/wet/histogram.c"
mkdir "$work/out"
(cd "$work" && clean "$tracer" --wet="$work/files" ./histogram > "$work/files.out" 2> /dev/null) || fail "tracing failed"
"$wet" build "$work/files" "$work/files.wet" 2> "$work/files.err"
(cd "$work" && clean "$wet" run "$work/out/run.wet" -- ./histogram > "$work/run.out" 2> "$work/run.err") ||
    fail "wet run: $(tail -n 3 "$work/run.err")"
cmp -s "$work/files.out" "$work/run.out" || fail "the program's output differs under wet run"
counts() { tail -n 1 "$1" | sed 's/^wet: [^:]*: //; s/; .*//'; }
[[ $(counts "$work/run.err") == $(counts "$work/files.err") ]] ||
    fail "counts: '$(counts "$work/run.err")' against '$(counts "$work/files.err")'"
for query in "cf" "cf --backward --count=1000" "top --count=40"; do
    cmp -s <("$wet" $query "$work/files.wet") <("$wet" $query "$work/out/run.wet") || fail "wet $query differs"
done
read -r _ _ load < <("$wet" top "$work/files.wet" --count=3 | grep '^L' | head -n 1)
cmp -s <("$wet" addresses "$work/files.wet" "$load") <("$wet" addresses "$work/out/run.wet" "$load") ||
    fail "the addresses of load $load differ"
[[ -z $(leftovers) && $(ls "$work/out") == run.wet ]] || fail "left beside OUT: $(ls "$work/out")"
echo "ok: wet run builds the WET that tracing to files builds"

# Failures: one line, exit status 1, no OUT, nothing left.
status=0
clean "$wet" run "$work/out/missing.wet" -- "$work/no-such-program" > /dev/null 2> "$work/err" || status=$?
[[ $status -eq 1 ]] || fail "a missing program: status $status"
tail -n 1 "$work/err" | grep -qx "wet: .*tcgen-tracer: error: exited with status [0-9]*" ||
    fail "a missing program: $(tail -n 1 "$work/err")"
status=0
"$wet" run "$work/out/given.wet" -- --wet=elsewhere ./histogram > /dev/null 2> "$work/err" || status=$?
[[ $status -eq 1 ]] && grep -qx "wet: error: wet run gives tcgen-tracer its --wet=PREFIX itself: leave --wet=elsewhere out" \
    "$work/err" || fail "--wet given: status $status, $(cat "$work/err")"
[[ -z $(leftovers) && $(ls "$work/out") == run.wet ]] || fail "left after failures: $(ls "$work/out")"

# Killed while the program runs: the pipes go with it, and the tracer
# (with the program it runs) ends before wet does: left running, it would
# make its files again, as plain files, once wet had removed them.
env -i PATH=/usr/bin:/bin TCGEN_TRACER="$tracer" "$wet" run "$work/out/killed.wet" -- /bin/sleep 60 > /dev/null 2>&1 &
pid=$!  # env's, which becomes wet's
for _ in $(seq 100); do
    [[ -n $(leftovers) ]] && break
    sleep 0.1
done
[[ -n $(leftovers) ]] || fail "no pipes while the run was on"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[[ $status -eq 143 ]] || fail "killed: status $status"
# Processes whose command line names the run (the bracket keeps grep from
# finding its own). A subshell of the tracer's script may be on its way out
# still, orphaned when the script was killed: waited for, while the tracer
# itself, had it survived, would run its program's minute.
run_processes() { grep -las -e "--wet=$work/out/killed[.]wet.run-" /proc/[0-9]*/cmdline || true; }
for _ in $(seq 200); do
    [[ -z $(run_processes) ]] && break
    sleep 0.1
done
[[ -z $(run_processes) ]] || fail "the tracer outlived a kill: $(run_processes)"
[[ -z $(leftovers) && ! -e $work/out/killed.wet ]] || fail "left after a kill: $(ls "$work/out")"
echo "ok: failures and a kill leave nothing"
