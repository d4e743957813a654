#!/usr/bin/env bash
# The generated program's command line: help, unknown options, the mode of
# a new output, a closed pipe.
# Usage: generated_cli_test.sh COMP
set -u
comp=$1
name=$(basename "$comp")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {
    if ! eval "$2"; then
        echo "FAIL: $1"
        failures=$((failures + 1))
    fi
}

"$comp" -h >"$work/out" 2>"$work/err"
check "-h exits 0 and prints usage" '[ $? -eq 0 ] && grep -q "^usage: " "$work/out"'
"$comp" --help >"$work/out" 2>"$work/err"
check "--help prints usage" 'grep -q -- "-d" "$work/out"'
"$comp" --bogus </dev/null >"$work/out" 2>"$work/err"
status=$?
check "unknown option exits 1 with one line" '[ $status -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "^$name: error: unknown option" "$work/err"'
check "unknown option writes nothing" '[ ! -s "$work/out" ]'
"$comp" --spec >"$work/out"
check "--spec prints the canonical spec" 'head -1 "$work/out" | grep -qx "TCgen Trace Specification;"'

# An output not made from an input file gets 0666 less the umask, as xz and
# zstd give it (not mkstemp's 0600).
head -c 1000 /dev/urandom >"$work/small"
for mask in 022 077; do
    (umask $mask && "$comp" -q -o "$work/small.$mask.tcz" - <"$work/small") 2>"$work/err"
    want=$(printf '%o' $((0666 & ~0$mask)))
    check "umask $mask: -o from stdin gives mode $want ($(stat -c %a "$work/small.$mask.tcz" 2>&1))" \
        '[ "$(stat -c %a "$work/small.$mask.tcz")" = "$want" ]'
done

# A reader that goes away: the writer must report the error and exit 1, not
# die silently from SIGPIPE.
head -c 3000000 /dev/urandom >"$work/input"
"$comp" <"$work/input" 2>"$work/err" | head -c 10 >/dev/null
status=${PIPESTATUS[0]}
check "closed pipe gives exit 1 and a write error (status $status: $(cat "$work/err"))" '[ $status -eq 1 ] && grep -q "^$name: error: write error" "$work/err"'

[ "$failures" -eq 0 ] && echo "generated CLI checks passed"
exit "$failures"
