#!/usr/bin/env bash
# The main job on the bundled default: generate the compressor for the
# paper's TCgen(A) spec (examples/vpc3.tcg), build it, make a small real
# trace (store addresses of bzip2 running under valgrind's lackey), round-trip
# it byte-exact, and print the ratio beside bzip2 -9's.
# Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
demo=$build/demo
mkdir -p "$demo"

echo "== tcgen examples/vpc3.tcg > $demo/vpc3.cpp"
"$build/generator/tcgen" -o "$demo/vpc3.cpp" "$root/examples/vpc3.tcg"
# The back-ends' libraries, as the generated file's "// Build:" line names them.
link_flags=$("$root/tests/tools/link-flags" "$demo/vpc3.cpp")
echo "== c++ -std=c++17 -O3 -o $demo/vpc3 $demo/vpc3.cpp -pthread $link_flags"
# shellcheck disable=SC2086  # the flags are words
c++ -std=c++17 -O3 -Wall -Wextra -o "$demo/vpc3" "$demo/vpc3.cpp" -pthread $link_flags

trace=$demo/store-addresses.trace
if [ ! -s "$trace" ]; then
    echo "== making a real trace: store addresses of bzip2 -9 under valgrind --tool=lackey"
    "$root/bench/make-trace.sh" --kind=store-addresses --program=bzip2 \
        --tool="$build/tracer/tcgen-lackey-to-trace" "$trace"
fi

echo "== round trip"
"$demo/vpc3" --report <"$trace" >"$trace.tcz" 2>"$demo/report.txt"
"$demo/vpc3" -d <"$trace.tcz" >"$trace.out"
cmp "$trace" "$trace.out"
echo "byte-exact: $(basename "$trace") -> $(basename "$trace").tcz -> identical"
rm -f "$trace.out"
cat "$demo/report.txt"

original=$(stat -c %s "$trace")
ours=$(stat -c %s "$trace.tcz")
theirs=$(bzip2 -9 <"$trace" | wc -c)
awk -v original="$original" -v ours="$ours" -v theirs="$theirs" 'BEGIN {
    printf "\n%-22s %14s %10s\n", "compressor", "bytes", "ratio"
    printf "%-22s %14d %10s\n", "original trace", original, "1.00"
    printf "%-22s %14d %10.2f\n", "tcgen TCgen(A) (vpc3)", ours, original / ours
    printf "%-22s %14d %10.2f\n", "bzip2 -9", theirs, original / theirs
}'
