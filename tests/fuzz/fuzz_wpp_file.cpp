// Grammar::from_bytes on any bytes, and SEQUITUR on any symbols. The first
// byte is the mode:
//   bit 1 clear: the rest is a saved grammar; with bit 0 set its checksum is
//     recomputed first, so that forgeries reach the parser behind it.
//     Loading succeeds or throws WppError: never a crash, a sanitizer
//     report, another exception, or an allocation the input's size does not
//     pay for. A grammar that loads (and expands to 20000 symbols or fewer)
//     must expand, walk forward and backward, count hot subpaths on the DAG
//     and save again, all agreeing with its expansion; and no grammar holds
//     more symbols than 768 a payload byte (and 1024 more).
//   bit 1 set: the rest is u32 symbols (little-endian, over an alphabet of
//     1 << (mode >> 2 & 7) values, so that repeats are common); their
//     grammar must expand to them, save and load to the same grammar.

#include <cstdint>
#include <cstring>
#include <vector>

#include <tcgen/wpp/grammar.hpp>

#include "fuzz_support.hpp"
#include "tests/wpp/wpp_file_bytes.hpp"

namespace {

using tcgen::wpp::Grammar;

using wpp_file_bytes::header_bytes;
using wpp_file_bytes::reseal;

bool same(const std::vector<tcgen::wpp::Subpath>& a, const std::vector<tcgen::wpp::Subpath>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].count != b[i].count || a[i].symbols != b[i].symbols) {
            return false;
        }
    }
    return true;
}

// Everything a loaded or built grammar answers must agree with its expansion.
void check_queries(const Grammar& grammar) {
    const std::vector<std::uint32_t> sequence = grammar.expand();
    tcgen_fuzz::check(sequence.size() == grammar.length(), "the expansion's length is not length()");
    tcgen::wpp::Cursor cursor(grammar);
    std::uint32_t symbol = 0;
    for (const std::uint32_t expected : sequence) {
        tcgen_fuzz::check(cursor.next(symbol) && symbol == expected, "a forward walk differs from the expansion");
    }
    tcgen_fuzz::check(!cursor.next(symbol), "a forward walk runs past the end");
    for (std::size_t i = sequence.size(); i-- > 0;) {
        tcgen_fuzz::check(cursor.previous(symbol) && symbol == sequence[i], "a backward walk differs from the expansion");
    }
    tcgen_fuzz::check(!cursor.previous(symbol), "a backward walk runs past the start");
    for (const std::size_t length : {1, 2, 3, 5}) {
        tcgen_fuzz::check(same(tcgen::wpp::hot_subpaths(grammar, length, 0),
                               tcgen::wpp::hot_subpaths_of_sequence(sequence.data(), sequence.size(), length, 0)),
                          "hot subpaths on the grammar differ from those of the expansion");
    }
    const std::vector<std::uint8_t> saved = grammar.to_bytes();
    const Grammar again = Grammar::from_bytes(saved.data(), saved.size(), "again.wpp");
    tcgen_fuzz::check(again.to_bytes() == saved, "a saved grammar does not load to the same grammar");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const std::uint8_t mode = data[0];
    return tcgen_fuzz::run_input([&] {
        if (mode & 2) {
            const std::uint32_t mask = (std::uint32_t{1} << ((mode >> 2) & 7)) - 1;
            std::vector<std::uint32_t> symbols((size - 1) / 4);
            for (std::size_t i = 0; i < symbols.size(); ++i) {
                std::memcpy(&symbols[i], data + 1 + 4 * i, 4);
                symbols[i] &= mask == 0 ? 0xFFFFFFFFu : mask;
            }
            const Grammar grammar = tcgen::wpp::build_grammar(symbols.data(), symbols.size());
            tcgen_fuzz::check(grammar.expand() == symbols, "a grammar does not expand to its input");
            check_queries(grammar);
            return;
        }
        std::vector<std::uint8_t> bytes(data + 1, data + size);
        if (mode & 1) {
            reseal(bytes);
        }
        try {
            const Grammar grammar = Grammar::from_bytes(bytes.data(), bytes.size(), "fuzz.wpp");
            // What a load holds is bounded by the payload's bytes (docs/wpp.md).
            tcgen_fuzz::check(grammar.body_symbols() <= 768 * (bytes.size() - header_bytes) + 1024,
                              "a grammar holds more symbols than its payload can code");
            if (grammar.length() <= 20000) {
                check_queries(grammar);
            }
        } catch (const tcgen::wpp::WppError&) {
        }
    });
}
