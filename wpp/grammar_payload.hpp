#pragma once
// The payload of a .wpp (format 2): the rule bodies, arithmetic coded
// (grammar_payload.cpp says how they are modelled). Private to the library;
// the tests use it to forge payloads.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <tcgen/wpp/grammar.hpp>

namespace tcgen::wpp {

// The bodies rule by rule (rule r: symbols[offsets[r] .. offsets[r + 1])),
// each rule referring only to rules before it; the last rule is the start
// rule. Every rule but the start rule has two symbols or more.
std::vector<std::uint8_t> encode_payload(const std::vector<std::uint64_t>& offsets,
                                         const std::vector<Symbol>& symbols);

// The bodies of `rules` rules holding `symbol_count` symbols in all, from
// `size` bytes; throws WppError naming `name` when the bytes are not such a
// payload. Memory and time grow with what is decoded, which a payload of
// `size` bytes bounds (a coded decision costs 0.0053 bits at least and a
// symbol takes two: at most 768 symbols a byte, and 1024 more), never with
// the counts claimed.
void decode_payload(const std::uint8_t* data, std::size_t size, std::uint32_t rules, std::uint64_t symbol_count,
                    const std::string& name, std::vector<std::uint64_t>& offsets, std::vector<Symbol>& symbols);

}  // namespace tcgen::wpp
