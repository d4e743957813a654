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

// The block a generated program writes unless told otherwise (its
// records_per_block is this many bytes of whole records). The back-ends
// find repeats within a block only; at 16 MiB rather than 4 MiB the corpus's
// traces compress 2-53 % better for about twice the memory
// (docs/design/log.md, "Block size").
inline constexpr std::uint64_t tcz_default_block_bytes = std::uint64_t{16} << 20;

// The block of a spec that codes records as ids ("32-Bit Ids;"): the
// grammar of the ids finds the program's paths across the whole block, so a
// larger one pays (branch traces of 3 M records: 24-44 % smaller files at
// 64 MiB than at 16 MiB on sqlite3, python3, perl and cc1, 8 % on bzip2),
// for about 250 MB to compress and 80 MB to decompress (docs/design/log.md,
// "Control flow as ids in the container").
inline constexpr std::uint64_t tcz_ids_block_bytes = std::uint64_t{64} << 20;

// What a codec may write into all its streams together for `record_count`
// records: every field of a record (at least a byte) costs at most an 8-byte
// code and an 8-byte value, even in a compressor built without type
// minimisation. It bounds what a reader has to allocate for one block.
constexpr std::uint64_t tcz_max_stream_bytes(std::uint64_t record_count, std::uint64_t record_bytes) {
    return record_count * (16 * record_bytes + 16);
}

// The LZMA back-end's dictionary (runtime/lzma_codec.hpp), a rule of the
// format: both sides compute it from a buffer's raw size.
inline constexpr std::uint64_t lzma_max_dictionary_bytes = std::uint64_t{1} << 26;

// The raw size rounded up to a power of two, within LZMA's 4 KiB minimum and
// the 64 MiB cap.
constexpr std::uint32_t lzma_dictionary_bytes(std::uint64_t raw_size) {
    std::uint64_t size = 4096;
    while (size < raw_size && size < lzma_max_dictionary_bytes) {
        size *= 2;
    }
    return static_cast<std::uint32_t>(size);
}

}  // namespace tcgen_runtime
