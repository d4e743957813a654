#!/usr/bin/env bash
# Runs every fuzz target of BUILD_DIR (configured with -DTCGEN_FUZZ=ON, see
# README.md) over its seed corpus for a bounded number of runs with a fixed
# seed, so that a run is repeatable; fails if any target fails.
#
# Usage: tests/fuzz/run_fuzzers.sh BUILD_DIR [RUNS]   (RUNS defaults to 20000)
#
# Most targets run RUNS inputs. Those whose every input costs 30-150 ms under
# ASan run RUNS/40, so that the whole run stays within a few minutes: the
# round trips (each input compresses: block and stream buffers, bzip2's work
# areas, the tables twice) and the decompressors of vpc3 and champsim (20
# and 28 MB of predictor tables allocated, poisoned and freed per input), and
# the back-ends' (every input compressed at -9 and decompressed: about 6
# inputs a second);
# the other targets take a few milliseconds or less an input. Targets run
# two at a time (one per core on CI).
#
# The corpus is copied to a temporary directory, so the tree is not written;
# the seeds of the forged classes are added to it, written by
# BUILD_DIR/tests/fuzz/forge_fuzz_seeds (built with the targets) from the
# tests' own forgers.
# A failing input is kept as BUILD_DIR/tests/fuzz/artifacts/TARGET-crash-*
# (rerun it with BUILD_DIR/tests/fuzz/TARGET FILE); each target's log is
# BUILD_DIR/tests/fuzz/logs/TARGET.log.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: $0 BUILD_DIR [RUNS]" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
fuzz_dir=$(cd "$1" && pwd)/tests/fuzz
runs=${2:-20000}

targets=()
for target in "$fuzz_dir"/fuzz_*; do
    [[ -x $target && -f $target ]] && targets+=("$(basename "$target")")
done
if [[ ${#targets[@]} -eq 0 ]]; then
    echo "$0: no fuzz targets in $fuzz_dir (configure with -DTCGEN_FUZZ=ON and build the target 'fuzzers')" >&2
    exit 2
fi

# Symbolized stacks in reports: clang 16's sanitizers look for
# llvm-symbolizer-16 (package llvm-16, not needed otherwise); the default
# LLVM's llvm-symbolizer serves as well.
if [[ -z ${ASAN_SYMBOLIZER_PATH:-} ]] && symbolizer=$(command -v llvm-symbolizer); then
    export ASAN_SYMBOLIZER_PATH=$(readlink -f "$symbolizer")
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Without the check for stack use after return (on by default in clang 16's
# AddressSanitizer): it maps a fake stack for every thread started, and the
# decompressors start four threads an input, which made it a third of the
# run's time. The sanitized suite checks it on every threaded path the
# runtime's tests drive.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_stack_use_after_return=0}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$fuzz_dir/artifacts" "$fuzz_dir/logs"

# The forged seeds, checked as they are written: a forgery the library no
# longer refuses as it was made to be fails the run here.
if ! "$fuzz_dir/forge_fuzz_seeds" "$work/forged" >"$fuzz_dir/logs/forge_fuzz_seeds.log" 2>&1; then
    echo "FAIL forge_fuzz_seeds (log: $fuzz_dir/logs/forge_fuzz_seeds.log):"
    sed 's/^/    /' "$fuzz_dir/logs/forge_fuzz_seeds.log"
    echo "fuzz: the forged seeds could not be written"
    exit 1
fi

runs_for() {
    case $1 in
        fuzz_roundtrip_* | fuzz_decompress_vpc3 | fuzz_decompress_champsim | fuzz_backends)
            echo $(( runs / 40 > 0 ? runs / 40 : 1 )) ;;
        *) echo "$runs" ;;
    esac
}

# Runs one target; its verdict, one line (and the log's tail on failure),
# goes to $work/TARGET.result.
run_target() {
    local target=$1
    local seeds=$here/corpus/$target
    local forged=$work/forged/$target
    local result=$work/$target.result
    if [[ ! -d $seeds && ! -d $forged ]]; then
        echo "FAIL $target: no seed corpus $seeds and no forged seeds" >"$result"
        return
    fi
    local target_runs
    target_runs=$(runs_for "$target")
    mkdir -p "$work/$target"
    [[ ! -d $seeds ]] || cp "$seeds"/* "$work/$target/"
    [[ ! -d $forged ]] || cp "$forged"/* "$work/$target/"
    local log=$fuzz_dir/logs/$target.log
    local start=$SECONDS
    # -timeout: a hang fails the run instead of eating the CI's time.
    if "$fuzz_dir/$target" -runs="$target_runs" -seed=1 -timeout=60 \
            -artifact_prefix="$fuzz_dir/artifacts/$target-" "$work/$target" >"$log" 2>&1; then
        # libFuzzer's last status line: "#RUNS DONE cov: ... exec/s: ... rss: ...".
        local status
        status=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)
        echo "ok   $target: $target_runs runs in $((SECONDS - start)) s; ${status#*DONE }" >"$result"
    else
        {
            echo "FAIL $target after $((SECONDS - start)) s (log: $log):"
            tail -n 40 "$log" | sed 's/^/    /'
        } >"$result"
    fi
}

parallel=2
for target in "${targets[@]}"; do
    while [[ $(jobs -rp | wc -l) -ge $parallel ]]; do
        wait -n || true
    done
    run_target "$target" &
done
wait

passed=0
failed=0
for target in "${targets[@]}"; do
    result=$work/$target.result
    [[ -f $result ]] || echo "FAIL $target: the runner itself failed" >"$result"
    cat "$result"
    if [[ $(head -c 4 "$result") == "ok  " ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done

echo "fuzz: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
