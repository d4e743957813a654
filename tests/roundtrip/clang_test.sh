#!/usr/bin/env bash
# The generated code builds with clang++ (whose default dialect is older than
# C++17) when given -std=c++17, as its header says, warning-free under the
# flags the g++ builds use, and writes exactly the .tcz goldens.
# Usage: clang_test.sh CLANGXX TCGEN SOURCE_DIR
set -u
clangxx=$1 tcgen=$2 root=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
link_flags=$(dirname "$0")/../tools/link-flags   # the back-ends' -l flags, from the generated file
for name in vpc3 tcgen_b champsim any_file; do
    "$tcgen" -o "$work/$name.cpp" "$root/examples/$name.tcg" || { echo "FAIL: tcgen $name"; failures=$((failures + 1)); continue; }
    build=$(sed -n 's|^// Build: *||p' "$work/$name.cpp")
    [[ "$build" == *"-std=c++17"* ]] || { echo "FAIL: $name: the header's build line lacks -std=c++17: $build"; failures=$((failures + 1)); }
    [[ "$build" == *"-pthread"* ]] || { echo "FAIL: $name: the header's build line lacks -pthread: $build"; failures=$((failures + 1)); }
    # shellcheck disable=SC2046  # the flags are words
    if ! "$clangxx" -std=c++17 -O1 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Werror -o "$work/$name" \
        "$work/$name.cpp" -pthread $("$link_flags" "$work/$name.cpp") 2>"$work/err"; then
        echo "FAIL: clang++ $name:"; head -20 "$work/err"; failures=$((failures + 1)); continue
    fi
    input=$root/tests/golden/tcz/inputs/$name.trace   # a trace of its own format, else load values
    [ -f "$input" ] || input=$root/tests/golden/tcz/inputs/load_values.trace
    "$work/$name" <"$input" 2>/dev/null | cmp -s - "$root/tests/golden/tcz/$name.tcz" \
        || { echo "FAIL: the clang++ build of $name writes another .tcz"; failures=$((failures + 1)); }
    "$work/$name" -d <"$root/tests/golden/tcz/$name.tcz" | cmp -s - "$input" \
        || { echo "FAIL: the clang++ build of $name does not restore its golden"; failures=$((failures + 1)); }
done
[ "$failures" -eq 0 ] && echo "clang++ builds every example warning-free and writes the goldens"
exit "$failures"
