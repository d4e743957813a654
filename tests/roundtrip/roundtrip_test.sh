#!/usr/bin/env bash
# Round-trips many inputs through a generated compressor, byte-exact, and
# checks that compression is deterministic and that the usage report's counts
# add up to the number of records of every field.
# Usage: roundtrip_test.sh COMP SYNTH_TRACE TCGEN SPEC [--large]
set -u
comp=$1 synth=$2 tcgen=$3 spec=$4 large=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checked=0

# The record layout, read back from the spec's canonical form.
canonical=$("$tcgen" --canonical "$spec") || { echo "FAIL: tcgen --canonical $spec"; exit 1; }
fields=$(sed -n 's/^\([0-9]*\)-Bit Field .*/\1/p' <<<"$canonical" | paste -sd, -)
field_count=$(tr ',' '\n' <<<"$fields" | wc -l)
header_bits=$(sed -n 's/^\([0-9]*\)-Bit Header;$/\1/p' <<<"$canonical")
header=$((header_bits / 8))
record=0
for bits in ${fields//,/ }; do record=$((record + bits / 8)); done

fail() {
    echo "FAIL [$1]: $2"
    failures=$((failures + 1))
}

# round_trip NAME [OPTION]...: compresses $work/NAME with the options,
# decompresses, compares.
round_trip() {
    local name=$1 input=$work/$1
    shift
    checked=$((checked + 1))
    if ! "$comp" --report "$@" <"$input" >"$work/$name.tcz" 2>"$work/$name.report"; then
        fail "$name" "compression failed: $(head -3 "$work/$name.report")"
        return
    fi
    if ! "$comp" -d <"$work/$name.tcz" >"$work/$name.out" 2>"$work/$name.err"; then
        fail "$name" "decompression failed: $(head -3 "$work/$name.err")"
        return
    fi
    cmp -s "$input" "$work/$name.out" || fail "$name" "decompressed output differs from the input"
    [ ! -s "$work/$name.err" ] || fail "$name" "decompression wrote to stderr: $(head -3 "$work/$name.err")"
    # Without --report: the same bytes, whether the report is printed or not.
    # (Not again under the sanitizers: the same code ran the first time.)
    if [ -z "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then
        "$comp" "$@" <"$input" 2>/dev/null | cmp -s - "$work/$name.tcz" || fail "$name" "compression is not deterministic"
    fi
    check_report "$name" "$(stat -c %s "$input")"
    rm -f "$work/$name.tcz" "$work/$name.out"
}

# The report has one "Field N (...): COUNT values" line per field followed by
# its code rows, and a line "whole-record runs: C of N records copied ...":
# N is the number of records, and every field's hits add up to the N - C
# records coded field by field. A spec coding records as ids adds a line
# "record ids: R records as ids, F first appearances ...": R is the number
# of records, and the fields (and the runs line) see the F alone.
check_report() {
    local name=$1 size=$2
    local records=0
    [ "$size" -ge "$header" ] && records=$(((size - header) / record))
    local summary
    summary=$(awk -v records="$records" -v fields="$field_count" '
        /^Field [0-9]+ \(/ { field++; total[field] = $NF == "values" ? $(NF - 1) : -1; next }
        field && $1 ~ /^[0-9]+$/ && NF >= 4 { sum[field] += $(NF - 1) }
        /^whole-record runs: [0-9]+ of [0-9]+ records/ { copied = $3; all = $5; runs_line++ }
        /^record ids: [0-9]+ records as ids, [0-9]+ first appearances/ { as_ids = $3; fresh = $7; ids_line++ }
        END {
            if (ids_line > 1) bad = bad " ids lines:" ids_line
            if (ids_line == 1) {
                if (as_ids != records) bad = bad " ids line counts " as_ids
                records = fresh
            }
            if (runs_line != 1) bad = bad " runs line:" runs_line
            if (all != records) bad = bad " runs line counts " all
            for (f = 1; f <= field; f++)
                if (sum[f] != records - copied || total[f] != records - copied)
                    bad = bad " field" f ":" sum[f] "/" total[f] "+" copied
            if (field != fields) bad = bad " fields:" field
            print bad
        }' "$work/$name.report")
    [ -z "$summary" ] || fail "$name" "usage report does not add up to $records records:$summary"
}

synth() {
    local name=$1
    shift
    "$synth" --fields="$fields" --header="$header" "$@" >"$work/$name" || fail "$name" "synth_trace failed"
}

: >"$work/empty"
round_trip empty
printf 'x' >"$work/one_byte"
round_trip one_byte
if [ "$header" -gt 1 ]; then
    head -c $((header - 1)) /dev/urandom >"$work/shorter_than_header"
    round_trip shorter_than_header
fi
synth header_only --records=0
round_trip header_only
synth one_record --records=1
round_trip one_record
for tail in 1 $((record - 1)); do
    [ "$tail" -ge 1 ] && [ "$tail" -lt "$record" ] || continue
    synth "tail_$tail" --records=777 --tail="$tail"
    round_trip "tail_$tail"
done
for pattern in stride repeat alternate sequence random mixed; do
    synth "$pattern" --records=20000 --pattern="$pattern" --seed=7
    round_trip "$pattern"
done
# Every back-end alone, as --backend=NAME forces it: by default each stream
# gets the smaller of LZMA and bzip2, so zstd would otherwise go untested.
for backend in bzip2 lzma zstd; do
    round_trip mixed --backend="$backend"
done
# Every level: -0 codes every stream with bzip2, -1 .. -8 choose among more
# back-ends with more effort (7 and 8 in larger blocks), -9 adds the
# context-mixing back-end. Under the sanitizers, one level of each kind.
levels="0 1 2 3 4 5 6 7 8 9"
if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then levels="0 7 9"; fi
for level in $levels; do
    round_trip mixed "-$level"
done
head -c 100003 /dev/urandom >"$work/random_bytes"
round_trip random_bytes
round_trip random_bytes --backend=zstd
if [ "$large" = --large ]; then
    # Five blocks of 2 MiB, so that predictor state carries across blocks,
    # and one block of the default size. Under the sanitizers, where it is
    # coded six times at a tenth of the speed, five blocks of 512 KiB.
    block_kib=2048
    if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then block_kib=512; fi
    synth multi_block --records=$(((block_kib * 9 / 2 << 10) / record + 5)) --tail=$((record > 1 ? 1 : 0)) --seed=3
    round_trip multi_block --block-size=${block_kib}KiB
    round_trip multi_block
    # Decoded on one thread and on four as by default: the same records.
    "$comp" --block-size=${block_kib}KiB <"$work/multi_block" >"$work/multi_block.tcz" 2>/dev/null
    for threads in 1 4; do
        checked=$((checked + 1))
        if ! "$comp" -d -T$threads <"$work/multi_block.tcz" >"$work/multi_block.out" 2>"$work/multi_block.err"; then
            fail multi_block "decompression with -T$threads failed: $(head -3 "$work/multi_block.err")"
        else
            cmp -s "$work/multi_block" "$work/multi_block.out" || fail multi_block "-T$threads: output differs"
        fi
    done
fi

if [ "$failures" -ne 0 ]; then
    echo "$failures of $checked round trips failed for $(basename "$spec")"
    exit 1
fi
echo "$checked round trips byte-exact for $(basename "$spec")"
