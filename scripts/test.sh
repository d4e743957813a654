#!/usr/bin/env bash
# Runs the whole test suite (building first if needed).
# Usage: scripts/test.sh [BUILD_DIR] [CMAKE_OPTIONS...]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift $(( $# > 0 ? 1 : 0 ))

cmake -S "$root" -B "$build" "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure
