#!/usr/bin/env bash
# `cmake --install` of wpp/ alone, then a user's CMake project that finds
# libtcgen_wpp with find_package(tcgen_wpp), links tcgen::tcgen_wpp, builds,
# saves, loads and queries a grammar through the installed header only; and
# the installed `wpp` round-trips a file.
# Usage: install_test.sh BUILD_DIR [CXXFLAGS...]  (the build's sanitizer flags)
set -euo pipefail
build=$(realpath "$1")
shift
flags="$*"
work=$(mktemp -d "${TMPDIR:-/tmp}/wpp_install_test.XXXXXX")
trap 'rm -rf "$work"' EXIT

cmake --install "$build/wpp" --prefix "$work/prefix" > "$work/install.log"
for file in bin/wpp include/tcgen/wpp/grammar.hpp include/tcgen/file_error.hpp; do
    [[ -e "$work/prefix/$file" ]] || { echo "FAIL: $file not installed"; exit 1; }
done

mkdir -p "$work/user"
cat > "$work/user/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(user_of_tcgen_wpp CXX)
find_package(tcgen_wpp 0.1 REQUIRED)
add_executable(user main.cpp)
target_link_libraries(user PRIVATE tcgen::tcgen_wpp)
CMAKE
cat > "$work/user/main.cpp" <<'CPP'
#include <cstdio>
#include <vector>
#include <tcgen/wpp/grammar.hpp>

int main() {
    std::vector<std::uint32_t> flow;  // a loop of three blocks, 100 trips, then an exit block
    for (int trip = 0; trip < 100; ++trip) {
        flow.insert(flow.end(), {1, 2, 3});
    }
    flow.push_back(4);
    tcgen::wpp::GrammarBuilder builder;
    builder.append(flow.data(), flow.size());
    const auto saved = builder.finish().to_bytes();
    const auto grammar = tcgen::wpp::Grammar::from_bytes(saved.data(), saved.size(), "user.wpp");
    if (grammar.expand() != flow) return 1;
    const auto hot = tcgen::wpp::hot_subpaths(grammar, 3, 1);
    if (hot.size() != 1 || hot[0].count != 100 || hot[0].symbols != std::vector<std::uint32_t>{1, 2, 3}) return 1;
    tcgen::wpp::Cursor cursor(grammar, grammar.length());
    std::uint32_t symbol = 0;
    for (std::size_t i = flow.size(); i-- > 0;) {
        if (!cursor.previous(symbol) || symbol != flow[i]) return 1;
    }
    std::printf("%zu symbols in %u rules, %zu bytes saved\n", flow.size(), grammar.rule_count(), saved.size());
    return 0;
}
CPP
cmake -S "$work/user" -B "$work/user/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/user/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
"$work/user/build/user"

printf 'WTF1\1\0\0\0\2\0\0\0\1\0\0\0\2\0\0\0' > "$work/tiny.flow"
"$work/prefix/bin/wpp" build "$work/tiny.flow" "$work/tiny.wpp"
"$work/prefix/bin/wpp" expand "$work/tiny.wpp" | cmp -s - "$work/tiny.flow" || { echo "FAIL: the installed wpp"; exit 1; }
echo "ok: the installed library and command"
