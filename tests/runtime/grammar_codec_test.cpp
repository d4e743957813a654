// The grammar back-end on its own (grammar_codec.hpp) and the runtime's
// grammar pieces it is made of (grammar_rules.hpp, sequitur.hpp,
// grammar_payload.hpp): round trips of id streams of every shape, the
// stored fallback, bytes that are the same on every run, and damaged or
// forged data refused before anything is allocated for it. What every
// back-end shares is tested in backends_test.cpp; libtcgen_wpp's use of the
// same pieces in tests/wpp.

#include "runtime/grammar_codec.hpp"

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/checksum.hpp"
#include "tests/runtime/random_bytes.hpp"

namespace tcgen_runtime {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(const std::vector<std::uint32_t>& ids) {
    Bytes bytes(ids.size() * 4);
    for (std::size_t index = 0; index < ids.size(); ++index) {
        store_le32(bytes.data() + 4 * index, ids[index]);
    }
    return bytes;
}

// Like a branch trace's ids: nested loops whose bodies take one of a few
// paths, ids numbered in order of first appearance.
std::vector<std::uint32_t> loop_ids(std::size_t count) {
    std::mt19937 random(3);
    std::vector<std::uint32_t> ids;
    while (ids.size() < count) {
        const std::uint32_t outer = static_cast<std::uint32_t>(random() % 4);
        for (std::uint32_t trip = 0; trip < 20 + random() % 30 && ids.size() < count; ++trip) {
            ids.push_back(10 * outer);
            ids.push_back(10 * outer + 1 + (random() % 8 == 0 ? 1 : 0));
            ids.push_back(10 * outer + 3);
        }
        ids.push_back(50 + static_cast<std::uint32_t>(random() % 100));
    }
    ids.resize(count);
    return ids;
}

Bytes compress(const Bytes& data) {
    Bytes out;
    grammar_compress(data.data(), data.size(), out);
    return out;
}

Bytes decompress(const Bytes& compressed, std::size_t expected_size) {
    Bytes out;
    grammar_decompress(compressed.data(), compressed.size(), out, expected_size, "stream 'ids'");
    return out;
}

std::string decompress_error(const Bytes& compressed, std::size_t expected_size) {
    try {
        decompress(compressed, expected_size);
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

void put_leb128(Bytes& out, std::uint64_t value) {
    grammar_codec_detail::put_leb128(out, value);
}

// A buffer of mode 1 with the counts and payload given.
Bytes grammar_buffer(std::uint64_t rules, std::uint64_t symbols, const Bytes& payload) {
    Bytes buffer{1};
    put_leb128(buffer, rules);
    put_leb128(buffer, symbols);
    buffer.insert(buffer.end(), payload.begin(), payload.end());
    return buffer;
}

constexpr GrammarSymbol rule(std::uint32_t number) {
    return grammar_rule_base + number;
}

TEST(GrammarCodec, RoundTripsIdStreams) {
    std::mt19937 random(7);
    std::vector<std::uint32_t> few_ids(20000);
    for (std::uint32_t& id : few_ids) {
        id = static_cast<std::uint32_t>(random() % 16);
    }
    std::vector<std::uint32_t> one_id(5000, 42);
    std::vector<std::uint32_t> high_ids = loop_ids(3000);
    for (std::uint32_t& id : high_ids) {
        id = 0xFFFFFFFFu - id;
    }
    for (const std::vector<std::uint32_t>& ids :
         {loop_ids(1), loop_ids(2), loop_ids(3), loop_ids(100000), few_ids, one_id, high_ids}) {
        const Bytes data = bytes_of(ids);
        const Bytes compressed = compress(data);
        EXPECT_LE(compressed.size(), grammar_compress_bound(data.size()));
        EXPECT_EQ(decompress(compressed, data.size()), data) << ids.size() << " ids";
    }
    const Bytes loops = bytes_of(loop_ids(100000));
    const Bytes compressed = compress(loops);
    EXPECT_EQ(compressed[0], 1);
    EXPECT_LT(compressed.size(), loops.size() / 40);
    EXPECT_EQ(compress(bytes_of(one_id))[0], 1);
}

TEST(GrammarCodec, EmptyIsZeroBytes) {
    EXPECT_EQ(compress({}), Bytes{});
    EXPECT_EQ(decompress({}, 0), Bytes{});
}

TEST(GrammarCodec, StoresWhatItCannotShrink) {
    // One id: four bytes, a grammar of one symbol and its coder's five.
    const Bytes one = bytes_of({7});
    EXPECT_EQ(compress(one), (Bytes{0, 7, 0, 0, 0}));
    EXPECT_EQ(decompress(compress(one), 4), one);
    // Sizes that are not whole ids, and ids that never repeat.
    for (const std::size_t size : {1u, 2u, 3u, 5u, 4097u, 40003u}) {
        const Bytes data = tcgen_test::random_bytes(size, static_cast<std::uint32_t>(size));
        const Bytes compressed = compress(data);
        EXPECT_EQ(compressed.size(), size + 1) << size;
        EXPECT_EQ(compressed[0], 0) << size;
        EXPECT_EQ(decompress(compressed, size), data) << size;
    }
    const Bytes distinct = tcgen_test::random_bytes(40000, 11);
    EXPECT_EQ(compress(distinct).size(), distinct.size() + 1);
    EXPECT_EQ(decompress(compress(distinct), distinct.size()), distinct);
}

// The same bytes on every run (and, integer arithmetic only, every
// compiler): a digest of the output pinned.
TEST(GrammarCodec, SameBytesEveryRun) {
    const Bytes data = bytes_of(loop_ids(50000));
    const Bytes first = compress(data);
    EXPECT_EQ(compress(data), first);
    EXPECT_EQ(xxh64(first.data(), first.size(), 0), 3774363590093002930u) << first.size() << " bytes";
}

TEST(GrammarCodec, RefusesDamagedData) {
    const Bytes data = bytes_of(loop_ids(20000));
    const Bytes compressed = compress(data);
    const std::size_t size = data.size();
    EXPECT_EQ(decompress_error({}, 8), "corrupt input: stream 'ids' is empty but should hold 8 bytes");
    EXPECT_EQ(decompress_error(compressed, 0), "corrupt input: stream 'ids' should be empty but has " +
                                                   std::to_string(compressed.size()) + " compressed bytes");
    EXPECT_EQ(decompress_error({0, 1, 2, 3}, 4), "corrupt input: stream 'ids' decompresses to 3 bytes instead of 4");
    EXPECT_EQ(decompress_error({0, 1, 2, 3}, 2), "corrupt input: stream 'ids' decompresses to more than 2 bytes");
    EXPECT_EQ(decompress_error({2, 1, 2, 3}, 4), "corrupt input: stream 'ids' is not valid grammar data (mode 2)");
    EXPECT_EQ(decompress_error(compressed, size + 2),
              "corrupt input: stream 'ids' decompresses to 80000 bytes instead of 80002");
    EXPECT_EQ(decompress_error(compressed, size + 4),
              "corrupt input: stream 'ids' decompresses to 80000 bytes instead of 80004");
    EXPECT_EQ(decompress_error(compressed, size - 1),
              "corrupt input: stream 'ids' decompresses to more than 79999 bytes");
    EXPECT_EQ(decompress_error(compressed, size - 4),
              "corrupt input: stream 'ids' decompresses to more than 79996 bytes");
    // Cut short, or a byte after the last rule.
    const Bytes cut(compressed.begin(), compressed.end() - 3);
    EXPECT_EQ(decompress_error(cut, size),
              "corrupt input: stream 'ids' is not valid grammar data (payload ends inside rule 406)");
    Bytes longer = compressed;
    longer.push_back(0);
    EXPECT_EQ(decompress_error(longer, size),
              "corrupt input: stream 'ids' has 1 bytes after the end of its grammar stream");
    EXPECT_EQ(decompress_error({1, 0x80}, 8),
              "corrupt input: stream 'ids' is not valid grammar data (ends inside its rule count)");
    EXPECT_EQ(decompress_error({1, 1}, 8),
              "corrupt input: stream 'ids' is not valid grammar data (ends inside its symbol count)");
    // A flipped bit: an error or bytes of the expected size (the
    // container's checksums catch the rest), never a crash.
    for (std::size_t at = 0; at < compressed.size(); at += 7) {
        Bytes damaged = compressed;
        damaged[at] ^= 0x10;
        try {
            EXPECT_EQ(decompress(damaged, size).size(), size);
        } catch (const Error& error) {
            EXPECT_EQ(std::string(error.what()).rfind("corrupt input: stream 'ids' ", 0), 0u) << error.what();
        }
    }
}

// Counts that no payload of the bytes present can code, or that the
// expected size cannot hold, are refused before anything is allocated for
// them (a gigantic expected size included: nothing is allocated for it
// before the grammar is checked to expand to it).
TEST(GrammarCodec, RefusesForgedCounts) {
    const Bytes payload = encode_grammar_payload({0, 2, 5}, {1, 2, rule(0), rule(0), 5});
    const std::size_t size = 5 * 4;
    EXPECT_EQ(decompress(grammar_buffer(2, 5, payload), size), bytes_of({1, 2, 1, 2, 5}));
    const std::size_t huge = std::size_t{1} << 50;
    EXPECT_EQ(decompress_error(grammar_buffer(1, std::uint64_t{1} << 40, payload), huge),
              "corrupt input: stream 'ids' is not valid grammar data (claims 1099511627776 symbols, more than " +
                  std::to_string(payload.size()) + " payload bytes can code)");
    EXPECT_EQ(decompress_error(grammar_buffer(0xFFFFFFFFu, 10, payload), huge),
              "corrupt input: stream 'ids' is not valid grammar data (4294967295 rules of 10 symbols)");
    EXPECT_EQ(decompress_error(grammar_buffer(std::uint64_t{1} << 32, 5, payload), size),
              "corrupt input: stream 'ids' is not valid grammar data (a rule count beyond 32 bits)");
    Bytes too_long{1, 2, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02};
    EXPECT_EQ(decompress_error(too_long, size),
              "corrupt input: stream 'ids' is not valid grammar data (a symbol count beyond 64 bits)");
    EXPECT_EQ(decompress_error(grammar_buffer(2, 6, payload), size),
              "corrupt input: stream 'ids' is not valid grammar data (6 body symbols for 5 expanded)");
    EXPECT_EQ(decompress_error(grammar_buffer(0, 5, payload), size),
              "corrupt input: stream 'ids' is not valid grammar data (no start rule)");
    EXPECT_EQ(decompress_error(grammar_buffer(4, 5, payload), size),
              "corrupt input: stream 'ids' is not valid grammar data (4 rules of 5 symbols)");
    // Counts that pass those checks but not the payload's own.
    EXPECT_EQ(decompress_error(grammar_buffer(3, 5, payload), size),
              "corrupt input: stream 'ids' is not valid grammar data (corrupt payload: a number longer than 64 bits)");
    EXPECT_EQ(decompress_error(grammar_buffer(2, 4, payload), size),
              "corrupt input: stream 'ids' is not valid grammar data (rule 1 claims more symbols than the header's 4 "
              "in all)");
    // Rules that expand to another length than the expected size's.
    const Bytes shorter = encode_grammar_payload({0, 2, 3}, {1, 2, rule(0)});
    EXPECT_EQ(decompress_error(grammar_buffer(2, 3, shorter), 12),
              "corrupt input: stream 'ids' decompresses to 8 bytes instead of 12");
}

// What the decoder checks of the decoded rules before it expands them
// (the payload cannot code a reference forward; these are the checks
// behind that).
TEST(GrammarRules, RefusesReferencesForwardAndShortRules) {
    const auto error = [](const std::vector<std::uint64_t>& offsets, const std::vector<GrammarSymbol>& symbols) {
        try {
            grammar_rule_lengths(offsets, symbols);
        } catch (const Error& refused) {
            return std::string(refused.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error({0, 2, 4}, {rule(1), 1, 2, 3}), "rule 0 refers to rule 1, not defined before it");
    EXPECT_EQ(error({0, 2, 4}, {rule(0), 1, 2, 3}), "rule 0 refers to rule 0 (itself)");
    EXPECT_EQ(error({0, 1, 3}, {1, rule(0), rule(0)}),
              "rule 0 has 1 symbols (every rule but the start rule has at least two)");
    EXPECT_EQ(error({0, 3}, {1, 2}), "no start rule, or rule offsets that do not cover the bodies");
    EXPECT_EQ(grammar_rule_lengths({0, 2, 5}, {1, 2, rule(0), rule(0), 5}), (std::vector<std::uint64_t>{2, 5}));
}

// SEQUITUR's grammar never holds more symbols than its input (the decoder
// refuses one that does), and expands to it.
TEST(Sequitur, GrammarNoLargerThanItsInput) {
    std::mt19937 random(13);
    for (const std::uint32_t alphabet : {1u, 2u, 3u, 5u, 50u, 100000u}) {
        SequiturBuilder builder;
        std::vector<std::uint32_t> input;
        for (int index = 0; index < 30000; ++index) {
            input.push_back(static_cast<std::uint32_t>(random() % alphabet));
            builder.append(input.back());
        }
        std::vector<std::uint64_t> offsets;
        std::vector<GrammarSymbol> symbols;
        builder.finish(offsets, symbols);
        EXPECT_LE(symbols.size(), input.size()) << alphabet;
        EXPECT_EQ(grammar_rule_lengths(offsets, symbols).back(), input.size());
        std::vector<std::uint32_t> expanded;
        expand_grammar(offsets, symbols, [&](const std::uint32_t* terminals, std::size_t count) {
            expanded.insert(expanded.end(), terminals, terminals + count);
        });
        EXPECT_EQ(expanded, input) << alphabet;
    }
}

TEST(GrammarCodec, EncoderBytes) {
    EXPECT_LT(grammar_encoder_bytes(0), std::uint64_t{1} << 20);
    EXPECT_EQ(grammar_encoder_bytes(std::uint64_t{4} << 20), (std::uint64_t{192} << 20) + (64 << 10));
}

}  // namespace
}  // namespace tcgen_runtime
