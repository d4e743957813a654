#pragma once
// The framing of a saved WET (docs/wet.md, "The .wet file") for the tests
// and fuzz seeds that forge one: where a section's payload starts, every
// section's XXH64 made to match its (changed) payload again, so that a
// forgery reaches the parsers behind the checksums, and the forgeries of
// the checks a load makes of what the file claims (META's counts, shared
// frames no chunk refers to, the register dataflow's decoded size).

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

inline std::uint64_t get_u64(const std::vector<std::uint8_t>& bytes, std::size_t at) {
    std::uint64_t value = 0;
    for (int i = 7; i >= 0; --i) {
        value = (value << 8) | bytes[at + static_cast<std::size_t>(i)];
    }
    return value;
}

inline void put_u64(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint64_t value) {
    for (std::size_t i = 0; i < 8; ++i) {
        bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
    }
}

// META: u32 executed blocks, u32 blocks, u32 nodes, u64 events, then the
// counts `wet stats` reports, checked at load as bounds.
constexpr std::size_t meta_loads_with_a_def = 20;
constexpr std::size_t meta_executions_with_a_control_parent = 28;

// META's u64 at `field` set to `value`, resealed.
inline std::vector<std::uint8_t> with_meta_count(std::vector<std::uint8_t> bytes, std::size_t field,
                                                 std::uint64_t value) {
    put_u64(bytes, payload_of(bytes, "META") + field, value);
    reseal(bytes);
    return bytes;
}

// `copies` more copies of the first shared frame of section `tag` (VALS or
// ADDR, whose payload starts with its kind's frames: u64 count, then per
// frame u8 layout, u32 decoded bytes, u64 size and the zstd frame), which no
// chunk refers to; resealed. The section must hold a frame.
inline std::vector<std::uint8_t> with_unreferenced_frames(const std::vector<std::uint8_t>& bytes, const char* tag,
                                                          std::size_t copies) {
    const std::size_t payload = payload_of(bytes, tag);
    const std::uint64_t frames = get_u64(bytes, payload);
    std::size_t frames_end = payload + 8;
    for (std::uint64_t frame = 0; frame < frames; ++frame) {
        frames_end += 13 + static_cast<std::size_t>(get_u64(bytes, frames_end + 5));
    }
    const std::size_t first_frame = payload + 8;
    const std::size_t first_frame_end = first_frame + 13 + static_cast<std::size_t>(get_u64(bytes, first_frame + 5));
    std::vector<std::uint8_t> forged(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(frames_end));
    for (std::size_t copy = 0; copy < copies; ++copy) {
        forged.insert(forged.end(), bytes.begin() + static_cast<std::ptrdiff_t>(first_frame),
                      bytes.begin() + static_cast<std::ptrdiff_t>(first_frame_end));
    }
    forged.insert(forged.end(), bytes.begin() + static_cast<std::ptrdiff_t>(frames_end), bytes.end());
    const std::size_t added = copies * (first_frame_end - first_frame);
    put_u64(forged, payload, frames + copies);
    put_u64(forged, payload - section_header + 4, payload_size(bytes, payload - section_header) + added);
    reseal(forged);
    return forged;
}

// DFLW (a traced dataflow): u8 1, u64 its decoded size, u64 the frame's size,
// the frame. The decoded size set to `claimed`, resealed.
constexpr std::size_t dataflow_decoded_size = 1;
inline std::vector<std::uint8_t> with_dataflow_claiming(std::vector<std::uint8_t> bytes, std::uint64_t claimed) {
    put_u64(bytes, payload_of(bytes, "DFLW") + dataflow_decoded_size, claimed);
    reseal(bytes);
    return bytes;
}

}  // namespace wet_file_bytes
