#pragma once
// A grammar stream back-end (`--backend=grammar`) for streams of 32-bit
// ids, such as a codec's "ids" stream (a record's number in order of first
// appearance): the buffer's little-endian u32 symbols become a SEQUITUR
// grammar (sequitur.hpp) whose rule bodies are range coded as a .wpp file
// codes them (grammar_payload.hpp). On branch traces' ids that is about a
// third smaller than LZMA at -9 (docs/design/log.md, "The grammar as a
// stream back-end"). Any buffer is accepted: one it cannot shrink, or whose
// size is not a multiple of 4, is stored.
//
// Format rule: an empty buffer is zero bytes. Otherwise one mode byte: 0,
// the buffer stored as it is; 1, a grammar of the buffer's size / 4
// symbols: the rule count (the start rule included) and the body symbols of
// all rules together, each as LEB128 (at most 5 and 10 bytes), then the
// range-coded payload of the rule bodies to the buffer's last byte (a size
// that is not a multiple of 4 is always stored). The decoder refuses, all
// before it expands: counts that the payload's bytes cannot code (768
// symbols a byte, and 1024 more) or that the expected size cannot hold (a
// grammar never has more symbols than its expansion), a rule referring to
// itself or a later one, a rule but the start rule of fewer than two
// symbols, an expansion of another length and unused bytes. What it
// allocates follows the input's and the expected size, never a count the
// input claims.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "byte_order.hpp"
#include "error.hpp"
#include "grammar_payload.hpp"
#include "grammar_rules.hpp"
#include "sequitur.hpp"

namespace tcgen_runtime {

namespace grammar_codec_detail {

inline constexpr std::uint8_t mode_stored = 0;
inline constexpr std::uint8_t mode_grammar = 1;

inline void put_leb128(std::vector<std::uint8_t>& out, std::uint64_t value) {
    for (;; value >>= 7) {
        out.push_back(static_cast<std::uint8_t>((value & 127u) | (value >= 128 ? 128u : 0u)));
        if (value < 128) {
            return;
        }
    }
}

inline void store(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed) {
    compressed.assign(1, mode_stored);
    compressed.insert(compressed.end(), data, data + size);
}

}  // namespace grammar_codec_detail

// The mode byte and the stored bytes: a grammar is kept only when smaller.
constexpr std::uint64_t grammar_compress_bound(std::uint64_t size) {
    return size == 0 ? 0 : size + 1;
}

// What the encoder takes on a stream of stream_bytes, at worst (distinct
// symbols that never repeat): SEQUITUR's nodes and digram table (about 48
// bytes a symbol), then the finished rules (8 bytes a symbol) and the
// payload model's lists and maps (about 150 bytes a distinct symbol): 4 M
// random ids (16 MB) peaked at 750 MB beside their input.
inline std::uint64_t grammar_encoder_bytes(std::uint64_t stream_bytes) {
    return 48 * stream_bytes + (std::uint64_t{64} << 10);
}

// Compresses data[0..size) into `compressed` (replacing its contents).
inline void grammar_compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed) {
    using namespace grammar_codec_detail;
    compressed.clear();
    if (size == 0) {
        return;
    }
    if (size % 4 != 0) {
        store(data, size, compressed);
        return;
    }
    std::vector<std::uint64_t> offsets;
    std::vector<GrammarSymbol> symbols;
    {
        SequiturBuilder builder;
        for (std::size_t at = 0; at < size; at += 4) {
            builder.append(load_le32(data + at));
        }
        builder.finish(offsets, symbols);
    }
    compressed.push_back(mode_grammar);
    put_leb128(compressed, offsets.size() - 1);
    put_leb128(compressed, symbols.size());
    const std::vector<std::uint8_t> payload = encode_grammar_payload(offsets, symbols);
    if (compressed.size() + payload.size() >= grammar_compress_bound(size)) {
        store(data, size, compressed);
        return;
    }
    compressed.insert(compressed.end(), payload.begin(), payload.end());
}

// The back-end's compression (backends.hpp): the same at every level.
inline void grammar_compress_at_level(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                                      unsigned /*level*/) {
    grammar_compress(data, size, compressed);
}

// Decompresses into `out` exactly expected_size bytes; `what` names the data
// in messages ("corrupt input: WHAT ...").
inline void grammar_decompress(const std::uint8_t* input, std::size_t input_size, std::vector<std::uint8_t>& out,
                               std::size_t expected_size, std::string_view what = "grammar data") {
    using namespace grammar_codec_detail;
    const std::string name(what);
    out.clear();
    if (input_size == 0 && expected_size == 0) {
        return;
    }
    if (input_size == 0) {
        fail("corrupt input: " + name + " is empty but should hold " + std::to_string(expected_size) + " bytes");
    }
    if (expected_size == 0) {
        fail("corrupt input: " + name + " should be empty but has " + std::to_string(input_size) + " compressed bytes");
    }
    const auto more_than_expected = [&] {
        return "corrupt input: " + name + " decompresses to more than " + std::to_string(expected_size) + " bytes";
    };
    const auto fewer_than_expected = [&](std::uint64_t produced) {
        return "corrupt input: " + name + " decompresses to " + std::to_string(produced) + " bytes instead of " +
               std::to_string(expected_size);
    };
    if (input[0] == mode_stored) {
        if (input_size - 1 > expected_size) {
            fail(more_than_expected());
        }
        if (input_size - 1 < expected_size) {
            fail(fewer_than_expected(input_size - 1));
        }
        out.assign(input + 1, input + input_size);
        return;
    }
    const auto invalid = [&](const std::string& why) {
        return "corrupt input: " + name + " is not valid grammar data (" + why + ")";
    };
    if (input[0] != mode_grammar) {
        fail(invalid("mode " + std::to_string(input[0])));
    }
    std::size_t position = 1;
    const auto read_count = [&](const char* count, unsigned max_bits) {
        std::uint64_t value = 0;
        for (unsigned shift = 0;; shift += 7) {
            if (position == input_size) {
                fail(invalid(std::string("ends inside its ") + count));
            }
            const std::uint8_t byte = input[position++];
            if (shift >= max_bits || (max_bits - shift < 7 && (byte & 127u) >> (max_bits - shift) != 0)) {
                fail(invalid(std::string("a ") + count + " beyond " + std::to_string(max_bits) + " bits"));
            }
            value |= std::uint64_t{byte & 127u} << shift;
            if (byte < 128) {
                return value;
            }
        }
    };
    const std::uint64_t rules = read_count("rule count", 32);
    const std::uint64_t symbol_count = read_count("symbol count", 64);
    const std::uint64_t expanded = expected_size / 4;
    if (rules == 0) {
        fail(invalid("no start rule"));
    }
    // A grammar never has more symbols than its expansion (sequitur.hpp);
    // every rule but the start rule has two symbols or more.
    if (symbol_count > expanded) {
        fail(invalid(std::to_string(symbol_count) + " body symbols for " + std::to_string(expanded) + " expanded"));
    }
    if (rules - 1 > symbol_count / 2) {
        fail(invalid(std::to_string(rules) + " rules of " + std::to_string(symbol_count) + " symbols"));
    }
    std::vector<std::uint64_t> offsets;
    std::vector<GrammarSymbol> symbols;
    std::vector<std::uint64_t> lengths;
    std::size_t unused = 0;
    try {
        unused = decode_grammar_payload(input + position, input_size - position, static_cast<std::uint32_t>(rules),
                                        symbol_count, offsets, symbols);
        lengths = grammar_rule_lengths(offsets, symbols);
    } catch (const Error& error) {
        fail(invalid(error.what()));
    }
    if (lengths.back() > expanded || lengths.back() * 4 > expected_size) {
        fail(more_than_expected());
    }
    if (lengths.back() * 4 < expected_size) {
        fail(fewer_than_expected(lengths.back() * 4));
    }
    if (unused != 0) {
        fail("corrupt input: " + name + " has " + std::to_string(unused) +
             " bytes after the end of its grammar stream");
    }
    lengths = std::vector<std::uint64_t>();
    out.resize(expected_size);
    std::uint8_t* to = out.data();
    expand_grammar(offsets, symbols, [&](const std::uint32_t* terminals, std::size_t count) {
        for (std::size_t index = 0; index < count; ++index) {
            store_le32(to, terminals[index]);
            to += 4;
        }
    });
}

}  // namespace tcgen_runtime
