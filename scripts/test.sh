#!/usr/bin/env bash
# Runs the test suite (installing the packages the tests need that are
# missing, and building the tests first if needed): every test but those
# labelled `slow` (minutes each: the bench scripts, the tuner, combinations
# of passes, regenerating from .tcz files, clang builds), which keeps it
# under ten minutes on two cores. CI runs the slow ones too.
# Usage: scripts/test.sh [--slow | --all] [BUILD_DIR] [CMAKE_OPTIONS...]   (default: build)
#   --slow   only the slow tests;  --all   every test
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
select=(-LE slow)
case ${1:-} in
    --slow) select=(-L slow); shift ;;
    --all) select=(); shift ;;
esac
build=${1:-$root/build}
shift $(( $# > 0 ? 1 : 0 ))

# What the tests need beyond scripts/setup.sh's packages (quiet when there).
packages=(
    libgtest-dev                        # the unit tests
    libxxhash-dev                       # the runtime's XXH64 checked against libxxhash
    clang                               # the generated code under a second compiler
    python3-pytest                      # the Python package's tests
    chromium                            # wet report's page rendered in a headless browser
)
"$root/scripts/install-packages.sh" "${packages[@]}"

cmake -S "$root" -B "$build" -DTCGEN_BUILD_TESTS=ON "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" -j "$(nproc)" --output-on-failure "${select[@]}"
