#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a working tcgen: installs the
# Debian packages that are missing, builds, and runs the main job (demo.sh).
# Usage: scripts/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

packages=(
    cmake g++ make                      # toolchain
    antlr4 libantlr4-runtime-dev        # the spec grammar
    libbz2-dev liblzma-dev libzstd-dev  # the stream back-ends
    bzip2                               # the baseline
    libxxhash-dev                       # tests: the runtime's XXH64 checked against libxxhash
    libgtest-dev clang                  # tests (clang: the generated code under a second compiler)
    libcli11-dev                        # tcgen's command line
    libkainjow-mustache-dev             # the templates of the generated code
    valgrind                            # real traces (lackey; the tcgen-tracer tool SDK)
    xz-utils zstd zpaq                  # baselines in benchmarks (zpaq -m5: the ratio ceiling)
    python3 time gnuplot-nox            # bench/run, bench/ablation: timing, chart
    python3-numpy python3-pytest        # the Python package (python/) and its tests
    sqlite3                             # one of the corpus's traced programs
)
"$root/scripts/install-packages.sh" "${packages[@]}"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)"
"$root/scripts/demo.sh" "$build"
