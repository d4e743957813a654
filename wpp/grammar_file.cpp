// The saved grammar (docs/wpp.md, "The .wpp file"):
//   8  magic "TCGENWPP"
//   4  format version (2; 1 was the varint payload, refused by name)
//   4  rule count R (the start rule included)
//   4  origin: 0 bare symbols, 1 a PREFIX.flow (Grammar::Origin)
//   4  0 (reserved)
//   8  the expanded sequence's length in symbols
//   8  body symbols, all rules together
//   8  payload bytes
//   8  XXH64 of the payload, seeded with the XXH64 of the 48 header bytes
//      before it: a flipped bit anywhere is caught
//   the payload: the rule bodies in number order, arithmetic coded
//   (grammar_payload.cpp).
// Every count is checked against what the payload's bytes can hold before
// anything is allocated for it, the checksum before the payload is decoded,
// and the lengths by Grammar::from_rules before anything expands.

#include <tcgen/wpp/grammar.hpp>

#include <cstring>

#include "common/byte_io.hpp"
#include "grammar_payload.hpp"
#include "runtime/checksum.hpp"

namespace tcgen::wpp {
namespace {

constexpr char magic[8] = {'T', 'C', 'G', 'E', 'N', 'W', 'P', 'P'};
constexpr std::uint32_t format_version = 2;
constexpr std::size_t header_bytes = 8 + 4 + 4 + 4 + 4 + 8 + 8 + 8 + 8;

}  // namespace

std::vector<std::uint8_t> Grammar::to_bytes() const {
    const std::vector<std::uint8_t> payload = encode_payload(offsets_, symbols_);
    const std::uint32_t rules = rule_count();
    ByteWriter file;
    file.bytes(reinterpret_cast<const std::uint8_t*>(magic), sizeof magic);
    file.u32(format_version);
    file.u32(rules);
    file.u32(static_cast<std::uint32_t>(origin_));
    file.u32(0);
    file.u64(length());
    file.u64(symbols_.size());
    file.u64(payload.size());
    file.u64(tcgen_runtime::xxh64(payload.data(), payload.size(),
                                  tcgen_runtime::xxh64(file.data().data(), file.data().size(), 0)));
    file.bytes(payload.data(), payload.size());
    return std::move(file.data());
}

Grammar Grammar::from_bytes(const std::uint8_t* data, std::size_t size, const std::string& name) {
    if (size < sizeof magic || std::memcmp(data, magic, sizeof magic) != 0) {
        throw WppError(name, "not a saved grammar (no TCGENWPP magic)");
    }
    if (size < header_bytes) {
        throw WppError(name, "truncated: " + std::to_string(size) + " bytes, the header alone has " +
                                 std::to_string(header_bytes));
    }
    // The size was checked above: the header is all there.
    ByteReader header(data, size, name, "header");
    header.bytes(sizeof magic);
    const std::uint32_t version = header.u32();
    const std::uint32_t rules = header.u32();
    const std::uint32_t origin = header.u32();
    const std::uint32_t reserved = header.u32();
    const std::uint64_t length = header.u64();
    const std::uint64_t symbol_count = header.u64();
    const std::uint64_t payload_bytes = header.u64();
    const std::uint64_t checksum = header.u64();
    if (version == 1) {
        throw WppError(name, "made by an older wpp (format 1, varint payload); rebuild it with `wpp build`");
    }
    if (version != format_version) {
        throw WppError(name, "grammar format version " + std::to_string(version) + ", this library reads version " +
                                 std::to_string(format_version));
    }
    if (origin > static_cast<std::uint32_t>(Origin::flow) || reserved != 0) {
        throw WppError(name, "unknown origin " + std::to_string(origin) + " or flags " + std::to_string(reserved) +
                                 " in the header");
    }
    const std::size_t present = size - header_bytes;
    if (payload_bytes != present) {
        throw WppError(name, "the header claims " + std::to_string(payload_bytes) + " payload bytes, " +
                                 std::to_string(present) + " are present" +
                                 (payload_bytes > present ? ": the file is truncated" : ""));
    }
    const std::uint8_t* payload = data + header_bytes;
    const std::uint64_t header_hash = tcgen_runtime::xxh64(data, header_bytes - 8, 0);
    if (tcgen_runtime::xxh64(payload, present, header_hash) != checksum) {
        throw WppError(name, "checksum mismatch: the file is corrupt");
    }
    if (rules == 0) {
        throw WppError(name, "no start rule (0 rules)");
    }
    // Every rule but the start rule has two symbols or more.
    if (rules - 1 > symbol_count / 2) {
        throw WppError(name, "claims " + std::to_string(rules) + " rules and " + std::to_string(symbol_count) +
                                 " symbols: rules of fewer than two symbols");
    }
    std::vector<std::uint64_t> offsets;
    std::vector<Symbol> symbols;
    decode_payload(payload, present, rules, symbol_count, name, offsets, symbols);
    Grammar grammar = from_rules(std::move(offsets), std::move(symbols), name);
    if (grammar.length() != length) {
        throw WppError(name, "the rules expand to " + std::to_string(grammar.length()) + " symbols, the header claims " +
                                 std::to_string(length));
    }
    grammar.origin_ = static_cast<Origin>(origin);
    return grammar;
}

}  // namespace tcgen::wpp
