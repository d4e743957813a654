#!/usr/bin/env bash
# Prints the path of the default build's tcgen (build/, as scripts/setup.sh
# makes it), brought up to date, for the ThreadSanitizer and fuzz builds to
# generate their code with (CMake's TCGEN_GENERATOR) rather than build an
# instrumented generator only to run it. Prints nothing when there is no
# default build: those builds then make their own tcgen.
# Usage: scripts/built-tcgen.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
[[ -f $build/CMakeCache.txt ]] || exit 0
cmake --build "$build" -j "$(nproc)" --target tcgen >&2
echo "$build/generator/tcgen"
