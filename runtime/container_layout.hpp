#pragma once
// The byte layout of the .tcz container, written down once: its constants,
// the fields of every section, the restart points, the preamble and trailer
// as values, and the limits a preamble must keep. docs/format.md describes
// every byte; keep the two in step (tests/runtime/container_layout_test.cpp
// checks its tables against the layout structs below). The writer
// (container_writer.hpp) and the reader (container_reader.hpp) store and
// load every field through these descriptions.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "byte_order.hpp"
#include "error.hpp"
#include "format_limits.hpp"

namespace tcgen_runtime {

// Like PNG's signature: a high-bit byte catches 7-bit transfers, CR LF and the
// lone LF catch line-ending conversion, 0x1A stops `type` on DOS.
inline constexpr std::array<std::uint8_t, 8> tcz_magic = {0x89, 'T', 'C', 'Z', 0x0D, 0x0A, 0x1A, 0x0A};
inline constexpr std::uint16_t tcz_format_version = 11;

constexpr std::uint32_t make_tag(char first, char second, char third, char fourth) {
    return static_cast<std::uint32_t>(static_cast<std::uint8_t>(first)) |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(second)) << 8 |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(third)) << 16 |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(fourth)) << 24;
}

inline constexpr std::uint32_t tcz_header_tag = make_tag('T', 'C', 'Z', 'H');
inline constexpr std::uint32_t tcz_block_tag = make_tag('T', 'C', 'Z', 'B');
inline constexpr std::uint32_t tcz_end_tag = make_tag('T', 'C', 'Z', 'E');

// The byte layout of the sections, written down once: the writer stores and
// the reader loads every field through these descriptions, and the tests pin
// them and check the tables of docs/format.md against them. A section is a
// run of fixed fields, a variable-length part (spec text, compressed data or
// tail) and the checks after it. The fields before the variable part have
// offsets from the start of the section, as in docs/format.md; the fields
// after it (in After* structs) have offsets from the end of the variable part,
// because a streaming reader and writer hold them in a buffer of their own.

// A little-endian integer of type T at `offset` bytes into a part of a section.
template <class T>
struct TczField {
    std::size_t offset;
    static constexpr std::size_t size = sizeof(T);

    constexpr std::size_t end() const { return offset + size; }
    T load(const std::uint8_t* part) const { return load_le<T>(part + offset); }
    void store(std::uint8_t* part, T value) const { store_le<T>(part + offset, value); }
};

// Bytes stored as they are.
struct TczBytes {
    std::size_t offset;
    std::size_t size;

    constexpr std::size_t end() const { return offset + size; }
};

// Where the last of `fields` ends if they follow one another from `start`
// without a gap or an overlap; otherwise an offset no section reaches.
template <class... Fields>
constexpr std::size_t tcz_packed_end(std::size_t start, Fields... fields) {
    std::size_t next = start;
    bool packed = true;
    ((packed = packed && fields.offset == next, next = fields.end()), ...);
    return packed ? next : std::numeric_limits<std::size_t>::max();
}

struct TczPreambleLayout {
    static constexpr TczBytes magic{0, tcz_magic.size()};
    static constexpr TczField<std::uint16_t> version{8};
    static constexpr TczField<std::uint16_t> flags{10};
    static constexpr TczField<std::uint64_t> fingerprint{12};
    static constexpr TczField<std::uint32_t> record_bytes{20};
    static constexpr TczField<std::uint32_t> header_bytes{24};
    static constexpr TczField<std::uint32_t> stream_count{28};
    static constexpr TczField<std::uint64_t> records_per_block{32};
    // The predictors restart every restart_blocks blocks (0: never); see
    // tcz_restarts_at.
    static constexpr TczField<std::uint32_t> restart_blocks{40};
    static constexpr TczField<std::uint32_t> spec_size{44};
    static constexpr std::size_t spec_text = 48;
    struct AfterSpec {
        // Of all the bytes before it; the first check of the chain.
        static constexpr TczField<std::uint64_t> check{0};
        static constexpr std::size_t size = 8;
    };
    static constexpr std::size_t fixed_bytes = spec_text + AfterSpec::size;
};

struct TczHeaderSectionLayout {
    static constexpr TczField<std::uint32_t> tag{0};
    static constexpr TczField<std::uint64_t> raw_size{4};
    static constexpr TczField<std::uint64_t> compressed_size{12};
    static constexpr TczField<std::uint8_t> backend{20};
    // Of the fields before it.
    static constexpr TczField<std::uint64_t> fields_check{21};
    static constexpr std::size_t data = 29;
    struct AfterData {
        // Of the compressed header, then of the header itself.
        static constexpr TczField<std::uint64_t> data_check{0};
        static constexpr TczField<std::uint64_t> header_check{8};
        static constexpr std::size_t size = 16;
    };
    static constexpr std::size_t fixed_bytes = data + AfterData::size;
};

struct TczBlockLayout {
    static constexpr TczField<std::uint32_t> tag{0};
    static constexpr TczField<std::uint64_t> record_count{4};
    // A raw size, a compressed size and a back-end per stream, 17 bytes a
    // stream.
    static constexpr std::size_t stream_sizes = 12;
    static constexpr std::size_t stream_sizes_stride = 17;
    static constexpr TczField<std::uint64_t> raw_size(std::size_t stream) {
        return {stream_sizes + stream_sizes_stride * stream};
    }
    static constexpr TczField<std::uint64_t> compressed_size(std::size_t stream) {
        return {raw_size(stream).end()};
    }
    static constexpr TczField<std::uint8_t> backend(std::size_t stream) {
        return {compressed_size(stream).end()};
    }
    // Of the fields before it.
    static constexpr TczField<std::uint64_t> fields_check(std::size_t stream_count) {
        return {stream_sizes + stream_sizes_stride * stream_count};
    }
    // The compressed streams, stream 0 first.
    static constexpr std::size_t data(std::size_t stream_count) { return fields_check(stream_count).end(); }
    struct AfterData {
        // Of all the compressed streams, then of the block's original records.
        static constexpr TczField<std::uint64_t> data_check{0};
        static constexpr TczField<std::uint64_t> records_check{8};
        static constexpr std::size_t size = 16;
    };
};

struct TczTrailerLayout {
    static constexpr TczField<std::uint32_t> tag{0};
    static constexpr TczField<std::uint64_t> total_records{4};
    static constexpr TczField<std::uint64_t> total_bytes{12};
    static constexpr TczField<std::uint32_t> tail_size{20};
    static constexpr TczField<std::uint64_t> restart_count{24};
    // The tail, then the block index: a u64 offset per restart point.
    static constexpr std::size_t tail = 32;
    static constexpr std::size_t restart_offset_bytes = 8;
    struct AfterIndex {
        // Where the trailer starts in the file, so that a reader can find it
        // from the end; then the check of all the trailer's bytes before it,
        // the last check of the chain.
        static constexpr TczField<std::uint64_t> trailer_offset{0};
        static constexpr TczField<std::uint64_t> check{8};
        static constexpr std::size_t size = 16;
    };
    static constexpr std::size_t fixed_bytes = tail + AfterIndex::size;
};

// Whether the predictors start from zeroed tables at block `block` (1-based):
// at the first block, and every `restart_blocks` blocks after it, so that a
// reader with random access can start decoding there (the trailer's block
// index gives where those blocks are).
constexpr bool tcz_restarts_at(std::uint64_t block, std::uint32_t restart_blocks) {
    return block == 1 || (restart_blocks > 0 && (block - 1) % restart_blocks == 0);
}

// The latest restart point at or before `block`.
constexpr std::uint64_t tcz_restart_before(std::uint64_t block, std::uint32_t restart_blocks) {
    return restart_blocks == 0 ? 1 : (block - 1) / restart_blocks * restart_blocks + 1;
}

// How many of blocks 1..blocks are restart points.
constexpr std::uint64_t tcz_restart_count(std::uint64_t blocks, std::uint32_t restart_blocks) {
    return blocks == 0 ? 0 : restart_blocks == 0 ? 1 : (blocks - 1) / restart_blocks + 1;
}

static_assert(tcz_packed_end(0, TczPreambleLayout::magic, TczPreambleLayout::version, TczPreambleLayout::flags,
                             TczPreambleLayout::fingerprint, TczPreambleLayout::record_bytes,
                             TczPreambleLayout::header_bytes, TczPreambleLayout::stream_count,
                             TczPreambleLayout::records_per_block, TczPreambleLayout::restart_blocks,
                             TczPreambleLayout::spec_size) == TczPreambleLayout::spec_text,
              "the preamble's fields must fill the bytes before the spec text");
static_assert(tcz_packed_end(0, TczPreambleLayout::AfterSpec::check) == TczPreambleLayout::AfterSpec::size,
              "the check must fill the bytes after the spec text");
static_assert(tcz_packed_end(0, TczHeaderSectionLayout::tag, TczHeaderSectionLayout::raw_size,
                             TczHeaderSectionLayout::compressed_size, TczHeaderSectionLayout::backend,
                             TczHeaderSectionLayout::fields_check) == TczHeaderSectionLayout::data,
              "the header section's fields must fill the bytes before its data");
static_assert(tcz_packed_end(0, TczHeaderSectionLayout::AfterData::data_check,
                             TczHeaderSectionLayout::AfterData::header_check) ==
                  TczHeaderSectionLayout::AfterData::size,
              "the checks must fill the bytes after the header section's data");
static_assert(tcz_packed_end(0, TczBlockLayout::tag, TczBlockLayout::record_count) == TczBlockLayout::stream_sizes,
              "the stream sizes must follow the record count");
static_assert(tcz_packed_end(TczBlockLayout::stream_sizes, TczBlockLayout::raw_size(0),
                             TczBlockLayout::compressed_size(0), TczBlockLayout::backend(0),
                             TczBlockLayout::raw_size(1), TczBlockLayout::compressed_size(1),
                             TczBlockLayout::backend(1),
                             TczBlockLayout::fields_check(2)) == TczBlockLayout::data(2),
              "a block's stream sizes and check must fill the bytes before its data");
static_assert(tcz_packed_end(0, TczBlockLayout::AfterData::data_check, TczBlockLayout::AfterData::records_check) ==
                  TczBlockLayout::AfterData::size,
              "the checks must fill the bytes after a block's data");
static_assert(tcz_packed_end(0, TczTrailerLayout::tag, TczTrailerLayout::total_records, TczTrailerLayout::total_bytes,
                             TczTrailerLayout::tail_size, TczTrailerLayout::restart_count) == TczTrailerLayout::tail,
              "the trailer's fields must fill the bytes before the tail");
static_assert(tcz_packed_end(0, TczTrailerLayout::AfterIndex::trailer_offset, TczTrailerLayout::AfterIndex::check) ==
                  TczTrailerLayout::AfterIndex::size,
              "the check must fill the bytes after the tail");
// The reader reads a section's tag before it knows whether a block or the
// trailer follows.
static_assert(TczBlockLayout::tag.offset == TczTrailerLayout::tag.offset &&
                  TczBlockLayout::tag.size == TczTrailerLayout::tag.size,
              "blocks and the trailer must start with the same tag field");

// The preamble: what a file says about the codec that wrote it.
struct Preamble {
    std::uint64_t fingerprint = 0;
    std::string spec_text;
    std::uint32_t record_bytes = 0;
    std::uint32_t header_bytes = 0;
    std::uint32_t stream_count = 0;
    std::uint64_t records_per_block = 0;
    std::uint32_t restart_blocks = 0;  // not part of a codec's identity: a writer's choice
};

struct Trailer {
    std::uint64_t total_records = 0;
    std::uint64_t total_bytes = 0;
    std::vector<std::uint8_t> tail;
    // The block index: where each restart point's block starts, counted
    // from the start of the file (of this .tcz, if several are concatenated).
    std::vector<std::uint64_t> restart_offsets;
};

inline std::string hex32(std::uint32_t value) {
    char text[11];
    std::snprintf(text, sizeof text, "0x%08lx", static_cast<unsigned long>(value));
    return text;
}

inline std::string size_text(std::uint64_t value) {
    return std::to_string(value);
}

inline std::string block_name(std::uint64_t block_number) {
    return "block " + size_text(block_number);
}

// Checks that a preamble's numbers are within the format's limits; shared by
// the writer (catching a bad codec early) and the reader (untrusted input).
inline void check_preamble_limits(const Preamble& preamble, const std::string& problem_prefix) {
    if (preamble.spec_text.size() > tcz_max_spec_bytes) {
        fail(problem_prefix + "spec text of " + size_text(preamble.spec_text.size()) + " bytes exceeds the limit of " +
             size_text(tcz_max_spec_bytes));
    }
    if (preamble.record_bytes == 0 || preamble.record_bytes > tcz_max_record_bytes) {
        fail(problem_prefix + "record size " + size_text(preamble.record_bytes) + " is not in 1.." +
             size_text(tcz_max_record_bytes));
    }
    if (preamble.header_bytes > tcz_max_header_bytes) {
        fail(problem_prefix + "header size " + size_text(preamble.header_bytes) + " exceeds the limit of " +
             size_text(tcz_max_header_bytes));
    }
    if (preamble.stream_count > tcz_max_stream_count) {
        fail(problem_prefix + "stream count " + size_text(preamble.stream_count) + " exceeds the limit of " +
             size_text(tcz_max_stream_count));
    }
    const std::uint64_t max_records_per_block = tcz_max_block_bytes / preamble.record_bytes;
    if (preamble.records_per_block == 0 || preamble.records_per_block > max_records_per_block) {
        fail(problem_prefix + "records per block " + size_text(preamble.records_per_block) + " is not in 1.." +
             size_text(max_records_per_block));
    }
}

}  // namespace tcgen_runtime
