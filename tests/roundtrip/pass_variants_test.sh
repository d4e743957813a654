#!/usr/bin/env bash
# Compressors generated with optimisations turned off, built the way a user
# builds them ($CXX, else c++: comp.cpp -pthread and the -l flags its build
# line names), against the fully optimised one:
# - turning off table-sharing or fast-hash (or both) must not change a single
#   byte of the .tcz, whatever else is on or off (paper Table 2: those rows
#   keep the rate);
# - every variant built must round-trip byte-exact.
# Built unoptimised: what is checked is bytes, which the compiler's
# optimisation does not change, on inputs of a few hundred KB, and -O0
# builds in two thirds of -O1's time (the builds are the test's time).
# The variant with nothing turned off is COMP, the spec's compressor that
# the build made (the same generated source), not built again.
# Usage: pass_variants_test.sh TCGEN SYNTH_TRACE SPEC MODE COMP [CXXFLAGS...]
#   MODE: "equivalence" checks the four sharing/fast-hash variants and the
#         variant with everything off; "both-off" the same but of the
#         sharing/fast-hash variants only the one with both off (what the
#         variant specs run: the examples turn each off alone); "three-way"
#         checks ten combinations in which every three passes are seen in
#         all eight on/off states (a covering array of strength 3, in a
#         third of the builds of all 32);
#         "unoptimised" only round-trips the variant with everything off
#         (what the sanitized suite runs).
set -u
tcgen=$1 synth=$2 spec=$3 mode=$4 comp=$5
shift 5
cxxflags=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
link_flags=$(dirname "$0")/../tools/link-flags   # the back-ends' -l flags, from the generated file
# shellcheck source=pass_masks.sh
source "$(dirname "$0")/pass_masks.sh"

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}


if [ "$mode" = three-way ]; then
    masks="0 3 5 9 14 17 22 26 28 31"
elif [ "$mode" = unoptimised ]; then
    masks=31
elif [ "$mode" = both-off ]; then
    masks="0 6 31"
else
    masks="0 2 4 6 31"  # none; table-sharing; fast-hash; both; everything
fi

for mask in $masks; do
    if [ "$mask" -eq 0 ]; then
        ln -s "$comp" "$work/comp_0"
        continue
    fi
    list=$(disabled_list "$mask")
    "$tcgen" ${list:+--disable=$list} -o "$work/comp_$mask.cpp" "$spec" || { fail "tcgen --disable=$list"; continue; }
    # shellcheck disable=SC2046  # the flags are words
    "${CXX:-c++}" -std=c++17 -O0 -Wall -Wextra -Werror "${cxxflags[@]}" -o "$work/comp_$mask" "$work/comp_$mask.cpp" -pthread \
        $("$link_flags" "$work/comp_$mask.cpp") \
        || fail "compiling the compressor with --disable=$list"
done

read_layout "$spec" || { echo "FAIL: tcgen --canonical $spec"; exit 1; }
"$synth" --fields="$fields" --header="$header_bytes" --records=20000 --tail=1 --seed=9 >"$work/mixed"
"$synth" --fields="$fields" --header="$header_bytes" --records=5000 --pattern=random --seed=4 >"$work/random"

for input in mixed random; do
    for mask in $masks; do
        [ -x "$work/comp_$mask" ] || continue
        label="$input, --disable=$(disabled_list "$mask")"
        "$work/comp_$mask" <"$work/$input" >"$work/$input.$mask.tcz" 2>/dev/null || { fail "$label: compression failed"; continue; }
        "$work/comp_$mask" -d <"$work/$input.$mask.tcz" | cmp -s - "$work/$input" || fail "$label: not byte-exact"
        # Same .tcz as the variant that differs only in sharing and fast hash.
        reference=$((mask & ~6))
        if [ "$mask" -ne "$reference" ] && [ -f "$work/$input.$reference.tcz" ]; then
            cmp -s "$work/$input.$mask.tcz" "$work/$input.$reference.tcz" \
                || fail "$label: .tcz differs from --disable=$(disabled_list "$reference")"
        fi
        # Another encoding (type minimisation or smart update off): the fully
        # optimised decompressor refuses it by name, never with garbage.
        if (((mask & 24) != 0)) && [ -x "$work/comp_0" ]; then
            if "$work/comp_0" -d <"$work/$input.$mask.tcz" >"$work/out" 2>"$work/err"; then
                fail "$label: the fully optimised decompressor accepted it"
            elif ! grep -q "different spec" "$work/err" || ! grep -q "# Encoding: tcgen --disable=" "$work/err"; then
                fail "$label: refused without naming the encoding: $(head -1 "$work/err")"
            elif [ -s "$work/out" ]; then
                fail "$label: refused, but wrote output"
            fi
        fi
    done
done

count=$(wc -w <<<"$masks")
if [ "$failures" -ne 0 ]; then
    echo "$failures failures over $count variants of $(basename "$spec")"
    exit 1
fi
if [ "$mode" = unoptimised ]; then
    echo "the unoptimised variant of $(basename "$spec") round-trips"
else
    echo "$count variants of $(basename "$spec") round-trip; sharing and fast hash never change the .tcz"
fi
