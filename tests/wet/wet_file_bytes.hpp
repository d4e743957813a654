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

// Where the payload of the section tagged `tag` ends (it must be there).
inline std::size_t payload_end(const std::vector<std::uint8_t>& bytes, const char* tag) {
    const std::size_t payload = payload_of(bytes, tag);
    return payload + static_cast<std::size_t>(payload_size(bytes, payload - section_header));
}

// The last `count` u32 fields of the payload of the section tagged `tag`.
inline std::vector<std::uint32_t> last_u32s(const std::vector<std::uint8_t>& bytes, const char* tag,
                                            std::size_t count) {
    const std::size_t end = payload_end(bytes, tag);
    std::vector<std::uint32_t> fields;
    for (std::size_t at = end - 4 * count; at < end; at += 4) {
        fields.push_back(static_cast<std::uint32_t>(bytes[at]) | static_cast<std::uint32_t>(bytes[at + 1]) << 8 |
                         static_cast<std::uint32_t>(bytes[at + 2]) << 16 |
                         static_cast<std::uint32_t>(bytes[at + 3]) << 24);
    }
    return fields;
}

}  // namespace wet_file_bytes
