#pragma once
// Forged .wpp files for the tests and the fuzz seeds (docs/wpp.md, "The
// .wpp file"): a payload sealed under any header fields with a checksum that
// matches, so that a forgery reaches the checks behind the checksum, and
// grammars of any rules coded by the library's own payload coder.

#include <cstdint>
#include <vector>

#include <tcgen/wpp/grammar.hpp>

#include "runtime/checksum.hpp"
#include "wpp/grammar_payload.hpp"

namespace wpp_file_bytes {

using tcgen::wpp::Symbol;

constexpr std::size_t header_bytes = 56;  // the checksum is its last 8

inline void put_u32(std::vector<std::uint8_t>& out, std::uint32_t value) {
    for (int i = 0; i < 4; ++i) {
        out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    }
}

inline void put_u64(std::vector<std::uint8_t>& out, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) {
        out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    }
}

// A file of `payload` with a valid checksum and the header fields given.
inline std::vector<std::uint8_t> seal(const std::vector<std::uint8_t>& payload, std::uint32_t rules,
                                      std::uint64_t length, std::uint64_t symbols, std::uint32_t version = 3,
                                      std::uint32_t origin = 0) {
    std::vector<std::uint8_t> file{'T', 'C', 'G', 'E', 'N', 'W', 'P', 'P'};
    put_u32(file, version);
    put_u32(file, rules);
    put_u32(file, origin);
    put_u32(file, 0);
    put_u64(file, length);
    put_u64(file, symbols);
    put_u64(file, payload.size());
    put_u64(file, tcgen_runtime::xxh64(payload.data(), payload.size(), tcgen_runtime::xxh64(file.data(), file.size(), 0)));
    file.insert(file.end(), payload.begin(), payload.end());
    return file;
}

// The checksum recomputed over a (changed) file's header and payload, so
// that a forgery passes it; a file shorter than the header is left alone.
inline void reseal(std::vector<std::uint8_t>& bytes) {
    if (bytes.size() < header_bytes) {
        return;
    }
    const std::uint64_t seed = tcgen_runtime::xxh64(bytes.data(), header_bytes - 8, 0);
    const std::uint64_t checksum =
        tcgen_runtime::xxh64(bytes.data() + header_bytes, bytes.size() - header_bytes, seed);
    for (int i = 0; i < 8; ++i) {
        bytes[header_bytes - 8 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(checksum >> (8 * i));
    }
}

// A forged file with a valid checksum: rules as bodies (the start rule
// last; rule r as rule(r)), coded by the library's own payload coder, with
// the header's length and symbol count as given.
inline std::vector<std::uint8_t> forge(const std::vector<std::vector<Symbol>>& rules, std::uint64_t length,
                                       std::uint64_t symbols) {
    std::vector<std::uint64_t> offsets{0};
    std::vector<Symbol> bodies;
    for (const auto& body : rules) {
        bodies.insert(bodies.end(), body.begin(), body.end());
        offsets.push_back(bodies.size());
    }
    return seal(tcgen::wpp::encode_payload(offsets, bodies), static_cast<std::uint32_t>(rules.size()), length,
                symbols);
}

constexpr Symbol rule(std::uint32_t number) { return tcgen::wpp::rule_base + number; }

// A start rule of `count` zeros (a forgery: SEQUITUR never writes one, and
// no body codes more symbols a byte), the header claiming `claimed` symbols
// (count when 0).
inline std::vector<std::uint8_t> repeated_start_rule(std::uint64_t count, std::uint64_t claimed = 0) {
    const std::vector<Symbol> zeros(count, 0);
    const std::vector<std::uint8_t> payload = tcgen::wpp::encode_payload({0, count}, zeros);
    return seal(payload, 1, claimed == 0 ? count : claimed, claimed == 0 ? count : claimed);
}

// A chain of `depth` rules, each doubling the one before (rule 0 = 2 2, rule
// i = R(i-1) R(i-1)), and a start rule of the last: 2^depth symbols,
// refused past 2^64 - 1.
inline std::vector<std::vector<Symbol>> doubling_chain(std::uint32_t depth) {
    std::vector<std::vector<Symbol>> chain{{2, 2}};
    for (std::uint32_t i = 0; i + 1 < depth; ++i) {
        chain.push_back({rule(i), rule(i)});
    }
    chain.push_back({rule(depth - 1)});
    return chain;
}

}  // namespace wpp_file_bytes
