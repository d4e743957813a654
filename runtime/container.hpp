#pragma once
// Reading and writing the .tcz container. docs/format.md describes every byte;
// keep the two in step (tests/runtime/container_test.cpp checks its tables
// against the layout structs below). This layer knows sections, lengths and
// checksums but nothing of predictors: the driver hands it finished streams to
// compress and gets decompressed, verified streams back.
//
// Every length read from a file is checked against a limit derived from the
// preamble before anything is allocated, and every byte of the file is
// covered by a check (XXH64) seeded with the check before it, so that
// corruption, and sections of other files spliced in, give an Error, never a
// crash, a huge allocation or silently different output.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "byte_order.hpp"
#include "backends.hpp"
#include "checksum.hpp"
#include "error.hpp"
#include "format_limits.hpp"
#include "io.hpp"
#include "streams.hpp"

namespace tcgen_runtime {

// Like PNG's signature: a high-bit byte catches 7-bit transfers, CR LF and the
// lone LF catch line-ending conversion, 0x1A stops `type` on DOS.
inline constexpr std::array<std::uint8_t, 8> tcz_magic = {0x89, 'T', 'C', 'Z', 0x0D, 0x0A, 0x1A, 0x0A};
inline constexpr std::uint16_t tcz_format_version = 5;

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

// The file was written by another spec. The message is the one-line error;
// spec_text() is the spec stored in the file, for the user to see.
class SpecMismatchError : public Error {
public:
    SpecMismatchError(const std::string& message, std::string spec_text)
        : Error(message), spec_text_(std::move(spec_text)) {}

    const std::string& spec_text() const { return spec_text_; }

private:
    std::string spec_text_;
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

// Compares the preamble read from a file with the one the running codec
// would write. A different spec is reported with the file's own spec. Every
// codec has a spec, and its fingerprint is that of its text, so an empty
// text, or a text other than ours under our fingerprint, is damage.
inline void check_preamble_matches(const Preamble& found, const Preamble& expected) {
    if (found.spec_text.empty()) {
        fail("corrupt input: the preamble stores no spec text");
    }
    if (found.fingerprint == expected.fingerprint && found.spec_text != expected.spec_text) {
        fail("corrupt input: the stored spec text does not match its fingerprint");
    }
    if (found.fingerprint != expected.fingerprint) {
        throw SpecMismatchError("this .tcz was made by a different spec (fingerprint " + hex64(found.fingerprint) +
                                    ", expected " + hex64(expected.fingerprint) + "); it was made by:",
                                found.spec_text);
    }
    if (found.record_bytes != expected.record_bytes) {
        fail("record size mismatch: this .tcz has " + size_text(found.record_bytes) +
             "-byte records, this program expects " + size_text(expected.record_bytes));
    }
    if (found.header_bytes != expected.header_bytes) {
        fail("header size mismatch: this .tcz has a " + size_text(found.header_bytes) +
             "-byte header, this program expects " + size_text(expected.header_bytes));
    }
    if (found.stream_count != expected.stream_count) {
        fail("stream count mismatch: this .tcz has " + size_text(found.stream_count) +
             " streams, this program expects " + size_text(expected.stream_count));
    }
}

// The checks of a file form one chain: each is the XXH64 of what it covers,
// seeded with the check before it (the preamble's with 0). A section
// therefore verifies only after the very sections it was written after, so
// sections of two files cannot be mixed, reordered, repeated or dropped
// without an error, and the trailer's check vouches for the whole file.
// Writer and reader hold one each; the output stays a function of the input
// alone (no random identifiers), so equal traces give equal files.
class CheckChain {
public:
    // The check of `size` bytes at `data`, which becomes the seed of the next.
    std::uint64_t next(const std::uint8_t* data, std::size_t size) {
        last_ = xxh64(data, size, last_);
        return last_;
    }

    // A hash of data that arrives in pieces, seeded like next().
    Xxh64 start() const { return Xxh64(last_); }

    // Continues the chain from a check computed elsewhere (or read from a
    // file, to be verified later).
    void advance(std::uint64_t check) { last_ = check; }

    std::uint64_t last() const { return last_; }

private:
    std::uint64_t last_ = 0;
};

class ContainerWriter {
public:
    // Every buffer is compressed with the back-end `backend` picks for it,
    // at `level`.
    explicit ContainerWriter(ByteSink& sink, BackendChoice backend = {}, unsigned level = default_level)
        : sink_(sink), backend_(backend), level_(level) {}

    void write_preamble(const Preamble& preamble) {
        using Layout = TczPreambleLayout;
        check_preamble_limits(preamble, "internal error: ");
        preamble_ = preamble;
        const std::size_t spec_size = preamble.spec_text.size();
        section_.assign(Layout::fixed_bytes + spec_size, 0);
        std::uint8_t* const fields = section_.data();
        std::copy(tcz_magic.begin(), tcz_magic.end(), fields + Layout::magic.offset);
        Layout::version.store(fields, tcz_format_version);
        Layout::flags.store(fields, 0);
        Layout::fingerprint.store(fields, preamble.fingerprint);
        Layout::record_bytes.store(fields, preamble.record_bytes);
        Layout::header_bytes.store(fields, preamble.header_bytes);
        Layout::stream_count.store(fields, preamble.stream_count);
        Layout::records_per_block.store(fields, preamble.records_per_block);
        Layout::restart_blocks.store(fields, preamble.restart_blocks);
        Layout::spec_size.store(fields, static_cast<std::uint32_t>(spec_size));
        const std::uint8_t* const spec = reinterpret_cast<const std::uint8_t*>(preamble.spec_text.data());
        std::copy(spec, spec + spec_size, fields + Layout::spec_text);
        const std::size_t spec_end = Layout::spec_text + spec_size;
        Layout::AfterSpec::check.store(fields + spec_end, chain_.next(fields, spec_end));
        emit(section_.data(), section_.size());
    }

    // The trace header: the first header_bytes bytes of the input, or all of
    // the input if it is shorter.
    void write_header(const std::uint8_t* header, std::size_t size) {
        using Layout = TczHeaderSectionLayout;
        if (size > preamble_.header_bytes) {
            fail("internal error: header of " + size_text(size) + " bytes, the spec says " +
                 size_text(preamble_.header_bytes));
        }
        std::vector<std::uint8_t>& compressed = compressed_[0];
        const Backend backend = backend_.compress(header, size, compressed, scratch_, level_);
        section_.assign(Layout::data, 0);
        Layout::tag.store(section_.data(), tcz_header_tag);
        Layout::raw_size.store(section_.data(), size);
        Layout::compressed_size.store(section_.data(), compressed.size());
        Layout::backend.store(section_.data(), static_cast<std::uint8_t>(backend));
        Layout::fields_check.store(section_.data(), chain_.next(section_.data(), Layout::fields_check.offset));
        emit(section_.data(), section_.size());
        emit(compressed.data(), compressed.size());
        std::array<std::uint8_t, Layout::AfterData::size> after_data{};
        Layout::AfterData::data_check.store(after_data.data(), chain_.next(compressed.data(), compressed.size()));
        Layout::AfterData::header_check.store(after_data.data(), chain_.next(header, size));
        emit(after_data.data(), after_data.size());
    }

    // `records` holds record_count whole records, and streams[0..stream_count)
    // what the codec wrote for them.
    void write_block(const std::uint8_t* records, std::uint64_t record_count, const StreamWriter* streams) {
        using Layout = TczBlockLayout;
        const std::size_t stream_count = preamble_.stream_count;
        if (record_count == 0 || record_count > preamble_.records_per_block) {
            fail("internal error: block of " + size_text(record_count) + " records");
        }
        std::uint64_t raw_total = 0;
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            raw_total += streams[stream].size();
        }
        if (raw_total > tcz_max_stream_bytes(record_count, preamble_.record_bytes)) {
            fail("internal error: the codec wrote " + size_text(raw_total) + " stream bytes for " +
                 size_text(record_count) + " records, more than the format allows");
        }
        if (compressed_.size() < stream_count) {
            compressed_.resize(stream_count);
        }
        stream_bytes_.resize(stream_count);
        stream_raw_bytes_.resize(stream_count);
        blocks_written_ += 1;
        if (tcz_restarts_at(blocks_written_, preamble_.restart_blocks)) {
            restart_offsets_.push_back(bytes_written_);
        }
        section_.assign(Layout::data(stream_count), 0);
        Layout::tag.store(section_.data(), tcz_block_tag);
        Layout::record_count.store(section_.data(), record_count);
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            const Backend backend =
                backend_.compress(streams[stream].data(), streams[stream].size(), compressed_[stream], scratch_,
                                  level_);
            Layout::raw_size(stream).store(section_.data(), streams[stream].size());
            Layout::compressed_size(stream).store(section_.data(), compressed_[stream].size());
            stream_bytes_[stream] += compressed_[stream].size();
            stream_raw_bytes_[stream] += streams[stream].size();
            Layout::backend(stream).store(section_.data(), static_cast<std::uint8_t>(backend));
        }
        const TczField<std::uint64_t> fields_check = Layout::fields_check(stream_count);
        fields_check.store(section_.data(), chain_.next(section_.data(), fields_check.offset));
        emit(section_.data(), section_.size());
        Xxh64 data_check = chain_.start();
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            emit(compressed_[stream].data(), compressed_[stream].size());
            data_check.update(compressed_[stream].data(), compressed_[stream].size());
        }
        chain_.advance(data_check.digest());
        std::array<std::uint8_t, Layout::AfterData::size> after_data{};
        Layout::AfterData::data_check.store(after_data.data(), chain_.last());
        const std::size_t record_area = static_cast<std::size_t>(record_count) * preamble_.record_bytes;
        Layout::AfterData::records_check.store(after_data.data(), chain_.next(records, record_area));
        emit(after_data.data(), after_data.size());
    }

    void write_trailer(std::uint64_t total_records, std::uint64_t total_bytes, const std::uint8_t* tail,
                       std::size_t tail_size) {
        using Layout = TczTrailerLayout;
        if (tail_size >= preamble_.record_bytes) {
            fail("internal error: tail of " + size_text(tail_size) + " bytes is a whole record");
        }
        const std::size_t index_bytes = restart_offsets_.size() * Layout::restart_offset_bytes;
        section_.assign(Layout::fixed_bytes + tail_size + index_bytes, 0);
        std::uint8_t* const fields = section_.data();
        Layout::tag.store(fields, tcz_end_tag);
        Layout::total_records.store(fields, total_records);
        Layout::total_bytes.store(fields, total_bytes);
        Layout::tail_size.store(fields, static_cast<std::uint32_t>(tail_size));
        Layout::restart_count.store(fields, restart_offsets_.size());
        std::copy(tail, tail + tail_size, fields + Layout::tail);
        std::uint8_t* index = fields + Layout::tail + tail_size;
        for (const std::uint64_t offset : restart_offsets_) {
            store_le<std::uint64_t>(index, offset);
            index += Layout::restart_offset_bytes;
        }
        const std::size_t index_end = Layout::tail + tail_size + index_bytes;
        Layout::AfterIndex::trailer_offset.store(fields + index_end, bytes_written_);
        const std::size_t check_offset = index_end + Layout::AfterIndex::check.offset;
        Layout::AfterIndex::check.store(fields + index_end, chain_.next(fields, check_offset));
        emit(section_.data(), section_.size());
    }

    std::uint64_t bytes_written() const { return bytes_written_; }

    // The compressed and the raw bytes of each stream so far, over all
    // blocks (empty before the first block).
    const std::vector<std::uint64_t>& stream_bytes() const { return stream_bytes_; }
    const std::vector<std::uint64_t>& stream_raw_bytes() const { return stream_raw_bytes_; }

private:
    void emit(const std::uint8_t* data, std::size_t size) {
        sink_.write(data, size);
        bytes_written_ += size;
    }

    ByteSink& sink_;
    BackendChoice backend_;
    unsigned level_;
    Preamble preamble_;
    CheckChain chain_;
    // The fixed fields of the section being written (and, for the preamble
    // and trailer, all of it).
    std::vector<std::uint8_t> section_;
    std::vector<std::vector<std::uint8_t>> compressed_ = std::vector<std::vector<std::uint8_t>>(1);
    std::vector<std::uint8_t> scratch_;  // the output BackendChoice did not keep
    std::vector<std::uint64_t> stream_bytes_;
    std::vector<std::uint64_t> stream_raw_bytes_;
    std::uint64_t blocks_written_ = 0;
    // Where each block at which the predictors restart begins.
    std::vector<std::uint64_t> restart_offsets_;
    std::uint64_t bytes_written_ = 0;
};

// One block as read back: record count, each stream decompressed, and the
// check its original records must have (ContainerReader::verify_records).
// Reused from block to block.
struct BlockData {
    std::uint64_t number = 0;
    std::uint64_t record_count = 0;
    std::vector<std::vector<std::uint8_t>> streams;
    // Per stream, as the block's section header gives them.
    std::vector<std::uint64_t> raw_sizes;
    std::vector<std::uint64_t> compressed_sizes;
    std::uint64_t records_seed = 0;
    std::uint64_t records_check = 0;
};

class ContainerReader {
public:
    explicit ContainerReader(ByteSource& source) : source_(source) {}

    // Reads and checks the preamble: magic, version, limits, check.
    Preamble read_preamble() {
        using Layout = TczPreambleLayout;
        member_start_ = bytes_read_;
        observed_restarts_.clear();
        known_restarts_.clear();
        begin_section("preamble", Layout::spec_text);
        fields_.assign(Layout::spec_text, 0);
        const std::size_t magic_size = read_available(fields_.data() + Layout::magic.offset, Layout::magic.size);
        check_magic(fields_.data() + Layout::magic.offset, magic_size);
        // The version before anything else, so that a file of another version
        // is reported as such, not as damaged.
        read_exact(fields_.data() + Layout::version.offset, Layout::version.size);
        const std::uint16_t version = Layout::version.load(fields_.data());
        if (version != tcz_format_version) {
            fail("unsupported .tcz format version " + size_text(version) + " (this program reads version " +
                 size_text(tcz_format_version) + ")");
        }
        read_exact(fields_.data() + Layout::version.end(), Layout::spec_text - Layout::version.end());
        const std::uint32_t spec_size = Layout::spec_size.load(fields_.data());
        if (spec_size > tcz_max_spec_bytes) {
            fail("corrupt input: preamble gives a spec of " + size_text(spec_size) + " bytes (limit " +
                 size_text(tcz_max_spec_bytes) + ")");
        }
        extend_section(spec_size + Layout::AfterSpec::size);
        const std::size_t spec_end = Layout::spec_text + spec_size;
        fields_.resize(spec_end + Layout::AfterSpec::size);
        read_exact(fields_.data() + Layout::spec_text, spec_size + Layout::AfterSpec::size);
        if (!chain_verifies(fields_.data(), spec_end, Layout::AfterSpec::check.load(fields_.data() + spec_end))) {
            fail("checksum mismatch in preamble");
        }
        const std::uint16_t flags = Layout::flags.load(fields_.data());
        if (flags != 0) {
            fail("unsupported .tcz features (flags " + hex32(flags) + ")");
        }
        Preamble preamble;
        preamble.fingerprint = Layout::fingerprint.load(fields_.data());
        preamble.record_bytes = Layout::record_bytes.load(fields_.data());
        preamble.header_bytes = Layout::header_bytes.load(fields_.data());
        preamble.stream_count = Layout::stream_count.load(fields_.data());
        preamble.records_per_block = Layout::records_per_block.load(fields_.data());
        preamble.restart_blocks = Layout::restart_blocks.load(fields_.data());
        preamble.spec_text.assign(reinterpret_cast<const char*>(fields_.data() + Layout::spec_text), spec_size);
        check_preamble_limits(preamble, "corrupt input: ");
        preamble_ = preamble;
        return preamble;
    }

    // Reads the header section into `header` (resized), verified.
    void read_header(std::vector<std::uint8_t>& header) {
        using Layout = TczHeaderSectionLayout;
        begin_section("header section", Layout::fixed_bytes);
        fields_.resize(Layout::data);
        read_exact(fields_.data() + Layout::tag.offset, Layout::tag.size);
        if (Layout::tag.load(fields_.data()) != tcz_header_tag) {
            fail("corrupt input: header section tag missing");
        }
        read_exact(fields_.data() + Layout::tag.end(), Layout::data - Layout::tag.end());
        if (!chain_verifies(fields_.data(), Layout::fields_check.offset, Layout::fields_check.load(fields_.data()))) {
            fail("checksum mismatch in header section");
        }
        const std::uint64_t raw_size = Layout::raw_size.load(fields_.data());
        const std::uint64_t compressed_size = Layout::compressed_size.load(fields_.data());
        if (raw_size > preamble_.header_bytes) {
            fail("corrupt input: header section holds " + size_text(raw_size) + " bytes, more than the " +
                 size_text(preamble_.header_bytes) + "-byte header");
        }
        const Backend backend = read_backend(Layout::backend.load(fields_.data()), "header");
        check_compressed_size(raw_size, compressed_size, backend, "header");
        header_size_ = raw_size;
        extend_section(compressed_size);
        read_growing(compressed_, compressed_size);
        std::array<std::uint8_t, Layout::AfterData::size> after_data{};
        read_exact(after_data.data(), after_data.size());
        if (!chain_verifies(compressed_.data(), compressed_.size(),
                            Layout::AfterData::data_check.load(after_data.data()))) {
            fail("checksum mismatch in header section (compressed data)");
        }
        backend_decompress(backend, compressed_.data(), compressed_.size(), header, static_cast<std::size_t>(raw_size),
                           "header");
        if (!chain_verifies(header.data(), header.size(), Layout::AfterData::header_check.load(after_data.data()))) {
            fail("checksum mismatch in header");
        }
    }

    // Reads the next section. Returns true with `block` filled (streams
    // decompressed unless `decompress_streams` is false; records not yet
    // verified: the caller decodes them and passes them to verify_records) or
    // false once the trailer was read into `trailer` and checked, including
    // that nothing but another .tcz (next_member) follows it.
    bool read_next(BlockData& block, Trailer& trailer, const std::string_view* stream_names = nullptr,
                   bool decompress_streams = true) {
        const std::uint64_t next_number = blocks_read_ + 1;
        begin_section("section after " + (blocks_read_ == 0 ? std::string("the header") : block_name(blocks_read_)),
                      TczBlockLayout::tag.size, true);
        TagBytes tag_bytes{};
        const std::size_t tag_size = read_available(tag_bytes.data(), tag_bytes.size());
        if (tag_size == 0) {
            fail("truncated input: the file ends after " +
                 (blocks_read_ == 0 ? std::string("the header") : block_name(blocks_read_)) + " without a trailer");
        }
        if (tag_size < tag_bytes.size()) {
            fail_truncated();
        }
        const std::uint32_t tag = TczBlockLayout::tag.load(tag_bytes.data());
        section_offset_ = bytes_read_ - tag_size - member_start_;
        if (tag == tcz_block_tag) {
            if (tcz_restarts_at(next_number, preamble_.restart_blocks)) {
                observed_restarts_.push_back({next_number, section_offset_});
                if (known_restarts_.empty() || known_restarts_.back().block < next_number) {
                    known_restarts_.push_back({next_number, section_offset_});
                }
            }
            read_block(next_number, tag_bytes, block, stream_names, decompress_streams);
            return true;
        }
        if (tag == tcz_end_tag) {
            read_trailer(tag_bytes, trailer);
            return false;
        }
        fail("corrupt input: unknown section tag " + hex32(tag) + " after " +
             (blocks_read_ == 0 ? std::string("the header") : block_name(blocks_read_)));
    }

    // Checks the records decoded from `block` (record_count whole records at
    // `records`) against the check the file stores for them.
    void verify_records(const BlockData& block, const std::uint8_t* records) const {
        const std::size_t record_area = static_cast<std::size_t>(block.record_count) * preamble_.record_bytes;
        if (xxh64(records, record_area, block.records_seed) != block.records_check) {
            fail("checksum mismatch in " + block_name(block.number));
        }
    }

    // Random access (a source with a size, reading its first .tcz): the
    // block index, read from the trailer at the end of the file and verified
    // there. Nothing if the source is a stream or the trailer at its end does
    // not verify as this file's (a concatenation of files, say); the reader
    // then reads on sequentially, where every check is made as usual. The
    // read position is kept.
    std::optional<std::vector<std::uint64_t>> read_block_index() {
        using Layout = TczTrailerLayout;
        const std::optional<std::uint64_t> size = source_.size();
        if (!size || member_start_ != 0 || *size < Layout::fixed_bytes + 8) {
            return std::nullopt;
        }
        const std::uint64_t resume_at = bytes_read_ + lookahead_.size();
        std::optional<std::vector<std::uint64_t>> index = index_at_end(*size);
        source_.seek(resume_at);
        return index;
    }

    // With random access: the latest restart point at or before `block` of
    // this .tcz that has been read past already (where the block index is
    // not available), as {block, offset}; {0, 0} if none.
    std::pair<std::uint64_t, std::uint64_t> known_restart_before(std::uint64_t block) const {
        std::pair<std::uint64_t, std::uint64_t> found{0, 0};
        if (!source_.size()) {
            return found;
        }
        for (const ObservedRestart& known : known_restarts_) {
            if (known.block <= block) {
                found = {known.block, known.offset};
            }
        }
        return found;
    }

    // Continues reading at block `block`, a restart point, which starts
    // `offset` bytes into the file (an entry of the block index), as if the
    // blocks before it had been read: the chain goes on from the check
    // stored just before the block.
    void resume_at_block(std::uint64_t block, std::uint64_t offset) {
        if (!tcz_restarts_at(block, preamble_.restart_blocks) || offset < 8) {
            fail("internal error: cannot resume at block " + size_text(block));
        }
        lookahead_.clear();
        member_follows_ = false;
        source_.seek(member_start_ + offset - 8);
        std::array<std::uint8_t, 8> seed{};
        if (source_.read_up_to(seed.data(), seed.size()) != seed.size()) {
            fail("truncated input: the block index points past the end of the file");
        }
        chain_.advance(load_le<std::uint64_t>(seed.data()));
        bytes_read_ = member_start_ + offset;
        blocks_read_ = block - 1;
        records_read_ = (block - 1) * preamble_.records_per_block;
        header_size_ = preamble_.header_bytes;
        saw_partial_block_ = false;
        observed_restarts_.clear();
    }

    // After read_next returned false: whether another .tcz follows the
    // trailer. If so, the reader starts over on it; read_preamble comes next.
    bool next_member() {
        if (!member_follows_) {
            return false;
        }
        member_follows_ = false;
        chain_ = CheckChain();
        header_size_ = 0;
        blocks_read_ = 0;
        records_read_ = 0;
        saw_partial_block_ = false;
        return true;
    }

    std::uint64_t bytes_read() const { return bytes_read_; }

private:
    // The tag that starts a block or the trailer, read before it is known
    // which of the two follows.
    using TagBytes = std::array<std::uint8_t, TczBlockLayout::tag.size>;

    void check_magic(const std::uint8_t* magic, std::size_t size) {
        if (size == 0) {
            fail("not a .tcz file (empty input)");
        }
        bool prefix_matches = true;
        for (std::size_t index = 0; index < size; ++index) {
            if (magic[index] != tcz_magic[index]) {
                prefix_matches = false;
            }
        }
        if (prefix_matches && size < tcz_magic.size()) {
            fail_truncated();
        }
        if (prefix_matches) {
            return;
        }
        const bool starts_like_tcz = size >= 4 && magic[1] == 'T' && magic[2] == 'C' && magic[3] == 'Z';
        if (starts_like_tcz) {
            fail("not a .tcz file (bad magic: the file looks mangled, e.g. by a text-mode transfer)");
        }
        fail("not a .tcz file (bad magic)");
    }

    void read_block(std::uint64_t number, const TagBytes& tag_bytes, BlockData& block,
                    const std::string_view* stream_names, bool decompress_streams) {
        using Layout = TczBlockLayout;
        const std::size_t stream_count = preamble_.stream_count;
        const std::size_t data = Layout::data(stream_count);
        begin_section(block_name(number), data);
        section_read_ = tag_bytes.size();
        fields_.resize(data);
        std::copy(tag_bytes.begin(), tag_bytes.end(), fields_.begin() + Layout::tag.offset);
        read_exact(fields_.data() + Layout::tag.end(), data - Layout::tag.end());
        const TczField<std::uint64_t> fields_check = Layout::fields_check(stream_count);
        if (!chain_verifies(fields_.data(), fields_check.offset, fields_check.load(fields_.data()))) {
            fail("checksum mismatch in " + block_name(number) + " (section header)");
        }
        if (header_size_ < preamble_.header_bytes) {
            fail("corrupt input: " + block_name(number) + " follows a partial header");
        }
        if (saw_partial_block_) {
            fail("corrupt input: " + block_name(number) + " follows a partial block");
        }
        const std::uint64_t record_count = Layout::record_count.load(fields_.data());
        if (record_count == 0 || record_count > preamble_.records_per_block) {
            fail("corrupt input: " + block_name(number) + " has " + size_text(record_count) + " records (limit " +
                 size_text(preamble_.records_per_block) + ")");
        }
        block.number = number;
        block.record_count = record_count;
        if (block.streams.size() != stream_count) {
            block.streams.resize(stream_count);
        }
        std::vector<std::uint64_t>& raw_sizes = block.raw_sizes;
        std::vector<std::uint64_t>& compressed_sizes = block.compressed_sizes;
        raw_sizes.resize(stream_count);
        compressed_sizes.resize(stream_count);
        backends_.resize(stream_count);
        std::uint64_t raw_total = 0;
        std::uint64_t compressed_total = 0;
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            raw_sizes[stream] = Layout::raw_size(stream).load(fields_.data());
            compressed_sizes[stream] = Layout::compressed_size(stream).load(fields_.data());
            if (raw_sizes[stream] > tcz_max_stream_bytes(record_count, preamble_.record_bytes)) {
                fail("corrupt input: " + stream_label(number, stream, stream_names) + " is too long");
            }
            backends_[stream] = read_backend(Layout::backend(stream).load(fields_.data()),
                                             stream_label(number, stream, stream_names));
            check_compressed_size(raw_sizes[stream], compressed_sizes[stream], backends_[stream],
                                  stream_label(number, stream, stream_names));
            raw_total += raw_sizes[stream];
            compressed_total += compressed_sizes[stream];
        }
        if (raw_total > tcz_max_stream_bytes(record_count, preamble_.record_bytes)) {
            fail("corrupt input: the streams of " + block_name(number) + " are too long for " +
                 size_text(record_count) + " records");
        }
        extend_section(compressed_total + Layout::AfterData::size);
        read_growing(compressed_, compressed_total);
        std::array<std::uint8_t, Layout::AfterData::size> after_data{};
        read_exact(after_data.data(), after_data.size());
        if (!chain_verifies(compressed_.data(), compressed_.size(),
                            Layout::AfterData::data_check.load(after_data.data()))) {
            fail("checksum mismatch in " + block_name(number) + " (compressed data)");
        }
        // The records are decoded later; the chain goes on from the check the
        // file stores for them, which verify_records holds them to.
        block.records_seed = chain_.last();
        block.records_check = Layout::AfterData::records_check.load(after_data.data());
        chain_.advance(block.records_check);
        std::size_t offset = 0;
        for (std::size_t stream = 0; stream < stream_count && decompress_streams; ++stream) {
            const std::size_t compressed_size = static_cast<std::size_t>(compressed_sizes[stream]);
            backend_decompress(backends_[stream], compressed_.data() + offset, compressed_size, block.streams[stream],
                               static_cast<std::size_t>(raw_sizes[stream]),
                               stream_label(number, stream, stream_names));
            offset += compressed_size;
        }
        if (record_count < preamble_.records_per_block) {
            saw_partial_block_ = true;
        }
        blocks_read_ = number;
        records_read_ += record_count;
    }

    void read_trailer(const TagBytes& tag_bytes, Trailer& trailer) {
        using Layout = TczTrailerLayout;
        begin_section("trailer", Layout::fixed_bytes);
        section_read_ = tag_bytes.size();
        fields_.resize(Layout::tail);
        std::copy(tag_bytes.begin(), tag_bytes.end(), fields_.begin() + Layout::tag.offset);
        read_exact(fields_.data() + Layout::tag.end(), Layout::tail - Layout::tag.end());
        const std::uint32_t tail_size = Layout::tail_size.load(fields_.data());
        if (tail_size >= preamble_.record_bytes) {
            fail("corrupt input: trailer gives a " + size_text(tail_size) + "-byte partial record, records are " +
                 size_text(preamble_.record_bytes) + " bytes");
        }
        const std::uint64_t restart_count = Layout::restart_count.load(fields_.data());
        const std::uint64_t expected_restarts = tcz_restart_count(blocks_read_, preamble_.restart_blocks);
        if (restart_count != expected_restarts) {
            fail("corrupt input: trailer indexes " + size_text(restart_count) + " restart points, the blocks have " +
                 size_text(expected_restarts));
        }
        const std::size_t index_bytes = static_cast<std::size_t>(restart_count) * Layout::restart_offset_bytes;
        const std::size_t index_end = Layout::tail + tail_size + index_bytes;
        extend_section(tail_size + index_bytes);
        read_growing_after(fields_, Layout::tail, tail_size + index_bytes + Layout::AfterIndex::size);
        const std::uint8_t* const after_index = fields_.data() + index_end;
        if (!chain_verifies(fields_.data(), index_end + Layout::AfterIndex::check.offset,
                            Layout::AfterIndex::check.load(after_index))) {
            fail("checksum mismatch in trailer");
        }
        if (Layout::AfterIndex::trailer_offset.load(after_index) != section_offset_) {
            fail("corrupt input: the trailer gives its offset as " +
                 size_text(Layout::AfterIndex::trailer_offset.load(after_index)) + ", it is at " +
                 size_text(section_offset_));
        }
        const std::size_t tail_end = Layout::tail + tail_size;
        trailer.restart_offsets.resize(static_cast<std::size_t>(restart_count));
        for (std::size_t point = 0; point < trailer.restart_offsets.size(); ++point) {
            trailer.restart_offsets[point] = load_le<std::uint64_t>(fields_.data() + tail_end + point * 8);
        }
        for (const ObservedRestart& observed : observed_restarts_) {
            const std::size_t point = restart_point(observed.block);
            if (trailer.restart_offsets[point] != observed.offset) {
                fail("corrupt input: the trailer's block index misplaces " + block_name(observed.block));
            }
        }
        trailer.total_records = Layout::total_records.load(fields_.data());
        trailer.total_bytes = Layout::total_bytes.load(fields_.data());
        trailer.tail.assign(fields_.data() + Layout::tail, fields_.data() + tail_end);
        if (trailer.total_records != records_read_) {
            fail("corrupt input: trailer counts " + size_text(trailer.total_records) + " records, the blocks hold " +
                 size_text(records_read_));
        }
        if (tail_size > 0 && header_size_ < preamble_.header_bytes) {
            fail("corrupt input: trailer has a partial record after a partial header");
        }
        const std::uint64_t expected_bytes = header_size_ + records_read_ * preamble_.record_bytes + tail_size;
        if (trailer.total_bytes != expected_bytes) {
            fail("corrupt input: trailer counts " + size_text(trailer.total_bytes) + " bytes, the file holds " +
                 size_text(expected_bytes));
        }
        // Like gzip, xz and zstd, the concatenation of .tcz files is one file
        // that decompresses to the concatenation of their traces; anything
        // else after a trailer is an error.
        std::array<std::uint8_t, tcz_magic.size()> next{};
        const std::size_t next_size = source_.read_up_to(next.data(), next.size());
        if (next_size > 0 && !std::equal(next.data(), next.data() + next_size, tcz_magic.data())) {
            fail("trailing garbage after the trailer");
        }
        lookahead_.assign(next.data(), next.data() + next_size);
        member_follows_ = next_size > 0;
    }

    static Backend read_backend(std::uint8_t id, const std::string& what) {
        const std::optional<Backend> backend = backend_from_id(id);
        if (!backend) {
            fail("corrupt input: " + what + " names unknown back-end " + size_text(id));
        }
        return *backend;
    }

    void check_compressed_size(std::uint64_t raw_size, std::uint64_t compressed_size, Backend backend,
                               const std::string& what) {
        if ((raw_size == 0) != (compressed_size == 0)) {
            fail("corrupt input: " + what + " has " + size_text(raw_size) + " bytes stored in " +
                 size_text(compressed_size));
        }
        if (compressed_size > backend_compress_bound(backend, raw_size)) {
            fail("corrupt input: " + what + " has " + size_text(compressed_size) + " compressed bytes for " +
                 size_text(raw_size));
        }
    }

    // Whether `check` is the next check of the chain for these bytes; the
    // chain goes on from it if so.
    bool chain_verifies(const std::uint8_t* data, std::size_t size, std::uint64_t check) {
        return chain_.next(data, size) == check;
    }

    static std::string stream_label(std::uint64_t block_number, std::size_t stream,
                                    const std::string_view* stream_names) {
        const std::string name =
            stream_names != nullptr ? "'" + std::string(stream_names[stream]) + "'" : size_text(stream);
        return "stream " + name + " of " + block_name(block_number);
    }

    // A section's size is known in full only once its length fields are read;
    // until then a truncation message says "at least".
    void begin_section(std::string name, std::uint64_t size, bool size_is_final = false) {
        section_name_ = std::move(name);
        section_size_ = size;
        section_size_is_final_ = size_is_final;
        section_read_ = 0;
    }

    void extend_section(std::uint64_t size) {
        section_size_ += size;
        section_size_is_final_ = true;
    }

    std::size_t read_available(std::uint8_t* buffer, std::size_t size) {
        const std::size_t held = std::min(size, lookahead_.size());
        const auto held_end = lookahead_.begin() + static_cast<std::ptrdiff_t>(held);
        std::copy(lookahead_.begin(), held_end, buffer);
        lookahead_.erase(lookahead_.begin(), held_end);
        const std::size_t got = held + (size > held ? source_.read_up_to(buffer + held, size - held) : 0);
        section_read_ += got;
        bytes_read_ += got;
        return got;
    }

    void read_exact(std::uint8_t* buffer, std::size_t size) {
        if (read_available(buffer, size) < size) {
            fail_truncated();
        }
    }

    // Reads `size` bytes into `buffer` (replacing its contents), growing it
    // as the bytes arrive: a length field cannot make the reader allocate
    // more than the file really holds, plus one chunk.
    void read_growing(std::vector<std::uint8_t>& buffer, std::uint64_t size) {
        constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
        buffer.clear();
        while (buffer.size() < size) {
            const std::size_t done = buffer.size();
            const std::size_t more = static_cast<std::size_t>(std::min(chunk, size - done));
            buffer.resize(done + more);
            read_exact(buffer.data() + done, more);
        }
    }

    // Like read_growing, for `size` bytes placed after the first `keep`
    // bytes of `buffer`.
    void read_growing_after(std::vector<std::uint8_t>& buffer, std::size_t keep, std::uint64_t size) {
        constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
        buffer.resize(keep);
        std::uint64_t done = 0;
        while (done < size) {
            const std::size_t more = static_cast<std::size_t>(std::min(chunk, size - done));
            buffer.resize(buffer.size() + more);
            read_exact(buffer.data() + buffer.size() - more, more);
            done += more;
        }
    }

    // Which entry of the block index a restart block has.
    std::size_t restart_point(std::uint64_t block) const {
        return preamble_.restart_blocks == 0 ? 0 : static_cast<std::size_t>((block - 1) / preamble_.restart_blocks);
    }

    [[noreturn]] void fail_truncated() const {
        const std::string expected = (section_size_is_final_ ? "" : "at least ") + size_text(section_size_);
        fail("truncated input: " + section_name_ + " ends after " + size_text(section_read_) + " of " + expected +
             " bytes");
    }

    ByteSource& source_;
    Preamble preamble_;
    CheckChain chain_;
    std::uint64_t header_size_ = 0;
    std::uint64_t blocks_read_ = 0;
    std::uint64_t records_read_ = 0;
    bool saw_partial_block_ = false;
    std::uint64_t bytes_read_ = 0;
    std::string section_name_;
    std::uint64_t section_size_ = 0;
    bool section_size_is_final_ = false;
    std::uint64_t section_read_ = 0;
    std::vector<std::uint8_t> fields_;
    std::vector<std::uint8_t> compressed_;
    std::vector<Backend> backends_;
    // The trailer at the end of a file of `size` bytes, if it verifies as
    // the trailer of this file: its block index.
    std::optional<std::vector<std::uint64_t>> index_at_end(std::uint64_t size) {
        using Layout = TczTrailerLayout;
        std::array<std::uint8_t, Layout::AfterIndex::size> end{};
        source_.seek(size - end.size());
        if (source_.read_up_to(end.data(), end.size()) != end.size()) {
            return std::nullopt;
        }
        const std::uint64_t start = Layout::AfterIndex::trailer_offset.load(end.data());
        if (start < 8 || start > size - Layout::fixed_bytes) {
            return std::nullopt;
        }
        const std::uint64_t length = size - start;
        std::array<std::uint8_t, Layout::tail + 8> fixed{};  // the seed, then the fixed fields
        source_.seek(start - 8);
        if (source_.read_up_to(fixed.data(), fixed.size()) != fixed.size()) {
            return std::nullopt;
        }
        const std::uint8_t* const fields = fixed.data() + 8;
        const std::uint64_t tail_size = Layout::tail_size.load(fields);
        const std::uint64_t restart_count = Layout::restart_count.load(fields);
        if (Layout::tag.load(fields) != tcz_end_tag || tail_size >= preamble_.record_bytes ||
            restart_count > length / Layout::restart_offset_bytes ||
            Layout::fixed_bytes + tail_size + restart_count * Layout::restart_offset_bytes != length) {
            return std::nullopt;
        }
        // The length is what the file really holds past `start`, so this
        // allocates no more than the file's size.
        std::vector<std::uint8_t> trailer(static_cast<std::size_t>(length));
        source_.seek(start);
        if (source_.read_up_to(trailer.data(), trailer.size()) != trailer.size()) {
            return std::nullopt;
        }
        const std::size_t check_offset = trailer.size() - Layout::AfterIndex::size + Layout::AfterIndex::check.offset;
        if (xxh64(trailer.data(), check_offset, load_le<std::uint64_t>(fixed.data())) !=
            load_le<std::uint64_t>(trailer.data() + check_offset)) {
            return std::nullopt;
        }
        std::vector<std::uint64_t> index(static_cast<std::size_t>(restart_count));
        const std::uint8_t* entry = trailer.data() + Layout::tail + tail_size;
        for (std::uint64_t& offset : index) {
            offset = load_le<std::uint64_t>(entry);
            entry += Layout::restart_offset_bytes;
        }
        return index;
    }

    struct ObservedRestart {
        std::uint64_t block;
        std::uint64_t offset;
    };
    // Where each restart block was found since the last resume, checked
    // against the trailer's index; and every one found in this .tcz.
    std::vector<ObservedRestart> observed_restarts_;
    std::vector<ObservedRestart> known_restarts_;
    std::uint64_t member_start_ = 0;
    std::uint64_t section_offset_ = 0;  // of the section being read, from member_start_

    // Bytes read past a trailer to see whether another .tcz follows.
    std::vector<std::uint8_t> lookahead_;
    bool member_follows_ = false;
};

}  // namespace tcgen_runtime
