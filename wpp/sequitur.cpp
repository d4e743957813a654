// The builder: the runtime's SEQUITUR (runtime/sequitur.hpp), which the
// grammar stream back-end shares, its finished rules checked and measured
// by Grammar::from_rules.

#include <tcgen/wpp/grammar.hpp>

#include "runtime/error.hpp"
#include "runtime/sequitur.hpp"

namespace tcgen::wpp {

struct GrammarBuilder::State {
    tcgen_runtime::SequiturBuilder sequitur;
};

GrammarBuilder::GrammarBuilder() : state_(std::make_unique<State>()) {}
GrammarBuilder::~GrammarBuilder() = default;
GrammarBuilder::GrammarBuilder(GrammarBuilder&&) noexcept = default;
GrammarBuilder& GrammarBuilder::operator=(GrammarBuilder&&) noexcept = default;

void GrammarBuilder::append(std::uint32_t symbol) {
    append(&symbol, 1);
}

void GrammarBuilder::append(const std::uint32_t* symbols, std::size_t count) {
    try {
        for (std::size_t i = 0; i < count; ++i) {
            state_->sequitur.append(symbols[i]);
        }
    } catch (const tcgen_runtime::Error& error) {
        throw WppError("input", error.what());
    }
}

Grammar GrammarBuilder::finish() const {
    std::vector<std::uint64_t> offsets;
    std::vector<Symbol> symbols;
    state_->sequitur.finish(offsets, symbols);
    return Grammar::from_rules(std::move(offsets), std::move(symbols), "grammar");
}

Grammar build_grammar(const std::uint32_t* symbols, std::size_t count) {
    GrammarBuilder builder;
    builder.append(symbols, count);
    return builder.finish();
}

}  // namespace tcgen::wpp
