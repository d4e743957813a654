#!/usr/bin/env bash
# tcgen's bidirectional back end: its diagnostics for what a bidirectional
# stream cannot honour, compared with the expected text; deterministic
# output; and the generated header and source of every spec in specs/wet/ and
# of variant specs (each predictor kind alone, orders 1-4, 8- to 64-bit
# fields, records of several fields), compiled warning-free by g++ and
# clang++ and run by a driver that walks them at random against their
# records (bidirectional_walk_driver.cpp).
# Usage: bidirectional_codegen_test.sh TCGEN SOURCE_DIR [CXXFLAGS...]
# (CXXFLAGS: the build's sanitizer flags, given to the g++ builds)
set -euo pipefail
tcgen=$(realpath "$1")
source_dir=$2
shift 2
extra_flags=("$@")
warnings=(-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# --- diagnostics -----------------------------------------------------------
cat >"$work/bad.tcg" <<'SPEC'
TCgen Trace Specification;
32-Bit Header;
64-Bit Field 1 = {L1 = 1024, L2 = 4096: FCM1[1]};
32-Bit Field 2 = {: LV[1], MATCH2[1]};
PC = Field 2;
SPEC
cat >"$work/expected" <<'TEXT'
bad.tcg:2:1: error: a bidirectional stream holds records only; it cannot keep a 32-bit header
    32-Bit Header;
    ^~~~~~~~~~~~~~
bad.tcg:3:19: error: L1 = 1024 in field 1: a bidirectional stream is one sequence per field with no PC to index its tables; use L1 = 1
    64-Bit Field 1 = {L1 = 1024, L2 = 4096: FCM1[1]};
                      ^~~~~~~~~
bad.tcg:4:28: error: MATCH2[1] in field 2 has no bidirectional form: a bidirectional stream takes DFCM, FCM and LV
    32-Bit Field 2 = {: LV[1], MATCH2[1]};
                               ^~~~~~~~~
TEXT
for emit in bidirectional-header bidirectional-source; do
    status=0
    (cd "$work" && "$tcgen" --emit=$emit bad.tcg >out 2>err) || status=$?
    if [[ $status -ne 1 ]] || ! diff -u "$work/expected" "$work/err" || [[ -s "$work/out" ]]; then
        echo "FAIL: --emit=$emit of bad.tcg: exit $status"
        fail=1
    fi
done
# The same spec is fine for the ordinary compressor.
"$tcgen" "$work/bad.tcg" >/dev/null
status=0
"$tcgen" --emit=bidirectional-header --name=9lives "$source_dir/specs/wet/node_values.tcg" >/dev/null 2>"$work/err" || status=$?
if [[ $status -ne 1 || "$(cat "$work/err")" != "tcgen: error: '9lives' cannot name a C++ stream type; give --name=NAME (letters, digits and '_')" ]]; then
    echo "FAIL: --name=9lives: exit $status, $(cat "$work/err")"
    fail=1
fi

for namespace in "a::" "::a" "a b" "a::1b"; do
    status=0
    "$tcgen" --emit=bidirectional-header --namespace="$namespace" "$source_dir/specs/wet/node_values.tcg" \
        >/dev/null 2>"$work/err" || status=$?
    expected="tcgen: error: --namespace='$namespace' is not a C++ namespace name (identifiers joined by '::')"
    if [[ $status -ne 1 || "$(cat "$work/err")" != "$expected" ]]; then
        echo "FAIL: --namespace=$namespace: exit $status, $(cat "$work/err")"
        fail=1
    fi
done
if "$tcgen" --emit=bidirectional-header "$source_dir/specs/wet/node_values.tcg" | grep -q "0-Bit Header"; then
    echo "FAIL: the generated header shows a header the spec does not have"
    fail=1
fi

# --- determinism -------------------------------------------------------------
"$tcgen" --emit=bidirectional-source "$source_dir/specs/wet/edge_timestamps.tcg" >"$work/a.cpp"
"$tcgen" --emit=bidirectional-source "$source_dir/specs/wet/edge_timestamps.tcg" >"$work/b.cpp"
cmp "$work/a.cpp" "$work/b.cpp" || { echo "FAIL: generated source differs between runs"; fail=1; }

# --- variants compiled and walked ---------------------------------------------
variant() {  # variant NAME FIELDS... : each FIELD "BITS:PREDICTORS"
    local name=$1
    shift
    local spec="$work/$name/variant.tcg"
    local fields="" number=1
    mkdir -p "$work/$name"
    {
        echo "TCgen Trace Specification;"
        for field in "$@"; do
            echo "${field%%:*}-Bit Field $number = {L2 = 1024: ${field#*:}};"
            fields+="X(field$number) "
            number=$((number + 1))
        done
        echo "PC = Field 1;"
    } >"$spec"
    "$tcgen" --emit=bidirectional-header "$spec" -o "$work/$name/variant.hpp"
    "$tcgen" --emit=bidirectional-source "$spec" -o "$work/$name/variant.cpp"
    for compiler in g++ clang++; do
        local flags=()
        [[ $compiler == g++ ]] && flags=("${extra_flags[@]}")
        if ! $compiler -std=c++17 -O1 "${warnings[@]}" "${flags[@]}" "-DTCGEN_TEST_FIELDS=$fields" \
            -I"$work/$name" "$work/$name/variant.cpp" "$source_dir/tests/wet/bidirectional_walk_driver.cpp" \
            -o "$work/$name/walk-$compiler" 2>"$work/$name/compile.log"; then
            echo "FAIL: $name does not compile warning-free with $compiler:"
            head -20 "$work/$name/compile.log"
            fail=1
            continue
        fi
        if ! "$work/$name/walk-$compiler" >"$work/$name/walk.log"; then
            echo "FAIL: $name ($compiler): $(cat "$work/$name/walk.log")"
            fail=1
        fi
    done
}

for spec in "$source_dir"/specs/wet/*.tcg; do
    stem=$(basename "$spec" .tcg)
    mkdir -p "$work/$stem"
    # The shipped specs under the driver's fixed name.
    fields=$(grep -c -- '-Bit Field' "$spec")
    list=""
    for number in $(seq 1 "$fields"); do list+="X(field$number) "; done
    "$tcgen" --emit=bidirectional-header --name=variant "$spec" -o "$work/$stem/variant.hpp"
    "$tcgen" --emit=bidirectional-source --name=variant "$spec" -o "$work/$stem/variant.cpp"
    g++ -std=c++17 -O1 "${warnings[@]}" "${extra_flags[@]}" "-DTCGEN_TEST_FIELDS=$list" -I"$work/$stem" \
        "$work/$stem/variant.cpp" "$source_dir/tests/wet/bidirectional_walk_driver.cpp" -o "$work/$stem/walk"
    "$work/$stem/walk" >/dev/null || { echo "FAIL: specs/wet/$stem.tcg walks"; fail=1; }
done
variant lv_only 32:LV[1]
variant lv_many 16:LV[6]
variant fcm_orders 64:FCM1[1] 64:FCM2[2] 64:FCM3[4] 64:FCM4[1]
variant dfcm_orders 32:DFCM1[2] 32:DFCM2[1] 32:DFCM3[1] 32:DFCM4[3]
variant bytes 8:FCM2[2],LV[1] 8:DFCM1[1]
variant mixed_widths 8:LV[2] 64:DFCM2[2],FCM1[1] 16:FCM3[1],DFCM1[4] 32:LV[1],DFCM3[2]
exit $fail
