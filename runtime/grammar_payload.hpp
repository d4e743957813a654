#pragma once
// The grammar payload: the rule bodies of a grammar (grammar_rules.hpp),
// arithmetic coded. The .wpp file (format 2 and 3, docs/wpp.md) and the
// grammar back-end (grammar_codec.hpp) hold it as it is. The rules in
// number order, each body's size, then its symbols, all through the range
// coder of range_coder.hpp with these models (the design log measures them
// against the alternatives tried):
//
//   - A symbol is predicted from the terminal its predecessor in the body
//     ends with: the flow goes from that block to one of a few successors,
//     so first the terminal the symbol starts with is coded as its place in
//     a move-to-front list of the terminals seen to follow that one, or an
//     escape and the terminal itself: one bit when it is "the next new
//     terminal" (one more than any so far, as block ids numbered in order of
//     first appearance mostly are), else its value. The first symbol of a
//     body has a list of its own.
//   - Then which symbol starting with that terminal: its place in a short
//     move-to-front list of the terminal itself and the rules starting with
//     it (a rule enters at the front when its body is done, since in
//     post-order a rule's first reference comes soon after it), or an
//     escape: a bit for "the terminal itself", else the rule's place among
//     all rules starting with that terminal, most used first, coded with a
//     model chosen by how many there are. Most of a large grammar's bytes
//     are these places: a reference to an old rule is the one thing nothing
//     here predicts well.
//
// The move-to-front lists are capped, so that no step costs more than the
// cap on a forged payload. The model is written once (PayloadModel) for
// encoding and decoding.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "error.hpp"
#include "grammar_rules.hpp"
#include "range_coder.hpp"

namespace tcgen_runtime {

// A bound on the symbols a payload byte can code: 756 and a margin
// (decode_grammar_payload says why).
inline constexpr std::uint64_t grammar_payload_symbols_per_byte = 768;
inline constexpr std::uint64_t grammar_payload_symbols_beyond_the_bound = 1024;

namespace grammar_payload_detail {

template <class Item, std::size_t capacity>
class MoveToFront {
public:
    std::size_t size() const { return items_.size(); }
    const Item& operator[](std::size_t index) const { return items_[index]; }
    std::size_t find(const Item& item) const {
        return static_cast<std::size_t>(std::find(items_.begin(), items_.end(), item) - items_.begin());
    }
    void use(std::size_t index) {
        std::rotate(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(index),
                    items_.begin() + static_cast<std::ptrdiff_t>(index) + 1);
    }
    void add(const Item& item) {
        if (items_.size() == capacity) {
            items_.pop_back();
        }
        items_.insert(items_.begin(), item);
    }

private:
    std::vector<Item> items_;
};

// The rules done, in groups by their first terminal, each group in
// decreasing order of the rules' uses so far. A use moves a rule to the
// front of those with as many uses as it had (a binary search and a swap),
// so every step costs O(log group).
class RulesByUse {
public:
    // Rules must be added in number order, from 0.
    void add(std::uint32_t first, std::uint32_t rule) {
        std::vector<std::uint32_t>& group = groups_[first];
        place_.push_back(group.size());
        uses_.push_back(0);
        group.push_back(rule);
    }
    const std::vector<std::uint32_t>& group(std::uint32_t first) { return groups_[first]; }
    std::size_t place_of(std::uint32_t rule) const { return place_[rule]; }
    void used(std::uint32_t first, std::uint32_t rule) {
        std::vector<std::uint32_t>& group = groups_[first];
        const std::uint64_t had = uses_[rule];
        const std::size_t from = place_[rule];
        const auto ahead = std::partition_point(group.begin(), group.begin() + static_cast<std::ptrdiff_t>(from),
                                                [&](std::uint32_t other) { return uses_[other] > had; });
        const std::size_t to = static_cast<std::size_t>(ahead - group.begin());
        std::swap(group[from], group[to]);
        place_[group[from]] = from;
        place_[group[to]] = to;
        ++uses_[rule];
    }

private:
    std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> groups_;
    std::vector<std::size_t> place_;  // by rule: its place in its group
    std::vector<std::uint64_t> uses_;
};

inline constexpr std::size_t successors_kept = 16;
inline constexpr std::size_t candidates_kept = 16;
// The successor list's key for the first symbol of a body (no predecessor).
inline constexpr std::uint64_t body_start = std::uint64_t{1} << 32;

inline std::size_t bit_length(std::size_t value) {
    std::size_t length = 0;
    for (; value != 0 && length < 32; value >>= 1) {
        ++length;
    }
    return length;
}

template <class Coder>
class PayloadModel {
public:
    explicit PayloadModel(Coder& coder) : coder_(coder) {}

    std::uint64_t body_size(bool start_rule, std::uint64_t size) {
        return code_number(coder_, start_rule ? start_rule_size_ : rule_size_, size);
    }

    // The symbol at `place` of rule `rule`'s body (`value`: the symbol, when
    // encoding; ignored when decoding).
    GrammarSymbol symbol(std::uint32_t rule, std::uint64_t place, GrammarSymbol value) {
        const bool opening = place == 0;
        auto& followers = successors_[opening ? body_start : previous_last_];
        const std::uint32_t wanted_first = first_terminal(value);
        const std::size_t follower = code_index(coder_, opening ? opening_index_ : follower_index_,
                                                followers.find(wanted_first), followers.size());
        std::uint32_t first = 0;
        if (follower == followers.size()) {
            first = terminal(wanted_first);
            followers.add(first);
        } else {
            first = followers[follower];
            followers.use(follower);
        }
        auto& candidates = candidates_of(first);
        const std::size_t candidate =
            code_index(coder_, candidate_index_[follower == 0 ? 0 : 1], candidates.find(value), candidates.size());
        GrammarSymbol symbol = first;
        if (candidate == candidates.size()) {
            if (!coder_.bit(escape_is_terminal_, !is_grammar_rule(value))) {
                symbol = grammar_rule_base + escaped_rule(rule, first, value);
            }
            candidates.add(symbol);
        } else {
            symbol = candidates[candidate];
            candidates.use(candidate);
        }
        if (is_grammar_rule(symbol)) {
            by_use_.used(first, grammar_rule_of(symbol));
        }
        previous_last_ = is_grammar_rule(symbol) ? last_[grammar_rule_of(symbol)] : grammar_terminal_of(symbol);
        return symbol;
    }

    // Rule `rule` (not the start rule) is complete: its ends, for the
    // symbols that refer to it.
    void rule_done(std::uint32_t rule, GrammarSymbol first_symbol, GrammarSymbol last_symbol) {
        const std::uint32_t first = first_terminal(first_symbol);
        first_.push_back(first);
        last_.push_back(is_grammar_rule(last_symbol) ? last_[grammar_rule_of(last_symbol)]
                                                     : grammar_terminal_of(last_symbol));
        candidates_of(first).add(grammar_rule_base + rule);
        by_use_.add(first, rule);
    }

private:
    std::uint32_t first_terminal(GrammarSymbol symbol) const {
        return is_grammar_rule(symbol) ? first_[grammar_rule_of(symbol)] : grammar_terminal_of(symbol);
    }

    // The list starts with the terminal itself.
    MoveToFront<GrammarSymbol, candidates_kept>& candidates_of(std::uint32_t first) {
        const auto [place, added] = starting_with_.try_emplace(first);
        if (added) {
            place->second.add(first);
        }
        return place->second;
    }

    std::uint32_t terminal(std::uint32_t value) {
        std::uint64_t decoded = next_new_terminal_;
        if (!coder_.bit(new_terminal_, value == next_new_terminal_)) {
            decoded = code_number(coder_, terminal_value_, value);
            coder_.check(decoded <= 0xFFFFFFFFu, "a terminal beyond 32 bits");
        }
        next_new_terminal_ = std::max(next_new_terminal_, decoded + 1);
        return static_cast<std::uint32_t>(decoded);
    }

    // A rule starting with `first` that its short list did not hold: its
    // place in the group of all such rules (every one of them is before
    // `rule`, so a reference forward cannot be written).
    std::uint32_t escaped_rule(std::uint32_t rule, std::uint32_t first, GrammarSymbol value) {
        const std::vector<std::uint32_t>& group = by_use_.group(first);
        const std::uint64_t place = code_number(coder_, escape_place_[bit_length(group.size())],
                                                is_grammar_rule(value) ? by_use_.place_of(grammar_rule_of(value)) : 0);
        coder_.check(place < group.size(), "a rule reference past the rules starting with its terminal");
        const std::uint32_t target = group[static_cast<std::size_t>(place)];
        coder_.check(target < rule, "a rule reference to itself or a later rule");
        return target;
    }

    Coder& coder_;
    NumberModel start_rule_size_;
    NumberModel rule_size_;
    IndexModel<successors_kept> opening_index_;
    IndexModel<successors_kept> follower_index_;
    IndexModel<candidates_kept> candidate_index_[2];  // the terminal was its list's first or not
    Probability escape_is_terminal_;
    NumberModel escape_place_[33];  // by the bit length of the group's size
    Probability new_terminal_;
    NumberModel terminal_value_;
    std::uint64_t next_new_terminal_ = 0;
    std::uint64_t previous_last_ = 0;
    std::vector<std::uint32_t> first_;  // of every rule done, its first and last terminal
    std::vector<std::uint32_t> last_;
    std::unordered_map<std::uint64_t, MoveToFront<std::uint32_t, successors_kept>> successors_;
    std::unordered_map<std::uint32_t, MoveToFront<GrammarSymbol, candidates_kept>> starting_with_;
    RulesByUse by_use_;
};

}  // namespace grammar_payload_detail

// The payload of rule bodies as grammar_rules.hpp describes them (the
// builder's canonical numbering).
inline std::vector<std::uint8_t> encode_grammar_payload(const std::vector<std::uint64_t>& offsets,
                                                        const std::vector<GrammarSymbol>& symbols) {
    using grammar_payload_detail::PayloadModel;
    RangeEncoder encoder;
    PayloadModel<RangeEncoder> model(encoder);
    const std::uint32_t rules = static_cast<std::uint32_t>(offsets.size() - 1);
    for (std::uint32_t rule = 0; rule < rules; ++rule) {
        const bool start = rule + 1 == rules;
        const std::uint64_t size = offsets[rule + 1] - offsets[rule];
        model.body_size(start, start ? size : size - 2);
        const GrammarSymbol* body = symbols.data() + offsets[rule];
        for (std::uint64_t place = 0; place < size; ++place) {
            model.symbol(rule, place, body[place]);
        }
        if (!start) {
            model.rule_done(rule, body[0], body[size - 1]);
        }
    }
    return encoder.finish();
}

// The bodies of `rules` rules holding `symbol_count` symbols in all, from
// the first of `size` bytes; returns how many bytes are left after the last
// rule (the caller's to refuse). An Error (one line, no file name: the
// caller adds what the bytes are) when the bytes are not such a payload. Every body refers only
// to rules before it and every rule but the last has two symbols or more;
// the lengths are the caller's to check (grammar_rule_lengths). Memory and
// time grow with what is decoded, which a payload of `size` bytes bounds (a
// coded decision costs 0.0053 bits at least and a symbol takes two: at most
// 768 symbols a byte, and 1024 more), never with the counts claimed.
inline std::size_t decode_grammar_payload(const std::uint8_t* data, std::size_t size, std::uint32_t rules,
                                          std::uint64_t symbol_count, std::vector<std::uint64_t>& offsets,
                                          std::vector<GrammarSymbol>& symbols) {
    using grammar_payload_detail::PayloadModel;
    RangeDecoder decoder(data, size);
    PayloadModel<RangeDecoder> model(decoder);
    offsets.assign(1, 0);
    symbols.clear();
    // Every symbol costs the coder two binary decisions at least, each at
    // least -log2(4081/4096) bits (Probability's most certain state), so
    // the payload holds no more than about 756 symbols a byte: a count past
    // grammar_payload_symbols_per_byte times its bytes is refused before
    // anything is allocated, and the rest is reserved once, never grown by
    // doubling (a 132 KB forgery of 100 M symbols peaked at three times
    // their size).
    if (symbol_count >
        grammar_payload_symbols_per_byte * std::uint64_t{size} + grammar_payload_symbols_beyond_the_bound) {
        fail("claims " + std::to_string(symbol_count) + " symbols, more than " + std::to_string(size) +
             " payload bytes can code");
    }
    symbols.reserve(static_cast<std::size_t>(symbol_count));
    const auto check_not_past_end = [&](std::uint32_t rule) {
        if (decoder.overrun() != 0) {
            fail("payload ends inside rule " + std::to_string(rule));
        }
    };
    for (std::uint32_t rule = 0; rule < rules; ++rule) {
        const bool start = rule + 1 == rules;
        const std::uint64_t coded = model.body_size(start, 0);
        check_not_past_end(rule);
        const std::uint64_t left = symbol_count - symbols.size();
        if (coded > left || (!start && left - coded < 2)) {
            fail("rule " + std::to_string(rule) + " claims more symbols than the header's " +
                 std::to_string(symbol_count) + " in all");
        }
        const std::uint64_t body = start ? coded : coded + 2;
        for (std::uint64_t place = 0; place < body; ++place) {
            symbols.push_back(model.symbol(rule, place, 0));
            check_not_past_end(rule);
        }
        if (!start) {
            model.rule_done(rule, symbols[symbols.size() - body], symbols.back());
        }
        offsets.push_back(symbols.size());
    }
    if (symbols.size() != symbol_count) {
        fail("the rules hold " + std::to_string(symbols.size()) + " symbols, the header claims " +
             std::to_string(symbol_count));
    }
    return decoder.unused();
}

}  // namespace tcgen_runtime
