// The saved grammar (docs/wpp.md, "The .wpp file"):
//   8  magic "TCGENWPP"
//   4  format version (1)
//   4  rule count R (the start rule included)
//   4  origin: 0 bare symbols, 1 a PREFIX.flow (Grammar::Origin)
//   4  0 (reserved)
//   8  the expanded sequence's length in symbols
//   8  body symbols, all rules together
//   8  payload bytes
//   8  XXH64 of the payload, seeded with the XXH64 of the 48 header bytes
//      before it: a flipped bit anywhere is caught
//   the payload: rule by rule in number order, the body's size as a varint
//   (less 2 for every rule but the start rule, which may be empty), then
//   each symbol as a varint: terminal t as 2t, a reference from rule i to
//   rule r < i as 2(i - r) - 1.
// Varints are LEB128 (7 bits a byte, low first). The design log compares
// them with the alternatives. Every count is checked against the payload's
// bytes before anything is allocated for it (a rule takes a byte at least,
// a symbol too), the checksum before the payload is parsed, and the lengths
// by Grammar::from_rules before anything expands.

#include <tcgen/wpp/grammar.hpp>

#include <cstring>

#include "byte_io.hpp"
#include "runtime/checksum.hpp"

namespace tcgen::wpp {
namespace {

constexpr char magic[8] = {'T', 'C', 'G', 'E', 'N', 'W', 'P', 'P'};
constexpr std::uint32_t format_version = 1;
constexpr std::size_t header_bytes = 8 + 4 + 4 + 4 + 4 + 8 + 8 + 8 + 8;

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t value) {
    while (value >= 0x80) {
        out.push_back(static_cast<std::uint8_t>(value | 0x80));
        value >>= 7;
    }
    out.push_back(static_cast<std::uint8_t>(value));
}

class VarintReader {
public:
    VarintReader(const std::uint8_t* data, std::size_t size, const std::string& name)
        : data_(data), size_(size), name_(name) {}

    std::uint64_t next(const char* what) {
        std::uint64_t value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (position_ == size_) {
                throw WppError(name_, std::string("payload ends inside ") + what);
            }
            const std::uint8_t byte = data_[position_++];
            if (shift == 63 && byte > 1) {
                throw WppError(name_, std::string(what) + " overflows 64 bits");
            }
            value |= std::uint64_t{byte & 0x7Fu} << shift;
            if ((byte & 0x80) == 0) {
                return value;
            }
        }
        throw WppError(name_, std::string(what) + " overflows 64 bits");
    }
    std::size_t remaining() const { return size_ - position_; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t position_ = 0;
    const std::string& name_;
};

}  // namespace

std::vector<std::uint8_t> Grammar::to_bytes() const {
    std::vector<std::uint8_t> payload;
    payload.reserve(symbols_.size() * 2 + offsets_.size());
    const std::uint32_t rules = rule_count();
    for (std::uint32_t rule = 0; rule < rules; ++rule) {
        const std::size_t size = body_size(rule);
        put_varint(payload, rule == start_rule() ? size : size - 2);
        const Symbol* symbols = body(rule);
        for (std::size_t i = 0; i < size; ++i) {
            put_varint(payload, is_rule(symbols[i]) ? 2 * std::uint64_t{rule - rule_of(symbols[i])} - 1
                                                    : 2 * std::uint64_t{terminal_of(symbols[i])});
        }
    }
    wet::ByteWriter file;
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
    std::uint32_t version = 0;
    std::uint32_t rules = 0;
    std::uint32_t origin = 0;
    std::uint32_t reserved = 0;
    std::uint64_t length = 0;
    std::uint64_t symbol_count = 0;
    std::uint64_t payload_bytes = 0;
    std::uint64_t checksum = 0;
    try {
        wet::ByteReader header(data, size, name, "header");
        header.bytes(sizeof magic);
        version = header.u32();
        rules = header.u32();
        origin = header.u32();
        reserved = header.u32();
        length = header.u64();
        symbol_count = header.u64();
        payload_bytes = header.u64();
        checksum = header.u64();
    } catch (const wet::WetError& error) {
        throw WppError(name, error.message());
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
    if (rules == 0 || rules > present || symbol_count > present) {
        throw WppError(name, "claims " + std::to_string(rules) + " rules and " + std::to_string(symbol_count) +
                                 " symbols, more than its " + std::to_string(present) + " payload bytes hold");
    }
    std::vector<std::uint64_t> offsets;
    offsets.reserve(std::size_t{rules} + 1);
    offsets.push_back(0);
    std::vector<Symbol> symbols;
    symbols.reserve(static_cast<std::size_t>(symbol_count));
    VarintReader reader(payload, present, name);
    for (std::uint32_t rule = 0; rule < rules; ++rule) {
        const bool start = rule + 1 == rules;
        const std::uint64_t coded = reader.next("a rule's size");
        const std::uint64_t body = start ? coded : coded + 2;
        if (coded > symbol_count || body > symbol_count - symbols.size()) {
            throw WppError(name, "rule " + std::to_string(rule) + " claims " + std::to_string(body) +
                                     " symbols, more than the header's " + std::to_string(symbol_count) + " in all");
        }
        for (std::uint64_t i = 0; i < body; ++i) {
            const std::uint64_t code = reader.next("a symbol");
            if (code % 2 == 0) {
                if (code / 2 > 0xFFFFFFFFu) {
                    throw WppError(name, "rule " + std::to_string(rule) + ": terminal " + std::to_string(code / 2) +
                                             " does not fit 32 bits");
                }
                symbols.push_back(code / 2);
            } else {
                const std::uint64_t distance = (code + 1) / 2;
                if (distance > rule) {
                    throw WppError(name, "rule " + std::to_string(rule) + " refers to a rule " +
                                             std::to_string(distance) + " before it, below rule 0");
                }
                symbols.push_back(rule_base + (rule - distance));
            }
        }
        offsets.push_back(symbols.size());
    }
    if (symbols.size() != symbol_count) {
        throw WppError(name, "the rules hold " + std::to_string(symbols.size()) + " symbols, the header claims " +
                                 std::to_string(symbol_count));
    }
    if (reader.remaining() != 0) {
        throw WppError(name, std::to_string(reader.remaining()) + " unexpected bytes after the last rule");
    }
    Grammar grammar = from_rules(std::move(offsets), std::move(symbols), name);
    if (grammar.length() != length) {
        throw WppError(name, "the rules expand to " + std::to_string(grammar.length()) + " symbols, the header claims " +
                                 std::to_string(length));
    }
    grammar.origin_ = static_cast<Origin>(origin);
    return grammar;
}

}  // namespace tcgen::wpp
