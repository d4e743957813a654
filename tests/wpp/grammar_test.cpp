// libtcgen_wpp against naive answers computed from the expanded sequence:
// SEQUITUR's two properties and exact expansion on random and structured
// inputs, the saved form (round trip, determinism, forgeries refused), hot
// subpaths against brute-force counting, and cursor walks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <tcgen/wpp/grammar.hpp>

#include "runtime/checksum.hpp"

namespace {

using tcgen::wpp::Grammar;
using tcgen::wpp::Symbol;
using tcgen::wpp::WppError;

// Digram uniqueness (two occurrences may only overlap, as in "aaa"), rule
// utility (every rule but the start referred to twice or more) and bodies of
// two symbols or more. Returns the first violation, or "".
std::string violation(const Grammar& grammar) {
    std::map<std::pair<Symbol, Symbol>, std::vector<std::pair<std::uint32_t, std::size_t>>> digrams;
    std::vector<std::uint64_t> uses(grammar.rule_count(), 0);
    for (std::uint32_t rule = 0; rule < grammar.rule_count(); ++rule) {
        const Symbol* body = grammar.body(rule);
        const std::size_t size = grammar.body_size(rule);
        if (rule != grammar.start_rule() && size < 2) {
            return "rule " + std::to_string(rule) + " has " + std::to_string(size) + " symbols";
        }
        for (std::size_t i = 0; i < size; ++i) {
            if (tcgen::wpp::is_rule(body[i])) {
                ++uses[tcgen::wpp::rule_of(body[i])];
            }
            if (i + 1 < size) {
                digrams[{body[i], body[i + 1]}].push_back({rule, i});
            }
        }
    }
    for (std::uint32_t rule = 0; rule + 1 < grammar.rule_count(); ++rule) {
        if (uses[rule] < 2) {
            return "rule " + std::to_string(rule) + " is used " + std::to_string(uses[rule]) + " time(s)";
        }
    }
    for (const auto& [digram, places] : digrams) {
        for (std::size_t a = 0; a < places.size(); ++a) {
            for (std::size_t b = a + 1; b < places.size(); ++b) {
                const bool overlap = places[a].first == places[b].first &&
                                     (places[a].second + 1 == places[b].second || places[b].second + 1 == places[a].second);
                if (!overlap) {
                    return "digram repeated in rules " + std::to_string(places[a].first) + " and " +
                           std::to_string(places[b].first);
                }
            }
        }
    }
    return "";
}

std::vector<std::uint32_t> random_sequence(std::mt19937_64& random, std::size_t length, std::uint64_t alphabet) {
    std::vector<std::uint32_t> sequence(length);
    for (auto& symbol : sequence) {
        symbol = static_cast<std::uint32_t>(alphabet == 0 ? random() : random() % alphabet);
    }
    return sequence;
}

// A trace-like sequence: loops of loops of blocks, with random exits.
std::vector<std::uint32_t> looping_sequence(std::mt19937_64& random, std::size_t length) {
    std::vector<std::uint32_t> sequence;
    while (sequence.size() < length) {
        const std::uint32_t body = static_cast<std::uint32_t>(random() % 6);
        const std::size_t trips = 1 + random() % 40;
        for (std::size_t trip = 0; trip < trips && sequence.size() < length; ++trip) {
            for (std::uint32_t block = 0; block <= body && sequence.size() < length; ++block) {
                sequence.push_back(10 * body + block + (random() % 50 == 0 ? 1000 : 0));
            }
        }
    }
    return sequence;
}

// Every input the tests build grammars of: random over many alphabets and
// lengths (0 and 1 symbols too), long repeats, periodic and trace-like ones.
std::vector<std::vector<std::uint32_t>> inputs() {
    std::vector<std::vector<std::uint32_t>> all;
    std::mt19937_64 random(2026);
    for (const std::size_t length : {0, 1, 2, 3, 4, 5, 7, 16, 100, 1000, 4000}) {
        for (const std::uint64_t alphabet : {1, 2, 3, 5, 26, 1000, 0}) {
            for (int seed = 0; seed < 3; ++seed) {
                all.push_back(random_sequence(random, length, alphabet));
            }
        }
    }
    for (const std::size_t length : {2, 3, 9, 10, 1000, 20000}) {
        all.push_back(std::vector<std::uint32_t>(length, 7));
        std::vector<std::uint32_t> pair;
        for (std::size_t i = 0; i < length; ++i) {
            pair.push_back(i % 2 == 0 ? 0xFFFFFFFFu : 0u);
        }
        all.push_back(pair);
    }
    for (const std::size_t period : {3, 7, 64}) {
        std::vector<std::uint32_t> periodic;
        for (std::size_t i = 0; i < 20000; ++i) {
            periodic.push_back(static_cast<std::uint32_t>((i % period) * 2654435761u));
        }
        all.push_back(periodic);
    }
    for (int seed = 0; seed < 20; ++seed) {
        all.push_back(looping_sequence(random, 500 + 500 * static_cast<std::size_t>(seed)));
    }
    // Random pieces repeated at random: long repeats of irregular content.
    for (int seed = 0; seed < 10; ++seed) {
        std::vector<std::vector<std::uint32_t>> pieces;
        for (int i = 0; i < 5; ++i) {
            pieces.push_back(random_sequence(random, 1 + random() % 30, 4));
        }
        std::vector<std::uint32_t> mixed;
        while (mixed.size() < 5000) {
            const auto& piece = pieces[random() % pieces.size()];
            mixed.insert(mixed.end(), piece.begin(), piece.end());
        }
        all.push_back(mixed);
    }
    return all;
}

const std::vector<std::vector<std::uint32_t>>& all_inputs() {
    static const std::vector<std::vector<std::uint32_t>> cached = inputs();
    return cached;
}

TEST(WppGrammar, PropertiesAndExactExpansion) {
    std::size_t index = 0;
    for (const auto& input : all_inputs()) {
        SCOPED_TRACE("input " + std::to_string(index++) + " of " + std::to_string(input.size()) + " symbols");
        const Grammar grammar = tcgen::wpp::build_grammar(input.data(), input.size());
        EXPECT_EQ(violation(grammar), "");
        EXPECT_EQ(grammar.length(), input.size());
        EXPECT_EQ(grammar.expand(), input);
    }
}

TEST(WppGrammar, TheCheckerCatchesViolations) {
    using tcgen::wpp::rule_base;
    // A digram twice in the start rule; a rule used once; "aaa" is allowed.
    EXPECT_NE(violation(Grammar::from_rules({0, 4}, {1, 2, 1, 2}, "t")), "");
    EXPECT_NE(violation(Grammar::from_rules({0, 2, 3}, {1, 2, rule_base + 0}, "t")), "");
    EXPECT_EQ(violation(Grammar::from_rules({0, 3}, {1, 1, 1}, "t")), "");
}

TEST(WppGrammar, CompressesRepeats) {
    const std::vector<std::uint32_t> same(1 << 16, 3);
    const Grammar grammar = tcgen::wpp::build_grammar(same.data(), same.size());
    EXPECT_LE(grammar.body_symbols(), 2u * 17u);  // a doubling chain of rules
    EXPECT_EQ(grammar.expand(), same);
}

TEST(WppGrammar, IncrementalBuilderMatchesOneShot) {
    const auto& input = all_inputs().back();
    tcgen::wpp::GrammarBuilder builder;
    for (std::size_t i = 0; i < input.size(); ++i) {
        builder.append(input[i]);
        if (i == input.size() / 2) {
            const Grammar half = builder.finish();  // finishing does not disturb the builder
            EXPECT_EQ(half.expand(), std::vector<std::uint32_t>(input.begin(), input.begin() + static_cast<long>(i) + 1));
        }
    }
    EXPECT_EQ(builder.finish().to_bytes(), tcgen::wpp::build_grammar(input.data(), input.size()).to_bytes());
}

TEST(WppFile, RoundTripAndDeterminism) {
    for (const auto& input : all_inputs()) {
        Grammar grammar = tcgen::wpp::build_grammar(input.data(), input.size());
        grammar.set_origin(Grammar::Origin::flow);
        const std::vector<std::uint8_t> saved = grammar.to_bytes();
        const Grammar again = tcgen::wpp::build_grammar(input.data(), input.size());
        std::vector<std::uint8_t> saved_again;
        {
            Grammar copy = again;
            copy.set_origin(Grammar::Origin::flow);
            saved_again = copy.to_bytes();
        }
        ASSERT_EQ(saved, saved_again);
        const Grammar loaded = Grammar::from_bytes(saved.data(), saved.size(), "t.wpp");
        EXPECT_EQ(loaded.origin(), Grammar::Origin::flow);
        EXPECT_EQ(loaded.expand(), input);
        EXPECT_EQ(loaded.to_bytes(), saved);
    }
}

// The error a load of `bytes` gives ("" when it loads).
std::string load_error(const std::vector<std::uint8_t>& bytes) {
    try {
        Grammar::from_bytes(bytes.data(), bytes.size(), "t.wpp");
        return "";
    } catch (const WppError& error) {
        EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
        return error.what();
    }
}

TEST(WppFile, EveryTruncationAndFlippedByteIsRefused) {
    std::mt19937_64 random(5);
    const auto input = looping_sequence(random, 3000);
    const std::vector<std::uint8_t> saved = tcgen::wpp::build_grammar(input.data(), input.size()).to_bytes();
    for (std::size_t size = 0; size < saved.size(); ++size) {
        const std::vector<std::uint8_t> cut(saved.begin(), saved.begin() + static_cast<long>(size));
        EXPECT_NE(load_error(cut), "") << "truncated to " << size;
    }
    for (std::size_t at = 0; at < saved.size(); ++at) {
        for (const int bit : {0, 7}) {
            std::vector<std::uint8_t> flipped = saved;
            flipped[at] ^= static_cast<std::uint8_t>(1u << bit);
            EXPECT_NE(load_error(flipped), "") << "byte " << at << " bit " << bit;
        }
    }
    std::vector<std::uint8_t> longer = saved;
    longer.push_back(0);
    EXPECT_NE(load_error(longer), "");
    EXPECT_EQ(load_error({'X', 'C', 'G', 'E', 'N', 'W', 'P', 'P'}), "t.wpp: error: not a saved grammar (no TCGENWPP magic)");
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) {
        out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    }
}
void put_u64(std::vector<std::uint8_t>& out, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) {
        out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    }
}
void put_varint(std::vector<std::uint8_t>& out, std::uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<std::uint8_t>(value | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(value));
}

// A forged file with a valid checksum: rules as lists of varint codes (the
// start rule last, its size as is, every other's less 2), as docs/wpp.md
// describes the format.
std::vector<std::uint8_t> forge(const std::vector<std::vector<std::uint64_t>>& rules, std::uint64_t length,
                                std::uint64_t symbols) {
    std::vector<std::uint8_t> payload;
    for (std::size_t rule = 0; rule < rules.size(); ++rule) {
        const bool start = rule + 1 == rules.size();
        put_varint(payload, start ? rules[rule].size() : rules[rule].size() - 2);
        for (const std::uint64_t code : rules[rule]) {
            put_varint(payload, code);
        }
    }
    std::vector<std::uint8_t> file{'T', 'C', 'G', 'E', 'N', 'W', 'P', 'P'};
    put_u32(file, 1);
    put_u32(file, static_cast<std::uint32_t>(rules.size()));
    put_u32(file, 0);
    put_u32(file, 0);
    put_u64(file, length);
    put_u64(file, symbols);
    put_u64(file, payload.size());
    put_u64(file, tcgen_runtime::xxh64(payload.data(), payload.size(), tcgen_runtime::xxh64(file.data(), file.size(), 0)));
    file.insert(file.end(), payload.begin(), payload.end());
    return file;
}

TEST(WppFile, ForgedGrammarsAreRefused) {
    // The forger itself: a valid grammar loads. Rule 0 = 1 2; start = R0 R0 5.
    EXPECT_EQ(load_error(forge({{2, 4}, {1, 1, 10}}, 5, 5)), "");
    EXPECT_EQ(Grammar::from_bytes(forge({{2, 4}, {1, 1, 10}}, 5, 5).data(), forge({{2, 4}, {1, 1, 10}}, 5, 5).size(), "t")
                  .expand(),
              (std::vector<std::uint32_t>{1, 2, 1, 2, 5}));
    // A reference to itself can't be written (distance 0 is not odd code);
    // distance past rule 0, a later rule:
    EXPECT_NE(load_error(forge({{2, 1}, {1, 1}}, 3, 4)).find("below rule 0"), std::string::npos);
    EXPECT_NE(load_error(forge({{2, 4}, {3, 1}}, 4, 4)).find("below rule 0"), std::string::npos);
    // Lengths: the header's length disagrees, too many symbols claimed.
    EXPECT_NE(load_error(forge({{2, 4}, {1, 1, 10}}, 6, 5)).find("expand to 5"), std::string::npos);
    EXPECT_NE(load_error(forge({{2, 4}, {1, 1, 10}}, 5, 4)).find("claims"), std::string::npos);
    EXPECT_NE(load_error(forge({{2, 4}, {1, 1, 10}}, 5, 1000)).find("claims"), std::string::npos);
    // A terminal beyond 32 bits; a varint beyond 64 bits.
    EXPECT_NE(load_error(forge({{std::uint64_t{1} << 33}}, 1, 1)).find("32 bits"), std::string::npos);
    // A chain of doublings whose length overflows 64 bits, refused before any expansion.
    std::vector<std::vector<std::uint64_t>> chain{{2, 2}};
    for (int i = 0; i < 70; ++i) {
        chain.push_back({1, 1});
    }
    chain.push_back({1});
    EXPECT_NE(load_error(forge(chain, 0, 2 * 71 + 1)).find("more than 2^64 - 1"), std::string::npos);
}

TEST(WppFile, FromRulesRefusesSelfAndLaterReferences) {
    using tcgen::wpp::rule_base;
    EXPECT_THROW(Grammar::from_rules({0, 2, 3}, {rule_base + 0, 1, rule_base + 0}, "t"), WppError);
    EXPECT_THROW(Grammar::from_rules({0, 2, 3}, {rule_base + 1, 1, rule_base + 0}, "t"), WppError);
    EXPECT_THROW(Grammar::from_rules({0, 1, 2}, {1, rule_base + 0}, "t"), WppError);  // a one-symbol rule
}

std::vector<tcgen::wpp::Subpath> brute_force(const std::vector<std::uint32_t>& sequence, std::size_t length) {
    std::map<std::vector<std::uint32_t>, std::uint64_t> counts;
    for (std::size_t start = 0; start + length <= sequence.size(); ++start) {
        ++counts[std::vector<std::uint32_t>(sequence.begin() + static_cast<long>(start),
                                            sequence.begin() + static_cast<long>(start + length))];
    }
    std::vector<tcgen::wpp::Subpath> table;
    for (const auto& [symbols, count] : counts) {
        table.push_back({count, symbols});
    }
    std::stable_sort(table.begin(), table.end(), [](const auto& a, const auto& b) { return a.count > b.count; });
    return table;
}

void expect_same_table(const std::vector<tcgen::wpp::Subpath>& got, const std::vector<tcgen::wpp::Subpath>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].count, want[i].count) << "row " << i;
        ASSERT_EQ(got[i].symbols, want[i].symbols) << "row " << i;
    }
}

TEST(WppHotSubpaths, EqualBruteForceCounting) {
    std::size_t index = 0;
    for (const auto& input : all_inputs()) {
        if (index++ % 3 != 0 && input.size() > 100) {
            continue;  // a third of the larger inputs keeps the test quick
        }
        const Grammar grammar = tcgen::wpp::build_grammar(input.data(), input.size());
        for (const std::size_t length : {1, 2, 3, 4, 5, 8, 16, 33}) {
            SCOPED_TRACE("input " + std::to_string(index - 1) + ", L = " + std::to_string(length));
            const auto want = brute_force(input, length);
            expect_same_table(tcgen::wpp::hot_subpaths(grammar, length, 0), want);
            expect_same_table(tcgen::wpp::hot_subpaths_of_sequence(input.data(), input.size(), length, 0), want);
            const auto top3 = tcgen::wpp::hot_subpaths(grammar, length, 3);
            expect_same_table(top3, std::vector<tcgen::wpp::Subpath>(want.begin(), want.begin() + static_cast<long>(
                                                                                                  std::min<std::size_t>(3, want.size()))));
        }
    }
}

TEST(WppHotSubpaths, RefuseWhatWouldNotFitTheMemoryLimit) {
    std::mt19937_64 random(3);
    const auto input = looping_sequence(random, 5000);
    const Grammar grammar = tcgen::wpp::build_grammar(input.data(), input.size());
    // 5000 windows of 1000 symbols: some 40 MB at most.
    EXPECT_THROW(tcgen::wpp::hot_subpaths(grammar, 1000, 10, 1 << 20), WppError);
    EXPECT_THROW(tcgen::wpp::hot_subpaths_of_sequence(input.data(), input.size(), 1000, 10, 1 << 20), WppError);
    expect_same_table(tcgen::wpp::hot_subpaths(grammar, 1000, 0), brute_force(input, 1000));
}

TEST(WppCursor, WalksEqualTheSequence) {
    std::mt19937_64 random(11);
    for (const auto& input : all_inputs()) {
        const Grammar grammar = tcgen::wpp::build_grammar(input.data(), input.size());
        std::uint32_t symbol = 0;
        tcgen::wpp::Cursor forward(grammar);
        for (std::size_t i = 0; i < input.size(); ++i) {
            ASSERT_TRUE(forward.next(symbol));
            ASSERT_EQ(symbol, input[i]);
        }
        EXPECT_FALSE(forward.next(symbol));
        EXPECT_EQ(forward.position(), input.size());
        for (std::size_t i = input.size(); i-- > 0;) {
            ASSERT_TRUE(forward.previous(symbol));  // back over the whole sequence from the end
            ASSERT_EQ(symbol, input[i]);
        }
        EXPECT_FALSE(forward.previous(symbol));
        // Random positions, random directions.
        for (int walk = 0; walk < 3; ++walk) {
            std::uint64_t position = input.empty() ? 0 : random() % (input.size() + 1);
            tcgen::wpp::Cursor cursor(grammar, position);
            for (int step = 0; step < 200; ++step) {
                if (random() % 2 == 0) {
                    const bool moved = cursor.next(symbol);
                    ASSERT_EQ(moved, position < input.size());
                    if (moved) {
                        ASSERT_EQ(symbol, input[position++]);
                    }
                } else {
                    const bool moved = cursor.previous(symbol);
                    ASSERT_EQ(moved, position > 0);
                    if (moved) {
                        ASSERT_EQ(symbol, input[--position]);
                    }
                }
                ASSERT_EQ(cursor.position(), position);
            }
        }
    }
}

}  // namespace
