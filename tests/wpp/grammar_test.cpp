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

#include "runtime/lzma_codec.hpp"
#include "wpp/grammar_payload.hpp"
#include "wpp_file_bytes.hpp"

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

using wpp_file_bytes::forge;
using wpp_file_bytes::rule;
using wpp_file_bytes::seal;

TEST(WppFile, ForgedGrammarsAreRefused) {
    // The forger itself: a valid grammar loads. Rule 0 = 1 2; start = R0 R0 5.
    const std::vector<std::vector<Symbol>> valid{{1, 2}, {rule(0), rule(0), 5}};
    EXPECT_EQ(load_error(forge(valid, 5, 5)), "");
    const std::vector<std::uint8_t> good = forge(valid, 5, 5);
    EXPECT_EQ(Grammar::from_bytes(good.data(), good.size(), "t").expand(), (std::vector<std::uint32_t>{1, 2, 1, 2, 5}));
    // Lengths: the header's length disagrees, too few or too many symbols claimed.
    EXPECT_EQ(load_error(forge(valid, 6, 5)), "t.wpp: error: the rules expand to 5 symbols, the header claims 6");
    EXPECT_EQ(load_error(forge(valid, 5, 4)), "t.wpp: error: rule 1 claims more symbols than the header's 4 in all");
    EXPECT_EQ(load_error(forge(valid, 5, 1000)), "t.wpp: error: the rules hold 5 symbols, the header claims 1000");
    // More rules than the symbols can make; a rule count the payload does not hold.
    EXPECT_EQ(load_error(seal(tcgen::wpp::encode_payload({0, 2, 5}, {1, 2, rule(0), rule(0), 5}), 9, 5, 5)),
              "t.wpp: error: claims 9 rules and 5 symbols: rules of fewer than two symbols");
    EXPECT_NE(load_error(seal(tcgen::wpp::encode_payload({0, 2, 5}, {1, 2, rule(0), rule(0), 5}), 3, 5, 5)), "");
    EXPECT_EQ(load_error(seal(tcgen::wpp::encode_payload({0, 0}, {}), 0, 0, 0)), "t.wpp: error: no start rule (0 rules)");
    // The payload's end: cut short (resealed), or with a byte after the last rule.
    std::vector<std::uint8_t> payload = tcgen::wpp::encode_payload({0, 2, 5}, {1, 2, rule(0), rule(0), 5});
    const std::vector<std::uint8_t> cut(payload.begin(), payload.end() - 3);
    EXPECT_NE(load_error(seal(cut, 2, 5, 5)).find("t.wpp: error: payload ends inside rule"), std::string::npos);
    payload.push_back(0);
    EXPECT_EQ(load_error(seal(payload, 2, 5, 5)), "t.wpp: error: 1 unexpected bytes after the last rule");
    EXPECT_EQ(load_error(seal({}, 1, 0, 0)), "t.wpp: error: payload ends inside rule 0");
    EXPECT_EQ(load_error(seal({1, 2, 3, 4, 5, 6}, 1, 0, 0)),
              "t.wpp: error: corrupt payload: the payload does not start with the coder's 0 byte");
    // A chain of doublings whose length overflows 64 bits, refused before any expansion.
    const std::vector<std::vector<Symbol>> chain = wpp_file_bytes::doubling_chain(71);
    EXPECT_NE(load_error(forge(chain, 0, 2 * 71 + 1)).find("more than 2^64 - 1"), std::string::npos);
}

// The most predictable body there is, a start rule of one terminal repeated
// (a forgery: SEQUITUR never writes one), codes at most 768 symbols a
// payload byte, the bound load refuses more by; a header claiming more is
// refused before anything is allocated for it.
TEST(WppFile, SymbolsAreBoundedByThePayloadBytes) {
    const std::vector<std::uint8_t> file = wpp_file_bytes::repeated_start_rule(1'000'000);
    const std::size_t payload_bytes = file.size() - wpp_file_bytes::header_bytes;
    EXPECT_LE(1'000'000u, 768 * payload_bytes + 1024) << payload_bytes << " payload bytes";
    EXPECT_EQ(load_error(file), "");
    const std::uint64_t claimed = 768 * payload_bytes + 1025;
    EXPECT_EQ(load_error(wpp_file_bytes::repeated_start_rule(1'000'000, claimed)),
              "t.wpp: error: claims " + std::to_string(claimed) + " symbols, more than " +
                  std::to_string(payload_bytes) + " payload bytes can code");
}

TEST(WppFile, OtherFormatVersionsAreRefusedByName) {
    const std::vector<std::uint8_t> payload = tcgen::wpp::encode_payload({0, 1}, {7});
    EXPECT_EQ(load_error(seal(payload, 1, 1, 1)), "");
    EXPECT_EQ(load_error(seal(payload, 1, 1, 1, 1)),
              "t.wpp: error: made by an older wpp (format 1, varint payload); rebuild it with `wpp build`");
    EXPECT_EQ(load_error(seal(payload, 1, 1, 1, 2)), "");  // the same but for branch traces' outcomes
    EXPECT_EQ(load_error(seal(payload, 1, 1, 1, 4)),
              "t.wpp: error: grammar format version 4, this library reads versions 2 and 3");
    EXPECT_EQ(load_error(seal(payload, 1, 1, 1, 2, 2)),
              "t.wpp: error: unknown origin 2 or flags 0 in the header");
}

// `count` outcome records of 17 bytes (u64 pc, u64 target, u8 taken), all
// different.
std::vector<std::uint8_t> branch_outcomes(std::uint32_t count) {
    std::vector<std::uint8_t> records;
    for (std::uint32_t id = 0; id < count; ++id) {
        const std::uint64_t pc = 0x401000 + 4 * std::uint64_t{id / 2};
        const std::uint64_t target = 0x402000 + 16 * std::uint64_t{id};
        for (int i = 0; i < 8; ++i) {
            records.push_back(static_cast<std::uint8_t>(pc >> (8 * i)));
        }
        for (int i = 0; i < 8; ++i) {
            records.push_back(static_cast<std::uint8_t>(target >> (8 * i)));
        }
        records.push_back(static_cast<std::uint8_t>(id % 2));
    }
    return records;
}

// The payload's outcome part as the library writes it: their count and
// the LZMA bytes of `records`, then the rules.
std::vector<std::uint8_t> outcomes_payload(std::uint64_t count, const std::vector<std::uint8_t>& lzma_bytes,
                                           const std::vector<std::uint8_t>& rules_payload) {
    std::vector<std::uint8_t> payload;
    wpp_file_bytes::put_u64(payload, count);
    wpp_file_bytes::put_u64(payload, lzma_bytes.size());
    payload.insert(payload.end(), lzma_bytes.begin(), lzma_bytes.end());
    payload.insert(payload.end(), rules_payload.begin(), rules_payload.end());
    return payload;
}

// A grammar of a branch trace keeps the trace's outcomes: saved and loaded,
// the same ids, records and bytes.
TEST(WppFile, ABranchTracesOutcomesRoundTrip) {
    std::mt19937_64 random(5);
    std::vector<std::uint32_t> ids = looping_sequence(random, 5000);
    const std::uint32_t count = *std::max_element(ids.begin(), ids.end()) + 1;
    Grammar grammar = tcgen::wpp::build_grammar(ids.data(), ids.size());
    grammar.set_origin(Grammar::Origin::branches);
    grammar.set_outcomes(branch_outcomes(count));
    const std::vector<std::uint8_t> saved = grammar.to_bytes();
    const Grammar loaded = Grammar::from_bytes(saved.data(), saved.size(), "t.wpp");
    EXPECT_EQ(loaded.origin(), Grammar::Origin::branches);
    EXPECT_EQ(loaded.outcome_count(), count);
    EXPECT_EQ(loaded.outcomes(), branch_outcomes(count));
    EXPECT_EQ(loaded.expand(), ids);
    EXPECT_EQ(loaded.to_bytes(), saved);
}

TEST(WppFile, ForgedBranchOutcomesAreRefused) {
    const std::vector<std::uint8_t> rules = tcgen::wpp::encode_payload({0, 3}, {0, 1, 5});
    const auto lzma_of = [](const std::vector<std::uint8_t>& records) {
        std::vector<std::uint8_t> compressed;
        tcgen_runtime::lzma_compress(records.data(), records.size(), compressed);
        return compressed;
    };
    const std::vector<std::uint8_t> three = lzma_of(branch_outcomes(3));
    const auto branches = [&](const std::vector<std::uint8_t>& payload) {
        return load_error(seal(payload, 1, 3, 3, 3, 2));
    };
    EXPECT_EQ(branches(outcomes_payload(6, lzma_of(branch_outcomes(6)), rules)), "");
    EXPECT_EQ(branches(outcomes_payload(3, three, rules)), "t.wpp: error: symbol 5 is not one of the 3 branch outcomes");
    EXPECT_EQ(branches(outcomes_payload((std::uint64_t{1} << 32) + 1, three, rules)),
              "t.wpp: error: claims 4294967297 branch outcomes, more than 2^32");
    EXPECT_EQ(branches(outcomes_payload(4, three, rules)).rfind("t.wpp: error: corrupt input: the branch outcomes", 0),
              0u);
    const std::uint64_t too_many = (1024 * three.size() + 4096) / 17 + 1;
    EXPECT_EQ(branches(outcomes_payload(too_many, three, rules)),
              "t.wpp: error: claims " + std::to_string(too_many) + " branch outcomes in " +
                  std::to_string(three.size()) + " compressed bytes, more than 1024 times their size");
    std::vector<std::uint8_t> claims_more;
    wpp_file_bytes::put_u64(claims_more, 3);
    wpp_file_bytes::put_u64(claims_more, three.size() + 1);
    claims_more.insert(claims_more.end(), three.begin(), three.end());
    EXPECT_EQ(branches(claims_more), "t.wpp: error: the branch outcomes claim " + std::to_string(three.size() + 1) +
                                         " bytes, the payload has " + std::to_string(three.size()) +
                                         " after their sizes");
    EXPECT_EQ(branches({1, 2, 3}), "t.wpp: error: the payload ends inside the branch outcomes' sizes");
}

// Any payload byte changed and the checksum made right again: the load
// gives a grammar or one line naming the file, never a crash (the fuzz
// target tries far more).
TEST(WppFile, ResealedCorruptPayloadsLoadOrAreRefused) {
    std::mt19937_64 random(11);
    const auto input = looping_sequence(random, 3000);
    const Grammar grammar = tcgen::wpp::build_grammar(input.data(), input.size());
    const std::vector<std::uint8_t> saved = grammar.to_bytes();
    const std::vector<std::uint8_t> payload(saved.begin() + wpp_file_bytes::header_bytes, saved.end());
    std::size_t refused = 0;
    for (std::size_t at = 0; at < payload.size(); ++at) {
        for (const int bit : {0, 3, 7}) {
            std::vector<std::uint8_t> changed = payload;
            changed[at] ^= static_cast<std::uint8_t>(1u << bit);
            const std::string error = load_error(seal(changed, grammar.rule_count(), grammar.length(),
                                                      grammar.body_symbols()));
            if (!error.empty()) {
                ++refused;
                EXPECT_EQ(error.rfind("t.wpp: error: ", 0), 0u) << error;
            }
        }
    }
    EXPECT_GT(refused, payload.size());  // most changes are caught by the decoder and the lengths
}

// The coder's escapes and extremes, on grammars the builder would not make:
// terminals up to 2^32 - 1 in no particular order, more rules starting with
// one terminal than its move-to-front list keeps (references coded by
// distance), references tens of thousands of rules back, a chain of rules
// 60 deep, one-symbol and empty start rules.
TEST(WppFile, TheCodersEscapesRoundTrip) {
    std::vector<std::vector<std::vector<Symbol>>> grammars;
    grammars.push_back({{}});
    grammars.push_back({{0xFFFFFFFFu}});
    grammars.push_back({{0}});
    {
        std::vector<std::vector<Symbol>> same_start;
        for (std::uint32_t i = 0; i < 40000; ++i) {
            same_start.push_back({0xFFFFFFFFu, Symbol{i % 7 == 0 ? 0xFFFFFFFEu : i * 2654435761u}});
        }
        std::vector<Symbol> start;
        std::mt19937_64 random(3);
        for (std::uint32_t i = 0; i < 40000; ++i) {
            start.push_back(rule(i));
            start.push_back(rule(static_cast<std::uint32_t>(random() % 40000)));
        }
        same_start.push_back(start);
        grammars.push_back(same_start);
    }
    {
        std::vector<std::vector<Symbol>> deep{{5, 0xFFFFFFFFu}};
        for (std::uint32_t i = 0; i < 60; ++i) {
            deep.push_back({rule(i), i % 2 == 0 ? Symbol{i} : rule(0), rule(i)});
        }
        deep.push_back({rule(60), rule(0), 0x80000000u});
        grammars.push_back(deep);
    }
    for (const auto& rules : grammars) {
        std::vector<std::uint64_t> offsets{0};
        std::vector<Symbol> bodies;
        for (const auto& body : rules) {
            bodies.insert(bodies.end(), body.begin(), body.end());
            offsets.push_back(bodies.size());
        }
        const Grammar grammar = Grammar::from_rules(offsets, bodies, "t");
        const std::vector<std::uint8_t> saved = grammar.to_bytes();
        const Grammar loaded = Grammar::from_bytes(saved.data(), saved.size(), "t.wpp");
        ASSERT_EQ(loaded.rule_count(), grammar.rule_count());
        for (std::uint32_t r = 0; r < grammar.rule_count(); ++r) {
            ASSERT_EQ(std::vector<Symbol>(loaded.body(r), loaded.body(r) + loaded.body_size(r)), rules[r])
                << "rule " << r;
        }
        EXPECT_EQ(loaded.length(), grammar.length());
        EXPECT_EQ(loaded.to_bytes(), saved);
    }
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

// A rule the expansion never uses (a forged file may hold one): its symbols
// occur nowhere, so no subpath of it is listed, at L = 1 as at any other L.
TEST(WppHotSubpaths, RulesNeverUsedCountNothing) {
    // Rule 0 = 7 8, used by no one; the start rule = 3 4 3.
    const Grammar grammar = Grammar::from_rules({0, 2, 5}, {7, 8, 3, 4, 3}, "t");
    for (const std::size_t length : {1, 2}) {
        SCOPED_TRACE("L = " + std::to_string(length));
        const std::vector<std::uint32_t> sequence = grammar.expand();
        expect_same_table(tcgen::wpp::hot_subpaths(grammar, length, 0), brute_force(sequence, length));
        for (const tcgen::wpp::Subpath& subpath : tcgen::wpp::hot_subpaths(grammar, length, 0)) {
            EXPECT_GT(subpath.count, 0u);
        }
    }
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
