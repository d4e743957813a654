#!/usr/bin/env bash
# Corrupted and truncated .tcz files are refused: for bytes flipped at many
# positions and truncations at many lengths, decompression must exit 1 with a
# one-line "NAME: error: ..." message, never crash, and whatever it wrote
# before noticing must be a prefix of the original trace (verified blocks only).
# Under the sanitizers a quarter of the places (the fuzzers damage the same
# decoder's input there too, twenty thousand times). The damaged files are
# written by one Python process and checked with the shell's builtins, so
# that each case starts one program, the decompressor.
# Usage: corruption_test.sh COMP SYNTH_TRACE
set -u
comp=$1 synth=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
cases=0
name=$(basename "$comp")

"$synth" --fields=32,64 --header=4 --records=30000 --tail=5 --seed=11 >"$work/trace"
"$comp" <"$work/trace" >"$work/good.tcz" 2>/dev/null || { echo "FAIL: cannot compress"; exit 1; }
size=$(stat -c %s "$work/good.tcz")

# expect_refusal LABEL [FILE]: decompresses FILE (default $work/bad.tcz)
# and checks the outcome.
expect_refusal() {
    cases=$((cases + 1))
    "$comp" -d <"${2:-$work/bad.tcz}" >"$work/out" 2>"$work/err"
    local status=$?
    local problem="" message=()
    mapfile -t message <"$work/err"
    if [ "$status" -ne 1 ]; then
        problem="exit status $status"
    elif [ "${#message[@]}" -ne 1 ] || [[ ${message[0]} != "$name: error: "* ]]; then
        problem="message is not one '$name: error:' line"
    elif [ -s "$work/out" ] && ! cmp -s -n "$(stat -c %s "$work/out")" "$work/out" "$work/trace"; then
        problem="wrote bytes that are not the original trace"
    fi
    if [ -n "$problem" ]; then
        failures=$((failures + 1))
        [ "$failures" -le 10 ] && echo "FAIL [$1]: $problem: $(head -c 300 "$work/err")"
    fi
}

# Every byte of the first 256 (magic, preamble, spec, first stream headers),
# then positions spread over the rest of the file.
step=1 spread=300
if [ -n "${TCGEN_TEST_UNDER_SANITIZERS:-}" ]; then step=4 spread=75; fi
positions=$(seq 0 "$step" $((size < 256 ? size - 1 : 255)); [ "$size" -gt 256 ] && seq 256 $(((size - 256) / spread + 1)) $((size - 1)); echo $((size - 1)))
masks=(1 128 255 16)
lengths=$(seq 0 "$step" $((size < 256 ? size - 1 : 255)); [ "$size" -gt 256 ] && seq 256 $(((size - 256) / (spread * 2 / 3) + 1)) $((size - 1)); echo $((size - 1)))
# damaged/flip-I (the I-th position's byte xor the masks in turn) and
# damaged/cut-N (the first N bytes).
mkdir "$work/damaged"
python3 - "$work/good.tcz" "$work/damaged" "${masks[*]}" "$(echo $positions)" "$(echo $lengths)" <<'PY' ||
import sys
good, directory, masks, positions, lengths = sys.argv[1:]
data = open(good, "rb").read()
masks = [int(mask) for mask in masks.split()]
for index, position in enumerate(int(p) for p in positions.split()):
    bad = bytearray(data)
    bad[position] ^= masks[index % len(masks)]
    open(f"{directory}/flip-{index}", "wb").write(bad)
for length in (int(n) for n in lengths.split()):
    open(f"{directory}/cut-{length}", "wb").write(data[:length])
PY
    { echo "FAIL: cannot write the damaged files"; exit 1; }
index=0
for position in $positions; do
    mask=${masks[$((index % 4))]}
    expect_refusal "flip byte $position by $mask" "$work/damaged/flip-$index"
    index=$((index + 1))
done
for length in $lengths; do
    expect_refusal "truncate to $length of $size bytes" "$work/damaged/cut-$length"
done

cat "$work/good.tcz" - <<<"trailing garbage" >"$work/bad.tcz"
expect_refusal "trailing garbage"
printf 'not a tcz file at all\n' >"$work/bad.tcz"
expect_refusal "not a .tcz"

if [ "$failures" -ne 0 ]; then
    echo "$failures of $cases corrupted inputs were not refused properly"
    exit 1
fi
echo "all $cases corrupted inputs refused"
