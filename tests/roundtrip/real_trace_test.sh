#!/usr/bin/env bash
# Round-trips real traces, made now with valgrind, through generated
# compressors: the store addresses of bzip2 and the cache-miss addresses of
# sort. Prints each ratio beside bzip2 -9's (reported, not asserted).
# Usage: real_trace_test.sh SOURCE_DIR LACKEY_TO_TRACE COMP...
set -u
source_dir=$1 tool=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

make_trace() {
    "$source_dir/bench/make-trace.sh" --tool="$tool" --max-records=300000 "$@" \
        || { echo "FAIL: make-trace $*"; exit 1; }
}
make_trace --kind=store-addresses --program=bzip2 "$work/store.trace"
make_trace --kind=cache-miss-addresses --program=sort --input-bytes=60000 "$work/miss.trace"

for trace in "$work/store.trace" "$work/miss.trace"; do
    bzip2_size=$(bzip2 -9 <"$trace" | wc -c)
    for comp in "$@"; do
        label="$(basename "$comp") on $(basename "$trace")"
        if ! "$comp" <"$trace" >"$work/t.tcz" 2>"$work/report" || ! "$comp" -d <"$work/t.tcz" >"$work/t.out"; then
            echo "FAIL: $label: $(tail -1 "$work/report")"
            failures=$((failures + 1))
            continue
        fi
        if ! cmp -s "$trace" "$work/t.out"; then
            echo "FAIL: $label: not byte-exact"
            failures=$((failures + 1))
            continue
        fi
        awk -v label="$label" -v size="$(stat -c %s "$trace")" -v ours="$(stat -c %s "$work/t.tcz")" \
            -v theirs="$bzip2_size" 'BEGIN { printf "%-40s %10d bytes: ratio %7.2f (bzip2 -9 %7.2f)\n", label, size, size / ours, size / theirs }'
    done
done
exit "$failures"
