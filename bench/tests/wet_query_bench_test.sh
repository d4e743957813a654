#!/usr/bin/env bash
# wet-query-bench on the toy run of tests/wet/make_synthetic_wet.py: every key
# present, the counts it walked equal to what `wet stats` says the WET holds
# (blocks executed, loads plus stores), the slices asked for taken, a sample
# of the traces and slices stopped early when asked; a bad
# argument and a missing file give one line and exit status 1. No timing
# checks: the machine decides those.
# Usage: wet_query_bench_test.sh WET_QUERY_BENCH WET
set -euo pipefail
bench=$(realpath "$1")
wet=$(realpath "$2")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/wet_query_bench_test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$here/../../tests/wet/make_synthetic_wet.py" "$work/toy" 3
"$wet" build "$work/toy" "$work/toy.wet" 2>/dev/null
line=$("$bench" "$work/toy.wet" --slices=7 --seeks=5)
value() { tr '\t' '\n' <<< "$line" | sed -n "s/^$1=//p"; }
for key in load_s resident_bytes memory_bytes instructions executed cf_forward_s cf_backward_s L_accesses L_s \
           S_accesses S_s seek_median_s slices slice_median_s slice_max_s slice_items_median; do
    [[ -n $(value "$key") ]] || fail "no $key in: $line"
done
stats=$("$wet" stats "$work/toy.wet")
executed=$(awk '$1 == "control" && $2 == "flow" {print $3}' <<< "$stats")
events=$(awk '$1 == "values" {print $2}' <<< "$stats")
[[ $(value executed) == "$executed" ]] || fail "executed $(value executed), wet stats says $executed"
[[ $(( $(value L_accesses) + $(value S_accesses) )) == "$events" ]] \
    || fail "$(value L_accesses) loads + $(value S_accesses) stores, wet stats says $events events"
[[ $(value slices) == 7 ]] || fail "slices $(value slices), asked for 7"

# --threads: both rounds on one thread and on 3 (the bench refuses a round
# whose items differ from one thread's first).
line=$("$bench" "$work/toy.wet" --slices=7 --seeks=1 --threads=3)
[[ $(value threads) == 3 ]] || fail "threads $(value threads), asked for 3"
for round in one_thread_cold one_thread_warm threads_cold threads_warm; do
    for key in wall_s cpu_s items_per_s; do
        [[ -n $(value "${round}_$key") ]] || fail "no ${round}_$key in: $line"
    done
done
(( $(value round_items) > 0 )) || fail "round_items $(value round_items)"

# --trace-pcs and --slice-items: a sample of the instructions traced (fewer
# accesses than all), the same slices each stopped at the cap, its threads'
# rounds too.
whole_line=$line
line=$("$bench" "$work/toy.wet" --slices=7 --seeks=1 --threads=2)
whole_items=$(value round_items)
all_loads=$(value L_pcs)
line=$("$bench" "$work/toy.wet" --slices=7 --seeks=1 --threads=2 --trace-pcs=1 --slice-items=2)
[[ $(value L_pcs) == 1 && $(value S_pcs) == 1 ]] || fail "traced $(value L_pcs) loads, $(value S_pcs) stores, asked for 1"
(( all_loads > 1 )) || fail "the toy run has $all_loads loads: the sample samples nothing"
(( $(value L_accesses) + $(value S_accesses) < events )) \
    || fail "a sample of one load and one store traced $(value L_accesses) + $(value S_accesses) of $events accesses"
[[ $(value slice_items_cap) == 2 ]] || fail "slice_items_cap $(value slice_items_cap), asked for 2"
(( $(value slowest_slice_items) <= 2 && $(value round_items) <= 14 && $(value round_items) < whole_items )) \
    || fail "slices stopped at 2 items found $(value slowest_slice_items) at most, $(value round_items) a round"
line=$whole_line
[[ $(value slice_items_cap) == 0 ]] || fail "no cap asked, slice_items_cap $(value slice_items_cap)"

if "$bench" "$work/toy.wet" --slices=x 2> "$work/err"; then fail "--slices=x accepted"; fi
[[ $(wc -l < "$work/err") == 1 && $(cat "$work/err") == "wet-query-bench: bad count in --slices=x" ]] \
    || fail "--slices=x: $(cat "$work/err")"
if "$bench" "$work/none.wet" 2> "$work/err"; then fail "a missing file accepted"; fi
[[ $(wc -l < "$work/err") == 1 && $(cat "$work/err") == "wet-query-bench: $work/none.wet: error: "* ]] \
    || fail "missing file: $(cat "$work/err")"
echo "wet-query-bench: keys and counts checked"
