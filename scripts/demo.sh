#!/usr/bin/env bash
# The main job on the bundled default: check the paper's TCgen(A) spec and
# print it in canonical form with its table sizes.
# Usage: scripts/demo.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

"$build/generator/tcgen" --canonical "$root/examples/vpc3.tcg"
