#!/usr/bin/env bash
# Decompression with -T on files with restart points: every back-end and
# restart interval round-trips byte for byte on 1, 2 and 3 threads, as do
# blocks of every kind (without runs, with runs, with record matches), and a
# damaged file gives on 2 and 3 threads the error text, the exit status and
# the output prefix that it gives on one. COMP is TCgen(A)'s compressor,
# MATCH_COMP one of the same record format whose spec has MATCH. Under the
# sanitizers (where every table comes from calloc, not a mapping whose pages
# a restart hands back) the long trace is shorter, the back-ends go with
# two restart intervals, not four, a quarter of the damaged files are
# tried, the trace of tiny groups has 300 records, not 3000, and the blocks
# of every kind are a quarter of their size.
# Usage: thread_groups_test.sh COMP SYNTH_TRACE MATCH_COMP
set -u
comp=$(realpath "$1") synth=$(realpath "$2") match_comp=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# decodes_alike COMPRESSOR CASE TRACE TCZ THREADS...: TCZ decoded on each
# thread count gives TRACE back; CASE names it in failures.
decodes_alike() {
    local compressor=$1 case=$2 trace=$3 tcz=$4
    shift 4
    for threads in "$@"; do
        "$compressor" -dc -T"$threads" <"$tcz" >out 2>err || fail "$case, -T$threads: $(head -2 err)"
        cmp -s out "$trace" || fail "$case, -T$threads does not give the trace back"
    done
}

# 60000 records of 12 bytes in blocks of 24 KiB: 30 blocks.
"$synth" --fields=32,64 --header=4 --records=60000 --tail=5 --pattern=mixed --seed=21 >trace

long_records=800000 damage_places=97 restarts="0 1 2 3" tiny_records=3000 kinds_scale=4
if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then
    long_records=300000 damage_places=25 restarts="1 3" tiny_records=300 kinds_scale=1
fi
for backend in bzip2 lzma zstd; do
    for restart in $restarts; do
        "$comp" -q -c --backend=$backend --block-size=24KiB --restart-blocks=$restart <trace >trace.tcz \
            || fail "cannot compress ($backend, restart $restart)"
        for threads in 1 2 3; do
            "$comp" -dc -T$threads <trace.tcz >out 2>err || fail "-T$threads ($backend, restart $restart): $(head -2 err)"
            cmp -s out trace || fail "-T$threads ($backend, restart $restart) does not give the trace back"
            "$comp" -t -T$threads <trace.tcz 2>err || fail "-t -T$threads ($backend, restart $restart): $(head -2 err)"
        done
    done
done

# Groups on both sides of a sixteenth of the tables (1.5 MiB for COMP's
# 24 MiB, 2.75 MiB for MATCH_COMP's 44 MiB): the 1 MiB groups restart by
# zeroing the pages they touched, marked as their lines were taken; the
# 3 MiB groups mark nothing and empty the tables whole, handing the pages
# back on one thread and clearing them in place (memset) on several. With
# a restart that missed a table, the codecs of 2 and 3 threads, which
# decode other groups in between, would not give the trace back.
"$synth" --fields=32,64 --header=4 --records=$long_records --pattern=mixed --seed=22 >long
for compressor in "$comp" "$match_comp"; do
    name=$(basename "$compressor")
    for restart in 1 3; do
        "$compressor" -q -c --block-size=1MiB --restart-blocks=$restart <long >long.tcz \
            || fail "$name: cannot compress long"
        decodes_alike "$compressor" "$name, long, restart $restart" long long.tcz 1 2 3
    done
done

# Tiny restart groups (a record a block, each its own group): restarts
# clear only the pages a group touched, and groups this small are decoded
# on one thread; the .tcz and the trace are the same whatever the threads.
"$synth" --fields=32,64 --header=4 --records=$tiny_records --tail=5 --pattern=mixed --seed=23 >tiny
for block in 12 36; do
    for threads in 1 0 4; do
        "$comp" -q -c -T$threads --block-size=$block --restart-blocks=1 <tiny >tiny.$threads.tcz \
            || fail "cannot compress tiny ($block-byte blocks, -T$threads)"
        cmp -s tiny.$threads.tcz tiny.1.tcz || fail "tiny, $block-byte blocks: the .tcz of -T$threads differs from -T1's"
        "$comp" -dc -T$threads <tiny.1.tcz >out 2>err || fail "tiny, $block-byte blocks, -T$threads: $(head -2 err)"
        cmp -s out tiny || fail "tiny, $block-byte blocks, -T$threads does not give the trace back"
    done
done

# MATCH's window and key table clear only what the group before wrote: on
# 2 and 3 threads each codec decodes groups in another order than the
# writer coded them, so whatever a restart left behind would show.
for restart in 0 1 3; do
    "$match_comp" -q -c --block-size=24KiB --restart-blocks=$restart <trace >match.tcz \
        || fail "MATCH: cannot compress (restart $restart)"
    decodes_alike "$match_comp" "MATCH, restart $restart" trace match.tcz 1 2 3
done

# Blocks of every kind the writer chooses: blocks of 21845 records (5461
# under the sanitizers) without runs, with runs learnt by their tails (whole
# at -9), with record matches (2000 records, then their 4-record pieces over
# again in shuffled orders), the short last block without runs, with and
# without restart points, at a level of each kind; the same output on 1, the
# default and 4 threads.
"$synth" --fields=32,64 --header=0 --records=$((kinds_scale * 10000)) --pattern=random --seed=24 >fields.random
"$synth" --fields=32,64 --header=0 --records=$((kinds_scale * 10000)) --pattern=repeat --seed=25 >fields.repeat
"$synth" --fields=32,64 --header=0 --records=$((kinds_scale * 500)) --pattern=random --seed=26 >fields.few
mkdir pieces
split -b 48 -a 3 fields.few pieces/
for copy in $(seq 11); do
    ls pieces/* | shuf --random-source=<(yes "$copy")
done | xargs cat >fields.shuffled
{ printf 'HDR!'; cat fields.random fields.repeat fields.few fields.shuffled fields.random; printf 'xyz'; } >fields
for compressor in "$comp" "$match_comp"; do
    name=$(basename "$compressor")
    for restart in 0 2; do
        for level in 1 6 9; do
            "$compressor" -q -c -$level --block-size=$((kinds_scale * 64))KiB --restart-blocks=$restart <fields >fields.tcz \
                || fail "$name: cannot compress fields (-$level, restart $restart)"
            decodes_alike "$compressor" "$name, fields, -$level, restart $restart" fields fields.tcz 1 0 4
        done
    done
done

# Damage at positions spread over the file, most of them in later groups.
"$comp" -q -c --block-size=24KiB --restart-blocks=2 <trace >good.tcz || fail "cannot compress"
size=$(stat -c %s good.tcz)
cases=0
for position in $(seq 7 $((size / damage_places + 1)) $((size - 1))); do
    cp good.tcz bad.tcz
    byte=$(od -An -tu1 -j "$position" -N1 good.tcz | tr -d ' ')
    printf "$(printf '\\%03o' $(((byte + 1) % 256)))" | dd of=bad.tcz bs=1 seek="$position" conv=notrunc status=none
    "$comp" -dc -T1 <bad.tcz >one.out 2>one.err
    one_status=$?
    for threads in 2 3; do
        "$comp" -dc -T$threads <bad.tcz >many.out 2>many.err
        many_status=$?
        cases=$((cases + 1))
        [ "$many_status" -eq "$one_status" ] || fail "byte $position, -T$threads: exit $many_status, -T1 $one_status"
        cmp -s many.err one.err || fail "byte $position, -T$threads: '$(cat many.err)', -T1 '$(cat one.err)'"
        cmp -s many.out one.out || fail "byte $position, -T$threads: the output differs from -T1's"
    done
done
[ "$cases" -ge $((damage_places * 3 / 2)) ] || fail "only $cases damaged files tried"

if [ "$failures" -ne 0 ]; then
    echo "$failures failures"
    exit 1
fi
echo "ok: round trips and $cases damaged files"
