#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ (clang 16, ASan and UBSan) and
# runs each for a bounded number of inputs from its seed corpus, as CI does.
# Installs clang 16 and its sanitizer runtimes if they are missing.
# Usage: scripts/fuzz.sh [BUILD_DIR] [RUNS]   (default: build-fuzz, 20000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-fuzz}
runs=${2:-20000}

"$root/scripts/install-packages.sh" clang-16 libclang-rt-16-dev
cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER=clang++-16 -DTCGEN_FUZZ=ON -DTCGEN_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzzers
"$root/tests/fuzz/run_fuzzers.sh" "$build" "$runs"
