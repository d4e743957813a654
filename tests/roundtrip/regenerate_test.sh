#!/usr/bin/env bash
# A .tcz regenerates its own decompressor: for each of the four encodings of a
# spec (type minimisation and smart update on or off), a compressor built
# the way a user builds it writes a .tcz; `tcgen FILE.tcz` and
# `comp --spec | tcgen -` must both give a decompressor that restores the
# input byte for byte. For every one of the 32 --disable combinations, the
# compressor's fingerprint must be that of its encoding's, so that the .tcz
# it writes (byte-identical within an encoding: pass_variants_test.sh)
# regenerates the same way.
# Built unoptimised by $CXX, else c++ (bytes are checked, not speed or
# warnings); a regenerated source that
# is the compressor's own, as it is today, is not built a second time.
# Usage: regenerate_test.sh TCGEN SYNTH_TRACE SPEC [CXXFLAGS...]
set -u
tcgen=$1 synth=$2 spec=$3
shift 3
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


fingerprint() {
    sed -n 's|^// Spec fingerprint: ||p' "$1"
}

build() {
    # shellcheck disable=SC2046  # the flags are words
    "${CXX:-c++}" -std=c++17 -O0 -Wall -Wextra -Werror "${cxxflags[@]}" -o "$1" "$1.cpp" -pthread $("$link_flags" "$1.cpp")
}

read_layout "$spec" || { echo "FAIL: tcgen --canonical $spec"; exit 1; }
"$synth" --fields="$fields" --header="$header_bytes" --records=3000 --tail=1 --seed=5 >"$work/input"

# The encodings: masks over type-minimisation (8) and smart-update (16).
for encoding in 0 8 16 24; do
    label="--disable=$(disabled_list "$encoding")"
    list=$(disabled_list "$encoding")
    "$tcgen" ${list:+--disable=$list} -o "$work/comp_$encoding.cpp" "$spec" || { fail "tcgen $label"; continue; }
    build "$work/comp_$encoding" || { fail "$label: compiling the compressor"; continue; }
    "$work/comp_$encoding" <"$work/input" >"$work/$encoding.tcz" 2>/dev/null || { fail "$label: compression"; continue; }

    "$tcgen" -o "$work/from_tcz_$encoding.cpp" "$work/$encoding.tcz" || { fail "$label: tcgen FILE.tcz"; continue; }
    if cmp -s "$work/from_tcz_$encoding.cpp" "$work/comp_$encoding.cpp"; then
        cp "$work/comp_$encoding" "$work/from_tcz_$encoding"
    else
        build "$work/from_tcz_$encoding" || { fail "$label: compiling the regenerated decompressor"; continue; }
    fi
    "$work/from_tcz_$encoding" -d <"$work/$encoding.tcz" | cmp -s - "$work/input" \
        || fail "$label: the decompressor regenerated from the .tcz does not restore the input"

    "$work/comp_$encoding" --spec | "$tcgen" - >"$work/from_spec_$encoding.cpp" || { fail "$label: comp --spec | tcgen -"; continue; }
    cmp -s "$work/from_spec_$encoding.cpp" "$work/from_tcz_$encoding.cpp" \
        || fail "$label: comp --spec | tcgen - differs from tcgen FILE.tcz"
done

for mask in $(seq 0 31); do
    list=$(disabled_list "$mask")
    "$tcgen" ${list:+--disable=$list} -o "$work/variant.cpp" "$spec" || { fail "tcgen --disable=$list"; continue; }
    encoding=$((mask & 24))
    [ "$(fingerprint "$work/variant.cpp")" = "$(fingerprint "$work/from_tcz_$encoding.cpp")" ] \
        || fail "--disable=$list: fingerprint differs from its encoding's regenerated decompressor"
done

if [ "$failures" -ne 0 ]; then
    echo "$failures failures regenerating decompressors of $(basename "$spec")"
    exit 1
fi
echo "every encoding of $(basename "$spec") regenerates its decompressor from a .tcz and from comp --spec"
