// The .wpp payload, format 2 (docs/wpp.md, "The .wpp file"): the rules in
// number order, each body's size, then its symbols, all through the range
// coder of range_coder.hpp with these models (measured choices in the
// design log):
//
//   - A symbol is predicted from the terminal its predecessor in the body
//     ends with: the flow goes from that block to one of a few successors,
//     so first the terminal the symbol starts with is coded as its place in
//     a move-to-front list of the terminals seen to follow that one (an
//     escape and the terminal itself when it has not: "the next new
//     terminal", one bit, when it is one more than any terminal so far, as
//     block ids numbered in order of first appearance mostly are); the
//     first symbol of a body uses a list of its own.
//   - Then which symbol starting with that terminal: its place in a
//     move-to-front list of the terminal itself and the rules starting with
//     it (each rule enters at the front when its body is done: in post-order
//     a rule's first reference comes soon after it), or an escape, a bit for
//     "the terminal" and otherwise the rule's distance back.
//
// The lists are capped, so that a forged payload cannot make any step cost
// more than the cap; an item that fell off the end is reached by escape.
// The one model is written once (PayloadModel) for encoding and decoding.

#include "grammar_payload.hpp"

#include <algorithm>
#include <unordered_map>

#include "range_coder.hpp"

namespace tcgen::wpp {
namespace {

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

constexpr std::size_t successors_kept = 16;
constexpr std::size_t candidates_kept = 64;
// The successor list's key for the first symbol of a body (no predecessor).
constexpr std::uint64_t body_start = std::uint64_t{1} << 32;

template <class Coder>
class PayloadModel {
public:
    explicit PayloadModel(Coder& coder) : coder_(coder) {}

    std::uint64_t body_size(bool start_rule, std::uint64_t size) {
        return code_number(coder_, start_rule ? start_rule_size_ : rule_size_, size);
    }

    // The symbol at `place` of rule `rule`'s body (`value`: the symbol, when
    // encoding; ignored when decoding).
    Symbol symbol(std::uint32_t rule, std::uint64_t place, Symbol value) {
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
        const std::size_t candidate = code_index(coder_, candidate_index_[follower == 0 ? 0 : 1],
                                                 candidates.find(value), candidates.size());
        Symbol symbol = first;
        if (candidate == candidates.size()) {
            if (!coder_.bit(escape_is_terminal_, !is_rule(value))) {
                const std::uint64_t distance =
                    code_number(coder_, escape_distance_, is_rule(value) ? rule - rule_of(value) : 0);
                coder_.check(distance >= 1 && distance <= rule, "a rule reference before rule 0 or to itself");
                const std::uint32_t target = rule - static_cast<std::uint32_t>(distance);
                coder_.check(first_[target] == first, "a rule reference that contradicts its first terminal");
                symbol = rule_base + target;
            }
            candidates.add(symbol);
        } else {
            symbol = candidates[candidate];
            candidates.use(candidate);
        }
        previous_last_ = is_rule(symbol) ? last_[rule_of(symbol)] : terminal_of(symbol);
        return symbol;
    }

    // Rule `rule` (not the start rule) is complete: its ends, for the
    // symbols that refer to it.
    void rule_done(std::uint32_t rule, Symbol first_symbol, Symbol last_symbol) {
        const std::uint32_t first = first_terminal(first_symbol);
        first_.push_back(first);
        last_.push_back(is_rule(last_symbol) ? last_[rule_of(last_symbol)] : terminal_of(last_symbol));
        candidates_of(first).add(rule_base + rule);
    }

private:
    std::uint32_t first_terminal(Symbol symbol) const {
        return is_rule(symbol) ? first_[rule_of(symbol)] : terminal_of(symbol);
    }

    // The list starts with the terminal itself.
    MoveToFront<Symbol, candidates_kept>& candidates_of(std::uint32_t first) {
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

    Coder& coder_;
    NumberModel start_rule_size_;
    NumberModel rule_size_;
    IndexModel<16> opening_index_;
    IndexModel<16> follower_index_;
    IndexModel<64> candidate_index_[2];
    Probability escape_is_terminal_;
    NumberModel escape_distance_;
    Probability new_terminal_;
    NumberModel terminal_value_;
    std::uint64_t next_new_terminal_ = 0;
    std::uint64_t previous_last_ = 0;
    std::vector<std::uint32_t> first_;  // of every rule done, its first and last terminal
    std::vector<std::uint32_t> last_;
    std::unordered_map<std::uint64_t, MoveToFront<std::uint32_t, successors_kept>> successors_;
    std::unordered_map<std::uint32_t, MoveToFront<Symbol, candidates_kept>> starting_with_;
};

}  // namespace

std::vector<std::uint8_t> encode_payload(const std::vector<std::uint64_t>& offsets,
                                         const std::vector<Symbol>& symbols) {
    RangeEncoder encoder;
    PayloadModel<RangeEncoder> model(encoder);
    const std::uint32_t rules = static_cast<std::uint32_t>(offsets.size() - 1);
    for (std::uint32_t rule = 0; rule < rules; ++rule) {
        const bool start = rule + 1 == rules;
        const std::uint64_t size = offsets[rule + 1] - offsets[rule];
        model.body_size(start, start ? size : size - 2);
        const Symbol* body = symbols.data() + offsets[rule];
        for (std::uint64_t place = 0; place < size; ++place) {
            model.symbol(rule, place, body[place]);
        }
        if (!start) {
            model.rule_done(rule, body[0], body[size - 1]);
        }
    }
    return encoder.finish();
}

void decode_payload(const std::uint8_t* data, std::size_t size, std::uint32_t rules, std::uint64_t symbol_count,
                    const std::string& name, std::vector<std::uint64_t>& offsets, std::vector<Symbol>& symbols) {
    RangeDecoder decoder(data, size, name);
    PayloadModel<RangeDecoder> model(decoder);
    offsets.assign(1, 0);
    symbols.clear();
    // Reserve what the bytes present could plausibly hold, never what the
    // header claims; the rest grows as it is decoded.
    symbols.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(symbol_count, std::uint64_t{size} * 8)));
    const auto check_not_past_end = [&](std::uint32_t rule) {
        if (decoder.overrun() != 0) {
            throw WppError(name, "payload ends inside rule " + std::to_string(rule));
        }
    };
    for (std::uint32_t rule = 0; rule < rules; ++rule) {
        const bool start = rule + 1 == rules;
        const std::uint64_t coded = model.body_size(start, 0);
        check_not_past_end(rule);
        const std::uint64_t left = symbol_count - symbols.size();
        if (coded > left || (!start && left - coded < 2)) {
            throw WppError(name, "rule " + std::to_string(rule) + " claims more symbols than the header's " +
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
        throw WppError(name, "the rules hold " + std::to_string(symbols.size()) + " symbols, the header claims " +
                                 std::to_string(symbol_count));
    }
    if (decoder.unused() != 0) {
        throw WppError(name, std::to_string(decoder.unused()) + " unexpected bytes after the last rule");
    }
}

}  // namespace tcgen::wpp
