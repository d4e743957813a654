#!/usr/bin/env bash
# Streams a synthetic trace larger than 4 GiB (6 GiB by default) through a
# generated compressor and back without ever storing the trace: synth_trace
# is piped into the compressor, the .tcz is kept, and the decompressed bytes
# are hashed and compared with a second run of synth_trace, hashed. Reports
# the .tcz size, the time and the peak RSS of compression and decompression
# (bounded memory: the tables plus a fixed buffer, whatever the length).
# A benchmark-scale check, not a ctest.
# Usage: bench/stream-check.sh [--gib=N] [--spec=examples/vpc3.tcg] [BUILD_DIR]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/runner/common.sh"
root=$(cd "$here/.." && pwd)
gib=6
spec=$root/examples/vpc3.tcg
build=$root/build
for argument in "$@"; do
    case "$argument" in
        --gib=*) gib=${argument#--gib=} ;;
        --spec=*) spec=${argument#--spec=} ;;
        -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
        -*) die "unknown option $argument" ;;
        *) build=$argument ;;
    esac
done
tcgen=$build/generator/tcgen
synth=$build/tests/roundtrip/synth_trace
for tool in "$tcgen" "$synth"; do
    [ -x "$tool" ] || die "no $tool; build first (scripts/setup.sh)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

canonical=$("$tcgen" --canonical "$spec")
fields=$(sed -n 's/^\([0-9]*\)-Bit Field .*/\1/p' <<<"$canonical" | paste -sd, -)
header=$(($(sed -n 's/^\([0-9]*\)-Bit Header;$/\1/p' <<<"$canonical") / 8))
record=0
for bits in ${fields//,/ }; do record=$((record + bits / 8)); done
records=$(((gib << 30) / record))
trace_bytes=$((header + records * record + 3))
synth_args=(--fields="$fields" --header="$header" --records="$records" --tail=3 --seed=11)

"$tcgen" -o "$work/comp.cpp" "$spec"
# shellcheck disable=SC2046  # the back-ends' flags, from the generated file's "// Build:" line, are words
c++ -std=c++17 -O3 -o "$work/comp" "$work/comp.cpp" -pthread $("$root/tests/tools/link-flags" "$work/comp.cpp")

echo "$prog: $(basename "$spec"), $records records of $record bytes + header $header + tail 3 = $trace_bytes bytes"
"$synth" "${synth_args[@]}" | /usr/bin/time -f '%M %e' -o "$work/compress.time" "$work/comp" >"$work/trace.tcz" 2>"$work/report"
/usr/bin/time -f '%M %e' -o "$work/decompress.time" "$work/comp" -d <"$work/trace.tcz" | sha256sum >"$work/restored.sum"
"$synth" "${synth_args[@]}" | sha256sum >"$work/original.sum"
if ! cmp -s "$work/original.sum" "$work/restored.sum"; then
    echo "$prog: FAIL: the decompressed trace differs from the original" >&2
    exit 1
fi
read -r compress_kb compress_s <"$work/compress.time"
read -r decompress_kb decompress_s <"$work/decompress.time"
tcz_bytes=$(stat -c %s "$work/trace.tcz")
awk -v bytes="$trace_bytes" -v tcz="$tcz_bytes" -v ckb="$compress_kb" -v cs="$compress_s" -v dkb="$decompress_kb" \
    -v ds="$decompress_s" 'BEGIN {
    printf "byte-exact (sha256 of %.0f bytes)\n", bytes
    printf ".tcz: %.0f bytes, ratio %.1f\n", tcz, bytes / tcz
    printf "compress:   %.1f s, %.0f MB/s, peak RSS %.1f MB\n", cs, (cs > 0 ? bytes / cs / 1e6 : 0), ckb / 1024
    printf "decompress: %.1f s, %.0f MB/s, peak RSS %.1f MB\n", ds, (ds > 0 ? bytes / ds / 1e6 : 0), dkb / 1024
}'
