#!/usr/bin/env bash
# The generated program's command line: help, unknown options, the mode of
# a new output, what it prints where (quiet off a terminal, a line per file
# on one, the report with -v or --report, -l on standard output), a closed
# pipe and a full disk.
# Usage: generated_cli_test.sh COMP GOLDEN_TCZ_DIR
#   GOLDEN_TCZ_DIR holds vpc3.tcz and vpc3.list, what `COMP -l` prints of it.
set -u
comp=$1 goldens=$2
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
# zstd give it (not mkstemp's 0600): compressed from standard input, and
# decompressed from it.
head -c 1000 /dev/urandom >"$work/small"
for mask in 022 077; do
    want=$(printf '%o' $((0666 & ~0$mask)))
    (umask $mask && "$comp" -q -o "$work/small.$mask.tcz" - <"$work/small") 2>"$work/err"
    check "umask $mask: -o from stdin gives mode $want ($(stat -c %a "$work/small.$mask.tcz" 2>&1))" \
        '[ "$(stat -c %a "$work/small.$mask.tcz")" = "$want" ]'
    (umask $mask && "$comp" -d -o "$work/small.$mask" - <"$work/small.$mask.tcz") 2>"$work/err"
    check "umask $mask: -d -o from stdin gives mode $want ($(stat -c %a "$work/small.$mask" 2>&1))" \
        '[ "$(stat -c %a "$work/small.$mask")" = "$want" ] && cmp -s "$work/small.$mask" "$work/small"'
done

# Off a terminal, without -v, nothing but errors and warnings: compressing
# and decompressing files or filters, testing. The trace: a header and 3000
# records of random bytes, too few for the warning that predictions miss.
head -c 36004 /dev/urandom >"$work/trace"
cp "$work/trace" "$work/trace.orig"
"$comp" "$work/trace" 2>"$work/err"
check "compressing a file prints nothing off a terminal: $(cat "$work/err")" '[ $? -eq 0 ] && [ ! -s "$work/err" ]'
"$comp" -d "$work/trace.tcz" 2>"$work/err"
check "decompressing a file prints nothing: $(cat "$work/err")" '[ ! -s "$work/err" ] && cmp -s "$work/trace" "$work/trace.orig"'
"$comp" -c "$work/trace" >"$work/trace.tcz" 2>"$work/err"
check "compressing to stdout prints nothing: $(cat "$work/err")" '[ ! -s "$work/err" ]'
"$comp" -t "$work/trace.tcz" 2>"$work/err"
check "testing prints nothing: $(cat "$work/err")" '[ ! -s "$work/err" ]'

# -v: a line per file wherever stderr goes; --report (or -v) the predictor
# report, the stream table and the summary after compressing.
"$comp" -v -k -f "$work/trace" 2>"$work/err"
check "-v: the report, then the summary line: $(cat "$work/err")" \
    'grep -q "^Field 1 (32-bit, PC): 3000 values" "$work/err" && grep -q "^  field_2_misses " "$work/err" &&
     tail -1 "$work/err" | grep -q "^$name: $work/trace -> $work/trace.tcz: 36004 bytes in, [0-9]* bytes out, ratio [0-9.]* (3000 records in 1 blocks)$"'
"$comp" --report -c "$work/trace" 2>"$work/report" >/dev/null
check "--report: the report of -v, naming stdout: $(tail -1 "$work/report")" \
    'diff <(sed "s|$work/trace.tcz|(stdout)|" "$work/err") "$work/report" >/dev/null'
"$comp" -v -d -c "$work/trace.tcz" 2>"$work/err" >/dev/null
check "-v -d: one line naming the file: $(cat "$work/err")" \
    '[ "$(cat "$work/err")" = "$name: $work/trace.tcz -> (stdout): $(stat -c %s "$work/trace.tcz") bytes in, 36004 bytes out (3000 records)" ]'
"$comp" -q -v --report -k -f "$work/trace" 2>"$work/err"
check "-q silences -v and --report: $(cat "$work/err")" '[ ! -s "$work/err" ]'

# On a terminal (script(1) gives the program one), as zstd: one line per
# file written to a file, none when writing standard output.
if command -v script >/dev/null; then
    script -qec "\"$comp\" -k -f \"$work/trace\"; \"$comp\" -c \"$work/trace\" >/dev/null; echo status=\$?" /dev/null \
        | tr -d '\r' | sed 's/\x1b\[K//g' >"$work/tty"
    check "a terminal shows exactly one summary line and the status: $(cat -v "$work/tty")" \
        '[ "$(grep -c . "$work/tty")" -eq 2 ] &&
         grep -q "^$name: $work/trace -> $work/trace.tcz: 36004 bytes in, [0-9]* bytes out, ratio [0-9.]* (3000 records in 1 blocks)$" "$work/tty" &&
         grep -qx "status=0" "$work/tty"'
    packed=$(stat -c %s "$work/trace.tcz")
    script -qec "\"$comp\" -d -f \"$work/trace.tcz\"" /dev/null | tr -d '\r' >"$work/tty"
    check "a terminal shows what decompression made: $(cat -v "$work/tty")" \
        '[ "$(cat "$work/tty")" = "$name: $work/trace.tcz -> $work/trace: $packed bytes in, 36004 bytes out (3000 records)" ]'
else
    echo "no script(1): the terminal checks are left to the unit test of plan_messages"
fi

# -l prints on standard output, exactly the listing pinned beside the golden
# .tcz; its errors go to standard error.
"$comp" -l <"$goldens/vpc3.tcz" >"$work/list" 2>"$work/err"
check "-l of the golden vpc3.tcz on stdout: $(diff "$goldens/vpc3.list" "$work/list" | head -5)" \
    '[ $? -eq 0 ] && [ ! -s "$work/err" ] && cmp -s "$goldens/vpc3.list" "$work/list"'
"$comp" -l "$work/small" >"$work/list" 2>"$work/err"
check "-l of a file that is not a .tcz: the error on stderr, nothing on stdout" \
    '[ $? -eq 1 ] && [ ! -s "$work/list" ] && [ "$(cat "$work/err")" = "$name: $work/small: error: not a .tcz file (bad magic)" ]'

# A reader that goes away ends the writer quietly by SIGPIPE (status 141 in
# bash), as xz: compressing and decompressing to a pipe that head closes.
head -c 3000000 /dev/urandom >"$work/input"
"$comp" <"$work/input" 2>"$work/err" | head -c 10 >/dev/null
status=${PIPESTATUS[0]}
check "compressing into a closed pipe dies of SIGPIPE (status $status: $(cat "$work/err"))" \
    '[ $status -eq 141 ] && [ ! -s "$work/err" ]'
"$comp" -q -c "$work/input" >"$work/input.tcz"
"$comp" -dc "$work/input.tcz" 2>"$work/err" | head -c 10 >/dev/null
status=${PIPESTATUS[0]}
check "decompressing into a closed pipe dies of SIGPIPE (status $status: $(cat "$work/err"))" \
    '[ $status -eq 141 ] && [ ! -s "$work/err" ]'
# Even when the parent ignores SIGPIPE (the shell then gives the child the
# same), the program does not turn it into an error.
(trap '' PIPE && "$comp" -dc "$work/input.tcz" 2>"$work/err" | head -c 10 >/dev/null; echo "${PIPESTATUS[0]}" >"$work/status")
status=$(cat "$work/status")
check "with SIGPIPE ignored by the parent, still SIGPIPE (status $status: $(cat "$work/err"))" \
    '[ $status -eq 141 ] && [ ! -s "$work/err" ]'

# A genuine write error is one line and exit status 1.
if [ -w /dev/full ]; then
    "$comp" -dc "$work/input.tcz" >/dev/full 2>"$work/err"
    status=$?
    check "a full disk gives exit 1 and one line (status $status: $(cat "$work/err"))" \
        '[ $status -eq 1 ] && [ "$(cat "$work/err")" = "$name: $work/input.tcz: error: write error: No space left on device" ]'
fi

[ "$failures" -eq 0 ] && echo "generated CLI checks passed"
exit "$failures"
