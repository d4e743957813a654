// The saved grammar (docs/wpp.md, "The .wpp file"):
//   8  magic "TCGENWPP"
//   4  format version (3; 2 is read too, 1 was the varint payload, refused
//      by name)
//   4  rule count R (the start rule included)
//   4  origin: 0 bare symbols, 1 a PREFIX.flow, 2 a branch trace
//      (Grammar::Origin)
//   4  0 (reserved)
//   8  the expanded sequence's length in symbols
//   8  body symbols, all rules together
//   8  payload bytes
//   8  XXH64 of the payload, seeded with the XXH64 of the 48 header bytes
//      before it: a flipped bit anywhere is caught
//   the payload: a branch trace's outcomes first (u64 their count, u64 the
//   bytes of their records compressed by LZMA, those bytes), then the rule
//   bodies in number order, arithmetic coded (runtime/grammar_payload.hpp).
// Every count is checked against what the payload's bytes can hold before
// anything is allocated for it, the checksum before the payload is decoded,
// and the lengths by Grammar::from_rules before anything expands.

#include <tcgen/wpp/grammar.hpp>

#include <cstring>

#include "common/byte_io.hpp"
#include "grammar_payload.hpp"
#include "runtime/checksum.hpp"
#include "runtime/error.hpp"
#include "runtime/lzma_codec.hpp"

namespace tcgen::wpp {
namespace {

constexpr char magic[8] = {'T', 'C', 'G', 'E', 'N', 'W', 'P', 'P'};
constexpr std::uint32_t format_version = 3;
constexpr std::uint32_t oldest_version = 2;  // the same but for the outcomes
constexpr std::size_t header_bytes = 8 + 4 + 4 + 4 + 4 + 8 + 8 + 8 + 8;
constexpr std::size_t outcomes_header_bytes = 8 + 8;
constexpr std::uint64_t max_outcomes = std::uint64_t{1} << 32;  // terminals are 32-bit
constexpr std::uint64_t max_outcome_expansion = 1024;

// The outcomes' part of the payload: their count, then their records by LZMA.
std::vector<std::uint8_t> outcomes_part(const std::vector<std::uint8_t>& records) {
    std::vector<std::uint8_t> compressed;
    tcgen_runtime::lzma_compress(records.data(), records.size(), compressed);
    ByteWriter part;
    part.u64(records.size() / Grammar::outcome_bytes);
    part.u64(compressed.size());
    part.bytes(compressed.data(), compressed.size());
    return std::move(part.data());
}

// The outcomes at the payload's start, checked; `used` receives their part's
// bytes. Their decoding grows with the bytes present, not with the count
// claimed.
std::vector<std::uint8_t> read_outcomes(const std::uint8_t* payload, std::size_t size, const std::string& name,
                                        std::size_t& used) {
    if (size < outcomes_header_bytes) {
        throw WppError(name, "the payload ends inside the branch outcomes' sizes");
    }
    ByteReader sizes(payload, outcomes_header_bytes, name, "branch outcomes");
    const std::uint64_t count = sizes.u64();
    const std::uint64_t compressed = sizes.u64();
    if (count > max_outcomes) {
        throw WppError(name, "claims " + std::to_string(count) + " branch outcomes, more than 2^32");
    }
    // Distinct records compress a few times at most; a claim of more than
    // 1024 bytes a compressed byte is a forgery (it would let a small file
    // take gigabytes: LZMA codes a run of zeros thousands of times smaller).
    if (count * Grammar::outcome_bytes > max_outcome_expansion * compressed + 4096) {
        throw WppError(name, "claims " + std::to_string(count) + " branch outcomes in " + std::to_string(compressed) +
                                 " compressed bytes, more than 1024 times their size");
    }
    if (compressed > size - outcomes_header_bytes) {
        throw WppError(name, "the branch outcomes claim " + std::to_string(compressed) + " bytes, the payload has " +
                                 std::to_string(size - outcomes_header_bytes) + " after their sizes");
    }
    std::vector<std::uint8_t> records;
    try {
        tcgen_runtime::lzma_decompress(payload + outcomes_header_bytes, static_cast<std::size_t>(compressed), records,
                                       static_cast<std::size_t>(count * Grammar::outcome_bytes), "the branch outcomes");
    } catch (const tcgen_runtime::Error& error) {
        throw WppError(name, error.what());
    }
    used = outcomes_header_bytes + static_cast<std::size_t>(compressed);
    return records;
}

}  // namespace

std::vector<std::uint8_t> Grammar::to_bytes() const {
    std::vector<std::uint8_t> payload;
    if (origin_ == Origin::branches) {
        payload = outcomes_part(outcomes_);
    }
    const std::vector<std::uint8_t> rules_part = encode_payload(offsets_, symbols_);
    payload.insert(payload.end(), rules_part.begin(), rules_part.end());
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
    if (version < oldest_version || version > format_version) {
        throw WppError(name, "grammar format version " + std::to_string(version) + ", this library reads versions " +
                                 std::to_string(oldest_version) + " and " + std::to_string(format_version));
    }
    const Origin last_origin = version == oldest_version ? Origin::flow : Origin::branches;
    if (origin > static_cast<std::uint32_t>(last_origin) || reserved != 0) {
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
    std::vector<std::uint8_t> outcomes;
    std::size_t outcomes_used = 0;
    if (static_cast<Origin>(origin) == Origin::branches) {
        outcomes = read_outcomes(payload, present, name, outcomes_used);
    }
    std::vector<std::uint64_t> offsets;
    std::vector<Symbol> symbols;
    decode_payload(payload + outcomes_used, present - outcomes_used, rules, symbol_count, name, offsets, symbols);
    Grammar grammar = from_rules(std::move(offsets), std::move(symbols), name);
    if (grammar.length() != length) {
        throw WppError(name, "the rules expand to " + std::to_string(grammar.length()) + " symbols, the header claims " +
                                 std::to_string(length));
    }
    grammar.origin_ = static_cast<Origin>(origin);
    if (grammar.origin_ == Origin::branches) {
        grammar.outcomes_ = std::move(outcomes);
        for (const Symbol symbol : grammar.symbols_) {
            if (!is_rule(symbol) && symbol >= grammar.outcome_count()) {
                throw WppError(name, "symbol " + std::to_string(symbol) + " is not one of the " +
                                         std::to_string(grammar.outcome_count()) + " branch outcomes");
            }
        }
    }
    return grammar;
}

}  // namespace tcgen::wpp
