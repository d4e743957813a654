#!/usr/bin/env bash
# Corrupted and truncated .tcz files are refused: for bytes flipped at many
# positions and truncations at many lengths, decompression must exit 1 with a
# one-line "NAME: error: ..." message, never crash, and whatever it wrote
# before noticing must be a prefix of the original trace (verified blocks only).
# Under the sanitizers a quarter of the places (the fuzzers damage the same
# decoder's input there too, twenty thousand times).
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

# expect_refusal LABEL: decompresses $work/bad.tcz and checks the outcome.
expect_refusal() {
    cases=$((cases + 1))
    "$comp" -d <"$work/bad.tcz" >"$work/out" 2>"$work/err"
    local status=$?
    local problem=""
    if [ "$status" -ne 1 ]; then
        problem="exit status $status"
    elif [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q "^$name: error: " "$work/err"; then
        problem="message is not one '$name: error:' line"
    elif ! cmp -s -n "$(stat -c %s "$work/out")" "$work/out" "$work/trace"; then
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
index=0
for position in $positions; do
    mask=${masks[$((index % 4))]}
    index=$((index + 1))
    cp "$work/good.tcz" "$work/bad.tcz"
    byte=$(od -An -tu1 -j "$position" -N1 "$work/good.tcz" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ mask)))" | dd of="$work/bad.tcz" bs=1 seek="$position" conv=notrunc status=none
    expect_refusal "flip byte $position by $mask"
done

lengths=$(seq 0 "$step" $((size < 256 ? size - 1 : 255)); [ "$size" -gt 256 ] && seq 256 $(((size - 256) / (spread * 2 / 3) + 1)) $((size - 1)); echo $((size - 1)))
for length in $lengths; do
    head -c "$length" "$work/good.tcz" >"$work/bad.tcz"
    expect_refusal "truncate to $length of $size bytes"
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
