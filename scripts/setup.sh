#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a working tcgen: installs the
# Debian packages the build needs that are missing, builds the tools and
# libraries (scripts/test.sh adds the tests), runs the main job (demo.sh) and
# makes the build's Python package importable (`python3 -c "import tcgen"`).
# Usage: scripts/setup.sh [BUILD_DIR]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

packages=(
    cmake g++ make                      # toolchain
    antlr4 libantlr4-runtime-dev        # the spec grammar
    libbz2-dev liblzma-dev libzstd-dev  # the stream back-ends
    bzip2                               # the demo's baseline
    xz-utils zstd zpaq                  # the benchmarks' baselines (zpaq -m5: the ratio ceiling)
    time gnuplot-nox sqlite3            # bench/run.py: timing, chart; one of the corpus's traced programs
    libcli11-dev                        # tcgen's command line
    libkainjow-mustache-dev             # the templates of the generated code
    valgrind                            # real traces (lackey; the tcgen-tracer tool SDK)
    python3 python3-numpy               # the Python package (python/)
)
"$root/scripts/install-packages.sh" "${packages[@]}"

# The tools, libraries and the Python package; not the tests (two thirds of
# the build's compile time), which scripts/test.sh turns on and builds in
# the same tree.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTCGEN_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
"$root/scripts/demo.sh" "$build"

# The Python package from this build tree: a tcgen.pth in the user site
# directory of the interpreter CMake chose (the first python3 with numpy)
# puts BUILD/python on its path, as `pip install -e` would, so that
# `python3 -c "import tcgen"` works. A later setup of another tree takes it
# over; `cmake --install` installs a copy instead (docs/python.md).
python=$(head -n 1 "$build/python/interpreter")
if [[ -z $python ]]; then
    echo "setup: no python3 with numpy found: the Python package is not set up" >&2
elif "$python" -c 'import site, sys; sys.exit(0 if site.ENABLE_USER_SITE else 1)'; then
    site=$("$python" -m site --user-site)
    mkdir -p "$site"
    echo "$(cd "$build" && pwd)/python" >"$site/tcgen.pth"
    "$python" -c 'import tcgen' || { echo "setup: $python cannot import tcgen from $site/tcgen.pth" >&2; exit 1; }
    echo "setup: import tcgen works in $python (through $site/tcgen.pth)"
else
    echo "setup: $python has no user site directory: PYTHONPATH=$build/python to import tcgen"
fi
