#pragma once
// The rules of a grammar over 32-bit terminals, as the SEQUITUR builder
// (sequitur.hpp) finishes them and the grammar payload (grammar_payload.hpp)
// codes them: the bodies rule by rule, rule r's body
// symbols[offsets[r] .. offsets[r + 1]), each rule referring only to rules
// before it, the start rule last, every rule but the start rule of two
// symbols or more. Here: the symbols, the checks and lengths of such rules,
// and their expansion. The grammar back-end (grammar_codec.hpp) and
// libtcgen_wpp share them.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "error.hpp"

namespace tcgen_runtime {

// A symbol of a rule's body: a terminal (below 2^32) or a reference to rule
// r (grammar_rule_base + r).
using GrammarSymbol = std::uint64_t;
inline constexpr GrammarSymbol grammar_rule_base = std::uint64_t{1} << 32;
constexpr bool is_grammar_rule(GrammarSymbol symbol) {
    return symbol >= grammar_rule_base;
}
constexpr std::uint32_t grammar_rule_of(GrammarSymbol symbol) {
    return static_cast<std::uint32_t>(symbol - grammar_rule_base);
}
constexpr std::uint32_t grammar_terminal_of(GrammarSymbol symbol) {
    return static_cast<std::uint32_t>(symbol);
}

// How many terminals each rule expands to, computed in number order, so
// that a reference to the rule itself or a later one (a cycle) is refused
// before anything expands. An Error (one line, no file name) when the
// offsets do not cover the bodies, a body refers to itself or a later rule,
// a rule but the start rule has fewer than two symbols, or a length
// overflows 64 bits.
inline std::vector<std::uint64_t> grammar_rule_lengths(const std::vector<std::uint64_t>& offsets,
                                                       const std::vector<GrammarSymbol>& symbols) {
    if (offsets.size() < 2 || offsets.front() != 0 || offsets.back() != symbols.size()) {
        fail("no start rule, or rule offsets that do not cover the bodies");
    }
    const std::size_t rules = offsets.size() - 1;
    if (rules > std::numeric_limits<std::uint32_t>::max()) {
        fail("more than 2^32 - 1 rules");
    }
    std::vector<std::uint64_t> lengths(rules, 0);
    constexpr std::uint64_t max_length = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t rule = 0; rule < rules; ++rule) {
        if (offsets[rule + 1] < offsets[rule]) {
            fail("rule " + std::to_string(rule) + ": offsets out of order");
        }
        const std::uint64_t size = offsets[rule + 1] - offsets[rule];
        if (rule + 1 < rules && size < 2) {
            fail("rule " + std::to_string(rule) + " has " + std::to_string(size) +
                 " symbols (every rule but the start rule has at least two)");
        }
        std::uint64_t length = 0;
        for (std::uint64_t i = offsets[rule]; i < offsets[rule + 1]; ++i) {
            std::uint64_t part = 1;
            if (is_grammar_rule(symbols[i])) {
                const std::uint64_t child = symbols[i] - grammar_rule_base;
                if (child >= rule) {
                    fail("rule " + std::to_string(rule) + " refers to rule " + std::to_string(child) +
                         (child == rule ? " (itself)" : ", not defined before it"));
                }
                part = lengths[child];
            }
            if (part > max_length - length) {
                fail("rule " + std::to_string(rule) + " expands to more than 2^64 - 1 symbols");
            }
            length += part;
        }
        lengths[rule] = length;
    }
    return lengths;
}

// The start rule's expansion, in order, handed to `sink(const std::uint32_t*
// terminals, std::size_t count)` in pieces of at most 65536 terminals.
// Iterative, so any depth is fine. The rules must have passed
// grammar_rule_lengths (no reference forward, so the walk ends).
template <class Sink>
void expand_grammar(const std::vector<std::uint64_t>& offsets, const std::vector<GrammarSymbol>& symbols, Sink&& sink) {
    constexpr std::size_t piece = 65536;
    std::vector<std::uint32_t> buffer;
    buffer.reserve(piece);
    struct Frame {
        std::uint64_t at;   // the next symbol, an index into symbols
        std::uint64_t end;  // the end of the body
    };
    const std::size_t start = offsets.size() - 2;
    std::vector<Frame> stack{{offsets[start], offsets[start + 1]}};
    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.at == top.end) {
            stack.pop_back();
            continue;
        }
        const GrammarSymbol symbol = symbols[static_cast<std::size_t>(top.at++)];
        if (is_grammar_rule(symbol)) {
            const std::uint32_t rule = grammar_rule_of(symbol);
            stack.push_back(Frame{offsets[rule], offsets[rule + 1]});
            continue;
        }
        buffer.push_back(grammar_terminal_of(symbol));
        if (buffer.size() == piece) {
            sink(static_cast<const std::uint32_t*>(buffer.data()), buffer.size());
            buffer.clear();
        }
    }
    if (!buffer.empty()) {
        sink(static_cast<const std::uint32_t*>(buffer.data()), buffer.size());
    }
}

}  // namespace tcgen_runtime
