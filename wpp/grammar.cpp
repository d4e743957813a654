// The finished grammar: its checks, its lengths and its expansion, the
// runtime's (runtime/grammar_rules.hpp), which the grammar stream back-end
// shares.

#include <tcgen/wpp/grammar.hpp>

#include "runtime/error.hpp"
#include "runtime/grammar_rules.hpp"

namespace tcgen::wpp {

Grammar::Grammar() : offsets_{0, 0}, lengths_{0} {}

Grammar Grammar::from_rules(std::vector<std::uint64_t> offsets, std::vector<Symbol> symbols, const std::string& name) {
    std::vector<std::uint64_t> lengths;
    try {
        lengths = tcgen_runtime::grammar_rule_lengths(offsets, symbols);
    } catch (const tcgen_runtime::Error& error) {
        throw WppError(name, error.what());
    }
    Grammar grammar;
    grammar.offsets_ = std::move(offsets);
    grammar.symbols_ = std::move(symbols);
    grammar.lengths_ = std::move(lengths);
    return grammar;
}

void Grammar::expand(const std::function<void(const std::uint32_t*, std::size_t)>& sink) const {
    tcgen_runtime::expand_grammar(offsets_, symbols_, sink);
}

std::vector<std::uint32_t> Grammar::expand() const {
    std::vector<std::uint32_t> sequence;
    sequence.reserve(static_cast<std::size_t>(length()));
    expand([&](const std::uint32_t* symbols, std::size_t count) { sequence.insert(sequence.end(), symbols, symbols + count); });
    return sequence;
}

}  // namespace tcgen::wpp
