#!/usr/bin/env bash
# Runs the test suite (less the slow tests, as scripts/test.sh does) under
# AddressSanitizer and UndefinedBehaviorSanitizer, built by clang 16 as the
# fuzz targets are: clang builds the sanitized tree in about half of g++'s
# time, and with the release build and suite g++'s, both compilers build
# the whole project. Installs clang 16 and its sanitizer runtimes if they
# are missing.
# Usage: scripts/sanitize.sh [BUILD_DIR] [CMAKE_OPTIONS...]   (default: build-sanitize)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-sanitize}
shift $(( $# > 0 ? 1 : 0 ))

"$root/scripts/install-packages.sh" clang-16 libclang-rt-16-dev
"$root/scripts/test.sh" "$build" -DTCGEN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++-16 "$@"
