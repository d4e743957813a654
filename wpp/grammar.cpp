// The finished grammar: its checks, its lengths and its expansion.

#include <tcgen/wpp/grammar.hpp>

#include <limits>

namespace tcgen::wpp {

Grammar::Grammar() : offsets_{0, 0}, lengths_{0} {}

Grammar Grammar::from_rules(std::vector<std::uint64_t> offsets, std::vector<Symbol> symbols, const std::string& name) {
    if (offsets.size() < 2 || offsets.front() != 0 || offsets.back() != symbols.size()) {
        throw WppError(name, "no start rule, or rule offsets that do not cover the bodies");
    }
    const std::size_t rules = offsets.size() - 1;
    if (rules > std::numeric_limits<std::uint32_t>::max()) {
        throw WppError(name, "more than 2^32 - 1 rules");
    }
    std::vector<std::uint64_t> lengths(rules, 0);
    constexpr std::uint64_t max_length = std::numeric_limits<std::uint64_t>::max();
    for (std::size_t rule = 0; rule < rules; ++rule) {
        if (offsets[rule + 1] < offsets[rule]) {
            throw WppError(name, "rule " + std::to_string(rule) + ": offsets out of order");
        }
        const std::uint64_t size = offsets[rule + 1] - offsets[rule];
        if (rule + 1 < rules && size < 2) {
            throw WppError(name, "rule " + std::to_string(rule) + " has " + std::to_string(size) +
                                     " symbols (every rule but the start rule has at least two)");
        }
        std::uint64_t length = 0;
        for (std::uint64_t i = offsets[rule]; i < offsets[rule + 1]; ++i) {
            std::uint64_t part = 1;
            if (is_rule(symbols[i])) {
                const std::uint64_t child = symbols[i] - rule_base;
                if (child >= rule) {
                    throw WppError(name, "rule " + std::to_string(rule) + " refers to rule " + std::to_string(child) +
                                             (child == rule ? " (itself)" : ", not defined before it"));
                }
                part = lengths[child];
            }
            if (part > max_length - length) {
                throw WppError(name, "rule " + std::to_string(rule) + " expands to more than 2^64 - 1 symbols");
            }
            length += part;
        }
        lengths[rule] = length;
    }
    Grammar grammar;
    grammar.offsets_ = std::move(offsets);
    grammar.symbols_ = std::move(symbols);
    grammar.lengths_ = std::move(lengths);
    return grammar;
}

void Grammar::expand(const std::function<void(const std::uint32_t*, std::size_t)>& sink) const {
    constexpr std::size_t piece = 65536;
    std::vector<std::uint32_t> buffer;
    buffer.reserve(piece);
    struct Frame {
        std::uint32_t rule;
        std::uint64_t index;
    };
    std::vector<Frame> stack{{start_rule(), 0}};
    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.index == body_size(top.rule)) {
            stack.pop_back();
            continue;
        }
        const Symbol symbol = body(top.rule)[top.index++];
        if (is_rule(symbol)) {
            stack.push_back(Frame{rule_of(symbol), 0});
            continue;
        }
        buffer.push_back(terminal_of(symbol));
        if (buffer.size() == piece) {
            sink(buffer.data(), buffer.size());
            buffer.clear();
        }
    }
    if (!buffer.empty()) {
        sink(buffer.data(), buffer.size());
    }
}

std::vector<std::uint32_t> Grammar::expand() const {
    std::vector<std::uint32_t> sequence;
    sequence.reserve(static_cast<std::size_t>(length()));
    expand([&](const std::uint32_t* symbols, std::size_t count) { sequence.insert(sequence.end(), symbols, symbols + count); });
    return sequence;
}

}  // namespace tcgen::wpp
