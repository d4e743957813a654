#!/usr/bin/env bash
# The generated program's command line, invocation by invocation, against
# what xz and zstd users expect: file arguments and the .tcz suffix, -c -k -f
# -o -q -v -t -l, concatenated files, refusing a terminal, output that
# appears only when complete, errors with the file's name and exit status 1.
# Usage: xz_cli_test.sh COMP SYNTH_TRACE
set -u
comp=$(realpath "$1") synth=$(realpath "$2")
name=$(basename "$comp")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect STATUS DESCRIPTION -- COMMAND...: runs COMMAND (stdout to out,
# stderr to err) and checks its exit status.
expect() {
    local status=$1 description=$2
    shift 3
    "$@" >out 2>err
    local got=$?
    [ "$got" -eq "$status" ] || fail "$description: exit $got, expected $status; stderr: $(head -3 err)"
}
# stderr must be exactly this text.
expect_err() { [ "$(cat err)" = "$1" ] || fail "stderr was '$(cat err)', expected '$1'"; }
same() { cmp -s "$1" "$2" || fail "$1 and $2 differ"; }
exists() { [ -e "$1" ] || fail "$1 is missing"; }
absent() { [ ! -e "$1" ] || fail "$1 should not exist"; }

"$synth" --fields=32,64 --header=4 --records=20000 --pattern=mixed --seed=5 >trace.orig
"$synth" --fields=32,64 --header=4 --records=3000 --tail=5 --pattern=stride --seed=6 >other.orig
cp trace.orig trace

# comp FILE -> FILE.tcz, the input removed; comp -d FILE.tcz -> FILE. Off a
# terminal they print nothing; -v names each file and what became of it.
expect 0 "compress a file" -- "$comp" trace
exists trace.tcz; absent trace
[ ! -s err ] || fail "compressing printed off a terminal: $(head -3 err)"
expect 0 "decompress a file" -- "$comp" -d trace.tcz
exists trace; absent trace.tcz; same trace trace.orig
[ ! -s err ] || fail "decompressing printed off a terminal: $(head -3 err)"
expect 0 "compress a file -v" -- "$comp" -v trace
grep -q "^$name: trace -> trace.tcz: .* bytes in, .* bytes out, ratio" err || fail "no summary naming the file: $(tail -1 err)"
grep -q "field_2_misses" err || fail "the report lacks the stream table"
expect 0 "decompress a file -v" -- "$comp" -v -d trace.tcz
grep -q "^$name: trace.tcz -> trace: [0-9]* bytes in, 240004 bytes out (20000 records)$" err \
    || fail "-v -d: $(cat err)"
same trace trace.orig

# -k keeps the input; -q prints nothing; the output keeps the input's mode.
chmod 640 trace
expect 0 "compress -k -q" -- "$comp" -k -q trace
exists trace; exists trace.tcz
[ ! -s err ] || fail "-q printed: $(cat err)"
[ "$(stat -c %a trace.tcz)" = 640 ] || fail "trace.tcz has mode $(stat -c %a trace.tcz), not the input's 640"

# An existing output is never replaced without -f, and the input survives.
expect 1 "compress onto an existing .tcz" -- "$comp" -k trace
expect_err "$name: trace: error: 'trace.tcz' already exists (use -f to overwrite it)"
cp trace.tcz kept.tcz
expect 0 "compress -f onto it" -- "$comp" -kf trace
same trace.tcz kept.tcz
expect 1 "decompress onto an existing file" -- "$comp" -d trace.tcz
expect_err "$name: trace.tcz: error: 'trace' already exists (use -f to overwrite it)"
exists trace.tcz

# -c writes to standard output and keeps the input; so does -o FILE.
expect 0 "compress -c" -- "$comp" -c -q trace
same out trace.tcz; exists trace
expect 0 "decompress -dc" -- "$comp" -dc trace.tcz
same out trace.orig; exists trace.tcz
expect 0 "compress -o" -- "$comp" -q -o named.tcz trace
same named.tcz trace.tcz; exists trace
expect 0 "decompress -d -o" -- "$comp" -d -o restored trace.tcz
same restored trace.orig
expect 0 "decompress --output=" -- "$comp" -d --output=restored2 trace.tcz
same restored2 trace.orig
expect 1 "-o onto the input" -- "$comp" -f -o trace trace
expect_err "$name: trace: error: the output 'trace' is the input file"
same trace trace.orig
expect 0 "-o a device writes through it" -- "$comp" -q -o /dev/null trace
[ -c /dev/null ] || fail "/dev/null is no longer a device"

# Standard input to standard output, and "-".
expect 0 "filter" -- bash -c "\"$comp\" -q <trace | \"$comp\" -d >filtered"
same filtered trace.orig
expect 0 "- is standard input" -- bash -c "\"$comp\" -q - <trace >dash.tcz"
same dash.tcz trace.tcz

# -t verifies and writes nothing; a damaged file fails it.
expect 0 "test a good file" -- "$comp" -t trace.tcz
[ ! -s out ] || fail "-t wrote output"
exists trace.tcz
cp trace.tcz damaged.tcz
printf '\x55' | dd of=damaged.tcz bs=1 seek=2000 conv=notrunc 2>/dev/null
expect 1 "test a damaged file" -- "$comp" -t damaged.tcz
grep -q "^$name: damaged.tcz: error: " err || fail "-t of a damaged file: $(cat err)"
expect 1 "decompress a damaged file" -- "$comp" -d damaged.tcz
absent damaged; exists damaged.tcz
ls damaged.tmp* >/dev/null 2>&1 && fail "a temporary file was left behind"

# Killed while writing (^C, kill): neither the output nor its temporary is
# left behind, and the input stays.
mkfifo slow
("$comp" -k -q slow >/dev/null 2>&1 &
 echo $! >pid)
exec 3>slow
head -c 3000004 trace.orig >&3
sleep 1
kill -INT "$(cat pid)"
exec 3>&-
sleep 1
ls slow.tcz* >/dev/null 2>&1 && fail "a killed compression left $(ls slow.tcz*)"
rm -f slow

# -l: spec, records and the bytes of each stream, without decompressing, on
# standard output as xz -l and zstd -l.
expect 0 "list" -- "$comp" -l trace.tcz
grep -q "^trace.tcz: 20000 records of 12 bytes in 1 blocks, 240004 bytes in $(stat -c %s trace.tcz) bytes, ratio" out \
    || fail "-l first line: $(head -1 out)"
grep -q "TCgen Trace Specification;" out || fail "-l shows no spec"
grep -q "^  codes  " out || fail "-l shows no streams"
[ ! -s err ] || fail "-l printed on stderr: $(head -3 err)"

# Restart points for seeking: a trace of several blocks round-trips whatever
# the interval, and -l shows it; bad intervals are refused. (Under the
# sanitizers, where it is compressed a dozen times at a tenth of the speed,
# the trace of several blocks is half as long.)
long_records=800000
if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then long_records=400000; fi
"$synth" --fields=32,64 --header=4 --records=$long_records --pattern=mixed --seed=8 >long.orig
for restart in 0 1 2; do
    expect 0 "--restart-blocks=$restart" -- "$comp" -q -c --block-size=4MiB --restart-blocks=$restart long.orig
    mv out long.tcz
    expect 0 "decompress --restart-blocks=$restart" -- "$comp" -dc long.tcz
    same out long.orig
done
expect 0 "list a file with restarts" -- "$comp" -l long.tcz
grep -q "^  blocks of 349525 records (4194300 bytes); the predictors restart every 2 blocks (seekable)$" out \
    || fail "-l shows no restarts: $(head -3 out)"
expect 1 "a bad restart interval" -- "$comp" --restart-blocks=-1 long.orig
expect_err "$name: error: --restart-blocks needs a number of blocks (0 .. 4294967295), not '-1'"

# --block-size: whole records per block (the default is 16 MiB of them), in
# bytes or with a binary suffix; -l shows it; sizes out of range are refused.
for size in 1000000 300K 300KiB 1M 2MiB; do
    expect 0 "--block-size=$size" -- "$comp" -q -c "--block-size=$size" long.orig
    mv out sized.tcz
    expect 0 "decompress --block-size=$size" -- "$comp" -dc sized.tcz
    same out long.orig
done
expect 0 "list a file of 2 MiB blocks" -- "$comp" -l sized.tcz
blocks=$(((long_records + 174761) / 174762))  # of 2 MiB
grep -q "^sized.tcz: $long_records records of 12 bytes in $blocks blocks" out || fail "-l block count: $(head -1 out)"
grep -q "^  blocks of 174762 records (2097144 bytes); the predictors never restart$" out \
    || fail "-l records per block: $(head -3 out)"
# A block a record: under the sanitizers 2000 of the trace's records, not
# 20000 (every block sets up and checks its streams).
one_record_blocks=trace.orig
if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then
    "$synth" --fields=32,64 --header=4 --records=2000 --pattern=mixed --seed=5 >short.orig
    one_record_blocks=short.orig
fi
expect 0 "one record per block" -- "$comp" -q -c --block-size 12 "$one_record_blocks"
mv out tiny.tcz
expect 0 "decompress one record per block" -- "$comp" -dc tiny.tcz
same out "$one_record_blocks"
for size in 11 0 257MiB 1T 1.5M -4K "" 99999999999999; do
    expect 1 "--block-size=$size" -- "$comp" -c "--block-size=$size" long.orig
done
expect_err "$name: error: --block-size needs a size in bytes, with K, M or G (KiB, MiB, GiB) if wanted, not '99999999999999'"
expect 1 "a block smaller than a record" -- "$comp" -c --block-size=11 long.orig
expect_err "$name: error: --block-size needs a size from 12 bytes (one record) to 256MiB, not '11'"

# Levels -0 .. -9 (--fast, --best): below 6 LZMA searches less, 7-9 take
# larger blocks; every level's output decompresses the same way. -19 is not
# a level here.
"$comp" -q -c long.orig >default.tcz
expect 0 "-6 (the default)" -- "$comp" -q -c -6 long.orig
same out default.tcz
# At 9 every stream also tries context mixing, which codes about 0.5 MB a
# second (far less under the sanitizers): the 9s round-trip the small trace.
# The spellings of a level write its bytes (cmp), which decompress as above.
for level in -0 -1 -5 -7 -8 -9 --fast --best -9k; do
    input=long.orig
    case $level in -9* | --best) input=trace.orig ;; esac
    expect 0 "compress $level" -- "$comp" -q -c "$level" "$input"
    mv out "level$level.tcz"
    case $level in
    --fast) same level--fast.tcz level-0.tcz; continue ;;
    --best | -9k) same "level$level.tcz" level-9.tcz; continue ;;
    esac
    expect 0 "decompress $level" -- "$comp" -dc "level$level.tcz"
    same out "$input"
done
cmp -s level-1.tcz default.tcz && fail "-1 wrote what -6 writes"
expect 0 "list a file of level 9" -- "$comp" -l level-9.tcz
grep -q "^  blocks of 5592405 records (67108860 bytes); the predictors never restart$" out \
    || fail "-9 blocks: $(head -3 out)"
"$comp" -l level-7.tcz | grep -q "blocks of 2796202 records" || fail "-7 does not make 32 MiB blocks"
"$comp" -q -c -9 --block-size=2MiB trace.orig >sized9.tcz
"$comp" -l sized9.tcz | grep -q "blocks of 174762 records" || fail "--block-size does not override -9"
expect 1 "-19" -- "$comp" -c -19 long.orig
expect_err "$name: error: compression level 19 is not in 0..9 (try -h)"

# Concatenated files decompress to the concatenated traces.
"$comp" -q -c other.orig >other.tcz
cat trace.tcz other.tcz >both.tcz
expect 0 "decompress a concatenation" -- "$comp" -dc both.tcz
cat trace.orig other.orig >both.orig
same out both.orig
expect 0 "list a concatenation" -- "$comp" -l both.tcz
[ "$(grep -c 'records of 12 bytes' out)" -eq 2 ] || fail "-l of two files listed $(grep -c 'records of' out)"
cat trace.tcz other.tcz trace.tcz >three.tcz
expect 0 "test three concatenated files" -- "$comp" -t three.tcz

# Several files: each processed; an error in one does not stop the others.
cp trace.orig a; cp other.orig b
expect 1 "several files, one missing" -- "$comp" -q a missing b
exists a.tcz; exists b.tcz; absent a; absent b
expect_err "$name: missing: error: cannot open 'missing': No such file or directory"
expect 0 "decompress several" -- "$comp" -d a.tcz b.tcz
same a trace.orig; same b other.orig

# Suffixes: no double .tcz, no decompressing a name without one.
expect 1 "compress a .tcz" -- "$comp" -k trace.tcz
expect_err "$name: trace.tcz: error: already has the .tcz suffix, skipped (use -c or -o to compress it)"
expect 1 "decompress a name without .tcz" -- "$comp" -d trace
expect_err "$name: trace: error: has no .tcz suffix, skipped (use -c or -o to decompress it)"
expect 1 "a directory" -- "$comp" -c .
expect_err "$name: .: error: '.' is a directory"

# Refusing a terminal, as xz and zstd do (script(1) gives the program one).
if command -v script >/dev/null; then
    script -qec "\"$comp\" -c trace >/dev/null; \"$comp\" -q <trace; echo status=\$?" /dev/null >tty.out 2>&1
    grep -q "refusing to write compressed data to a terminal" tty.out || fail "no refusal of a terminal: $(cat tty.out)"
    grep -q "status=1" tty.out || fail "refusing a terminal does not exit 1"
    script -qec "\"$comp\" -d; echo status=\$?" /dev/null >tty.out 2>&1 </dev/null
    grep -q "refusing to read compressed data from a terminal" tty.out || fail "no refusal of a terminal as input: $(cat tty.out)"
fi

# The report warns of an input that does not fit the spec: a partial record
# at the end, or predictions that nearly always miss (random bytes).
expect 0 "a trace with a partial record" -- "$comp" -c other.orig
grep -q "warning: the input is not a whole number of 12-byte records after its header: 5 bytes left over" err \
    || fail "no warning of the partial record: $(tail -2 err)"
grep -q "missed more than half" err && fail "a structured trace was said not to fit"
head -c 120004 /dev/urandom >random
expect 0 "random bytes" -- "$comp" -c random
grep -q "^$name: warning: every field's predictions missed more than half the time: is the input in this spec's format?$" err \
    || fail "no warning for random bytes: $(tail -2 err)"

# Options: --version, grouped short options, --, unknown options.
expect 0 "--version" -- "$comp" --version
grep -q "^$name (tcgen runtime, .tcz format version [0-9]*, spec 0x[0-9a-f]*)$" out || fail "--version: $(cat out)"
cp -- trace.orig -dash
expect 0 "-- ends the options" -- "$comp" -q -- -dash
exists ./-dash.tcz; absent ./-dash
expect 1 "unknown option" -- "$comp" -Q trace
expect_err "$name: error: unknown option '-Q' (try -h)"
expect 1 "-o and -c" -- "$comp" -c -o x trace
expect_err "$name: error: -o and -c both name the output; give one"

[ "$failures" -eq 0 ] && echo "xz-style command line: all invocations behave"
exit "$failures"
