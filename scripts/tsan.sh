#!/usr/bin/env bash
# Runs the runtime's tests under ThreadSanitizer: the decoder reads the next
# block on a second thread (runtime/block_prefetcher.hpp) and the writer
# compresses a block's streams on a pool of threads (runtime/task_pool.hpp),
# -d -TN decodes restart groups on N threads (runtime/group_decoder.hpp),
# and these tests drive those threads through whole files, damaged files,
# seeks, concatenations, every thread count and readers destroyed mid-file
# (runtime_thread_tests: ReadAhead.*, RecordIo.*, Driver.*, TaskPool.*,
# GroupDecoder.* and the other tests of code that starts threads); and the
# WET's queries from 8 threads at once on one WET, each thread with its own
# cursors over the shared labels (wet_concurrent_queries_tests).
# Usage: scripts/tsan.sh [BUILD_DIR]   (default: build-tsan)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-tsan}

cmake -S "$root" -B "$build" -DTCGEN_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target runtime_thread_tests wet_concurrent_queries_tests
TSAN_OPTIONS="exitcode=88:halt_on_error=1" "$build/tests/runtime/runtime_thread_tests"
TSAN_OPTIONS="exitcode=88:halt_on_error=1" "$build/tests/wet/wet_concurrent_queries_tests"
