#!/usr/bin/env bash
# Whole-record runs and what the predictors learn of them
# (runtime/record_runs.hpp): at the default level a block whose long runs are
# long has the predictors learn only each run's last 4 records; -9 learns
# every record; a block of short runs learns every record at any level, and
# so does a spec whose tables are small (examples/branch_ids.tcg: 2 MiB, where
# learning costs no more than copying). The --report line says which
# happened, no warning says the predictions missed, and every file
# round-trips byte for byte. The shipped branch spec, which codes records as
# ids, codes each distinct record once and copies nothing.
# Usage: run_learning_test.sh TCGEN SOURCE_DIR
set -u
tcgen=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
link_flags=$(dirname "$0")/../tools/link-flags

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# Branch records coded through the fields, with tables large enough (48 MiB)
# for the tails to save time: the shipped branch spec before it coded ids.
cat >"$work/branch_fields.tcg" <<'SPEC'
TCgen Trace Specification;
32-Bit Header;
64-Bit Field 1 pc = {L1 = 1, L2 = 131072: MATCH4[1], FCM3[4], FCM1[4]};
64-Bit Field 2 target = {L1 = 65536, L2 = 131072: MATCH4[1], DFCM3[4], DFCM1[2], FCM3[2], FCM1[4], LV[4]};
8-Bit Field 3 taken = {L1 = 65536, L2 = 131072: MATCH4[1], DFCM3[4], DFCM1[2], FCM3[2], FCM1[3]};
PC = Field pc;
SPEC
cp "$source_dir/examples/x86_branches.tcg" "$source_dir/examples/branch_ids.tcg" "$work/"
for spec in branch_fields x86_branches branch_ids; do
    "$tcgen" -o "$work/$spec.cpp" "$work/$spec.tcg" || { echo "FAIL: tcgen $spec"; exit 1; }
    # shellcheck disable=SC2046  # the flags are words
    c++ -std=c++17 -O1 -o "$work/$spec" "$work/$spec.cpp" -pthread $("$link_flags" "$work/$spec.cpp") ||
        { echo "FAIL: compiling $spec"; exit 1; }
done

# Branch records (pc, target: 64 bits; taken: 8 bits) after a 4-byte header:
# `laps` laps of a loop of `period` branches, each lap followed by `noise`
# random branches that break the run.
python3 - "$work" <<'PY'
import random, struct, sys
work = sys.argv[1]
def trace(name, period, laps, noise, seed):
    rng = random.Random(seed)
    records = []
    for lap in range(laps):
        for step in range(period):
            records.append(struct.pack("<QQB", 0x400000 + 16 * step, 0x400000 + 16 * step + 40, step % 2))
        for _ in range(noise):
            records.append(struct.pack("<QQB", rng.getrandbits(48), rng.getrandbits(48), rng.getrandbits(1)))
    with open(f"{work}/{name}.trace", "wb") as out:
        out.write(b"TRC1" + b"".join(records))
trace("long_runs", 100, 300, 0, 1)
trace("short_runs", 20, 400, 2, 2)
# Block ids (bare u32): the same long loop, one id a branch.
with open(f"{work}/long_ids.trace", "wb") as out:
    out.write(b"".join(struct.pack("<I", step) for _ in range(300) for step in range(100)))
PY

# The report's runs line as "COPIED RUNS LEARNT".
runs_of() {
    sed -n 's/^whole-record runs: \([0-9]*\) of [0-9]* records copied from earlier ones, in \([0-9]*\) runs; the predictors learnt \([0-9]*\) of them$/\1 \2 \3/p' "$1"
}

# check NAME LEVEL EXPECT [SPEC]: EXPECT is "tails" (4 a run) or "all";
# SPEC's compressor (default branch_fields) codes NAME.
check() {
    local name=$1 level=$2 expect=$3 comp="$work/${4:-branch_fields}"
    local input="$work/$name.trace" packed="$work/$name$level.tcz"
    "$comp" "$level" -T1 --report -c "$input" >"$packed" 2>"$work/report" || { fail "$name $level: compressing"; return; }
    "$comp" -d -c "$packed" | cmp -s - "$input" || fail "$name $level: round trip differs"
    # Records that runs copy were predicted whole: no warning that the
    # predictions missed (the fields alone code mostly the runs' new records).
    if grep -q "warning" "$work/report"; then fail "$name $level: $(grep warning "$work/report")"; fi
    local copied runs learnt
    read -r copied runs learnt <<<"$(runs_of "$work/report")"
    [ -n "${learnt:-}" ] || { fail "$name $level: no runs line in: $(cat "$work/report")"; return; }
    [ "$copied" -gt 0 ] || fail "$name $level: no record copied"
    case $expect in
    tails) [ "$learnt" -le $((4 * runs)) ] && [ "$learnt" -lt "$copied" ] ||
        fail "$name $level: $learnt of $copied copied records learnt in $runs runs, expected 4 a run" ;;
    all) [ "$learnt" -eq "$copied" ] || fail "$name $level: $learnt of $copied copied records learnt, expected all" ;;
    esac
}

check long_runs -6 tails
check long_runs -1 tails
check long_runs -9 all
check short_runs -6 all
check short_runs -9 all
check long_ids -6 all branch_ids
check long_ids -1 all branch_ids

# The shipped branch spec: every record an id, each of the 100 distinct
# records of the loop coded once by the fields, none copied by runs.
for level in -6 -9; do
    packed="$work/ids$level.tcz"
    "$work/x86_branches" "$level" -T1 --report -c "$work/long_runs.trace" >"$packed" 2>"$work/report" ||
        fail "ids $level: compressing"
    "$work/x86_branches" -d -c "$packed" | cmp -s - "$work/long_runs.trace" || fail "ids $level: round trip differs"
    if grep -q "warning" "$work/report"; then fail "ids $level: $(grep warning "$work/report")"; fi
    grep -qx "record ids: 30000 records as ids, 100 first appearances coded by the fields" "$work/report" ||
        fail "ids $level: $(grep "record ids" "$work/report")"
    [ "$(runs_of "$work/report")" = "0 0 0" ] || fail "ids $level: runs: $(runs_of "$work/report")"
done

[ "$failures" -eq 0 ] && echo "run learning: all checks passed"
exit $((failures > 0))
