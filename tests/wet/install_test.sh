#!/usr/bin/env bash
# `cmake --install` of the build, then a user's CMake project that finds
# libtcgen_wet with find_package(tcgen_wet), links tcgen::tcgen_wet, builds a
# stream from records and walks it both ways; tcgen and wet-walk installed
# beside it run.
# Usage: install_test.sh BUILD_DIR [CXXFLAGS...]  (the build's sanitizer flags)
set -euo pipefail
build=$(realpath "$1")
shift
flags="$*"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
for file in bin/tcgen bin/wet-walk bin/wet include/tcgen/wet.hpp include/tcgen/wet/node_values.hpp \
    include/tcgen/wet/whole_execution_trace.hpp include/tcgen/wet/raw_trace.hpp include/tcgen/file_error.hpp \
    include/tcgen/wet/queries.hpp include/tcgen/tcgen_wet.h; do
    [[ -e "$work/prefix/$file" ]] || { echo "FAIL: $file not installed"; exit 1; }
done
"$work/prefix/bin/tcgen" --version >/dev/null

# The WET's C interface, from C89 through the installed header and library.
wet_c_library=$(find "$work/prefix" -name libtcgen_wet_c.so | head -n 1)
[[ -n "$wet_c_library" ]] || { echo "FAIL: libtcgen_wet_c.so not installed"; exit 1; }
cat >"$work/wet_c_user.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <tcgen/tcgen_wet.h>

int main(void) {
    tcgen_wet* wet = NULL;
    int status = tcgen_wet_open("missing.wet", &wet);
    int ok = tcgen_wet_abi_version() == TCGEN_WET_ABI_VERSION && status == TCGEN_WET_ERROR_INPUT &&
             strstr(tcgen_wet_error(wet), "missing.wet") != NULL;
    printf("C: %s: %s\n", tcgen_wet_status_name(status), tcgen_wet_error(wet));
    tcgen_wet_free(wet);
    return ok ? 0 : 1;
}
C
# shellcheck disable=SC2086  # the flags are words
cc -std=c89 -pedantic -Wall -Werror $flags -I "$work/prefix/include" -o "$work/wet_c_user" "$work/wet_c_user.c" \
    -L "$(dirname "$wet_c_library")" -ltcgen_wet_c
(cd "$work" && LD_LIBRARY_PATH="$(dirname "$wet_c_library")" ./wet_c_user)

mkdir -p "$work/user"
cat >"$work/user/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(user_of_tcgen_wet CXX)
find_package(tcgen_wet 0.1 REQUIRED)
add_executable(user main.cpp)
target_link_libraries(user PRIVATE tcgen::tcgen_wet)
CMAKE
cat >"$work/user/main.cpp" <<'CPP'
#include <cstdio>
#include <vector>
#include <tcgen/wet.hpp>

int main() {
    std::vector<tcgen::wet::EdgeTimestamps::Record> records;
    for (std::uint32_t t = 1; t <= 1000; ++t) {
        records.push_back({10 * t, 10 * t - 3});
    }
    auto stream = tcgen::wet::EdgeTimestamps::build(records.data(), records.size());
    tcgen::wet::EdgeTimestamps::Record record{};
    std::size_t index = 0;
    while (stream.next(record)) {
        if (record.field1 != records[index].field1 || record.field2 != records[index].field2) return 1;
        ++index;
    }
    while (stream.prev(record)) {
        --index;
        if (record.field1 != records[index].field1 || record.field2 != records[index].field2) return 1;
    }
    std::printf("walked %zu records both ways: %s\n", records.size(), stream.description().c_str());
    // The WET object: a block that loads, run twice, and its two loads.
    tcgen::wet::RawTrace raw;
    raw.blocks.push_back({0x400000, 8, 2, 'J'});
    raw.flow = {0, 0};
    raw.nodes.push_back({0, 0x400004, 'L', 0, 8});
    raw.events = {{0, 1, 0x1000, 7}, {0, 2, 0x1000, 7}};
    auto wet = tcgen::wet::WholeExecutionTrace::build(raw);
    const auto bytes = wet.to_bytes();
    auto again = tcgen::wet::WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "user.wet");
    if (again.accesses(0x400004).size() != 2 || again.backward_slice(0x400004, 2).empty()) return 1;
    std::printf("a WET of %u timestamps saved in %zu bytes\n", again.executed(), bytes.size());
    return index == 0 ? 0 : 1;
}
CPP
cmake -S "$work/user" -B "$work/user/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/user/build" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/user/build/user"

# A project that generates the in-process codec of a spec at build time with
# the installed tcgen (find_package(tcgen), tcgen_add_codec) and round-trips
# records through a .tcz.
mkdir -p "$work/codec_user"
cp "$(dirname "$0")/../../examples/vpc3.tcg" "$work/codec_user/vpc3.tcg"
cat >"$work/codec_user/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.19)
project(user_of_tcgen CXX)
# The installed version file: 0.1 is this version, 99 none.
find_package(tcgen 99 QUIET)
if(tcgen_FOUND)
  message(FATAL_ERROR "find_package(tcgen 99) accepted tcgen ${tcgen_VERSION}")
endif()
find_package(tcgen 0.1 REQUIRED)
tcgen_add_codec(vpc3_codec SPEC vpc3.tcg)
add_executable(codec_user main.cpp)
target_link_libraries(codec_user PRIVATE vpc3_codec)
CMAKE
cat >"$work/codec_user/main.cpp" <<'CPP'
#include <cstdio>
#include "vpc3.hpp"

int main() {
    {
        vpc3::Writer writer("out.tcz", {'H', 'D', 'R', '1'});
        for (std::uint32_t i = 0; i < 100000; ++i) {
            writer.append({0x400000u + (i % 17) * 4, 0x7fff0000ull + 8ull * i});
        }
        writer.close();
    }
    vpc3::Reader reader("out.tcz");
    vpc3::Record record;
    std::uint32_t i = 0;
    while (reader.next(record)) {
        if (record.field1 != 0x400000u + (i % 17) * 4 || record.field2 != 0x7fff0000ull + 8ull * i) return 1;
        ++i;
    }
    std::printf("read back %u records\n", i);
    return i == 100000 ? 0 : 1;
}
CPP
cmake -S "$work/codec_user" -B "$work/codec_user/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/codec_user/build" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
(cd "$work/codec_user/build" && ./codec_user)
