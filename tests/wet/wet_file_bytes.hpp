#pragma once
// The framing of a saved WET (docs/wet.md, "The .wet file") for tests that
// forge one: where a section's payload starts, and every section's XXH64
// made to match its (changed) payload again, so that a forgery reaches the
// parsers behind the checksums.

#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/checksum.hpp"

namespace wet_file_bytes {

constexpr std::size_t first_section = 16;  // magic, version, section count
constexpr std::size_t section_header = 20;  // tag, u64 size, u64 checksum

inline std::uint64_t payload_size(const std::vector<std::uint8_t>& bytes, std::size_t section) {
    std::uint64_t size = 0;
    for (int i = 7; i >= 0; --i) {
        size = (size << 8) | bytes[section + 4 + static_cast<std::size_t>(i)];
    }
    return size;
}

// Recomputes each section's checksum, as far as the framing holds.
inline void reseal(std::vector<std::uint8_t>& bytes) {
    std::size_t at = first_section;
    while (at + section_header <= bytes.size()) {
        const std::uint64_t size = payload_size(bytes, at);
        if (size > bytes.size() - at - section_header) {
            return;
        }
        const std::uint64_t checksum =
            tcgen_runtime::xxh64(bytes.data() + at + section_header, static_cast<std::size_t>(size), 0);
        for (int i = 0; i < 8; ++i) {
            bytes[at + 12 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(checksum >> (8 * i));
        }
        at += section_header + static_cast<std::size_t>(size);
    }
}

// Where the payload of the section tagged `tag` starts; 0 if there is none.
inline std::size_t payload_of(const std::vector<std::uint8_t>& bytes, const char* tag) {
    std::size_t at = first_section;
    while (at + section_header <= bytes.size()) {
        if (std::memcmp(bytes.data() + at, tag, 4) == 0) {
            return at + section_header;
        }
        at += section_header + static_cast<std::size_t>(payload_size(bytes, at));
    }
    return 0;
}

}  // namespace wet_file_bytes
