#pragma once
// The limits of the .tcz format (docs/format.md) that a reader enforces and
// a writer respects. Apart from the container, so that tcgen's semantic
// checker can hold every spec to them without the container's dependencies.

#include <cstdint>

namespace tcgen_runtime {

// Limits a reader enforces (and a writer respects).
inline constexpr std::uint64_t tcz_max_spec_bytes = std::uint64_t{1} << 20;
inline constexpr std::uint64_t tcz_max_record_bytes = std::uint64_t{1} << 20;
inline constexpr std::uint64_t tcz_max_header_bytes = std::uint64_t{1} << 28;
inline constexpr std::uint64_t tcz_max_block_bytes = std::uint64_t{1} << 28;
inline constexpr std::uint64_t tcz_max_stream_count = 65535;

// What a codec may write into all its streams together for `record_count`
// records: every field of a record (at least a byte) costs at most an 8-byte
// code and an 8-byte value, even in a compressor built without type
// minimisation. It bounds what a reader has to allocate for one block.
constexpr std::uint64_t tcz_max_stream_bytes(std::uint64_t record_count, std::uint64_t record_bytes) {
    return record_count * (16 * record_bytes + 16);
}

}  // namespace tcgen_runtime
