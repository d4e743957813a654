#pragma once
// The payload of a .wpp (format 2 and 3): the rule bodies, arithmetic coded
// by the runtime's grammar payload (runtime/grammar_payload.hpp), which the
// grammar stream back-end codes the same way. Private to the library; the
// tests use it to forge payloads.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <tcgen/wpp/grammar.hpp>

#include "runtime/error.hpp"
#include "runtime/grammar_payload.hpp"

namespace tcgen::wpp {

static_assert(rule_base == tcgen_runtime::grammar_rule_base, "wpp's symbols are the runtime's");

// The bodies rule by rule (rule r: symbols[offsets[r] .. offsets[r + 1])),
// each rule referring only to rules before it; the last rule is the start
// rule. Every rule but the start rule has two symbols or more.
inline std::vector<std::uint8_t> encode_payload(const std::vector<std::uint64_t>& offsets,
                                                const std::vector<Symbol>& symbols) {
    return tcgen_runtime::encode_grammar_payload(offsets, symbols);
}

// The bodies of `rules` rules holding `symbol_count` symbols in all, from
// `size` bytes; throws WppError naming `name` when the bytes are not such a
// payload. Memory and time grow with what is decoded, which a payload of
// `size` bytes bounds (at most 768 symbols a byte, and 1024 more), never
// with the counts claimed.
inline void decode_payload(const std::uint8_t* data, std::size_t size, std::uint32_t rules, std::uint64_t symbol_count,
                           const std::string& name, std::vector<std::uint64_t>& offsets, std::vector<Symbol>& symbols) {
    std::size_t unused = 0;
    try {
        unused = tcgen_runtime::decode_grammar_payload(data, size, rules, symbol_count, offsets, symbols);
    } catch (const tcgen_runtime::Error& error) {
        throw WppError(name, error.what());
    }
    if (unused != 0) {
        throw WppError(name, std::to_string(unused) + " unexpected bytes after the last rule");
    }
}

}  // namespace tcgen::wpp
