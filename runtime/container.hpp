#pragma once
// Reading and writing the .tcz container. docs/format.md describes every byte;
// keep the two in step. This layer knows sections, lengths and checksums but
// nothing of predictors: the driver hands it finished streams to compress and
// gets decompressed, verified streams back.
//
// Every length read from a file is checked against a limit derived from the
// preamble before anything is allocated, and every byte of the file is
// covered by a CRC-32, so corruption gives an Error, never a crash, a huge
// allocation or silently different output.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "byte_order.hpp"
#include "bzip2_codec.hpp"
#include "checksum.hpp"
#include "error.hpp"
#include "io.hpp"
#include "streams.hpp"

namespace tcgen_runtime {

// Like PNG's signature: a high-bit byte catches 7-bit transfers, CR LF and the
// lone LF catch line-ending conversion, 0x1A stops `type` on DOS.
inline constexpr std::array<std::uint8_t, 8> tcz_magic = {0x89, 'T', 'C', 'Z', 0x0D, 0x0A, 0x1A, 0x0A};
inline constexpr std::uint16_t tcz_format_version = 1;

constexpr std::uint32_t make_tag(char first, char second, char third, char fourth) {
    return static_cast<std::uint32_t>(static_cast<std::uint8_t>(first)) |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(second)) << 8 |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(third)) << 16 |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(fourth)) << 24;
}

inline constexpr std::uint32_t tcz_header_tag = make_tag('T', 'C', 'Z', 'H');
inline constexpr std::uint32_t tcz_block_tag = make_tag('T', 'C', 'Z', 'B');
inline constexpr std::uint32_t tcz_end_tag = make_tag('T', 'C', 'Z', 'E');

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

inline constexpr std::size_t tcz_preamble_fixed_bytes = 44;
// Sizes of the sections without their variable-length parts.
inline constexpr std::size_t tcz_header_section_fixed_bytes = 32;
inline constexpr std::size_t tcz_trailer_fixed_bytes = 28;

// The preamble: what a file says about the codec that wrote it.
struct Preamble {
    std::uint64_t fingerprint = 0;
    std::string spec_text;
    std::uint32_t record_bytes = 0;
    std::uint32_t header_bytes = 0;
    std::uint32_t stream_count = 0;
    std::uint64_t records_per_block = 0;
};

struct Trailer {
    std::uint64_t total_records = 0;
    std::uint64_t total_bytes = 0;
    std::vector<std::uint8_t> tail;
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

inline std::string hex64(std::uint64_t value) {
    char text[19];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
    return text;
}

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
// would write. A different spec is reported with the file's own spec.
inline void check_preamble_matches(const Preamble& found, const Preamble& expected) {
    if (found.fingerprint != expected.fingerprint || found.spec_text != expected.spec_text) {
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

class ContainerWriter {
public:
    explicit ContainerWriter(ByteSink& sink) : sink_(sink) {}

    void write_preamble(const Preamble& preamble) {
        check_preamble_limits(preamble, "internal error: ");
        preamble_ = preamble;
        section_.clear();
        section_.put_bytes(tcz_magic.data(), tcz_magic.size());
        section_.put<std::uint16_t>(tcz_format_version);
        section_.put<std::uint16_t>(0);
        section_.put<std::uint64_t>(preamble.fingerprint);
        section_.put<std::uint32_t>(preamble.record_bytes);
        section_.put<std::uint32_t>(preamble.header_bytes);
        section_.put<std::uint32_t>(preamble.stream_count);
        section_.put<std::uint64_t>(preamble.records_per_block);
        section_.put<std::uint32_t>(static_cast<std::uint32_t>(preamble.spec_text.size()));
        section_.put_bytes(reinterpret_cast<const std::uint8_t*>(preamble.spec_text.data()), preamble.spec_text.size());
        section_.put<std::uint32_t>(crc32(section_.data(), section_.size()));
        emit(section_.data(), section_.size());
    }

    // The trace header: the first header_bytes bytes of the input, or all of
    // the input if it is shorter.
    void write_header(const std::uint8_t* header, std::size_t size) {
        if (size > preamble_.header_bytes) {
            fail("internal error: header of " + size_text(size) + " bytes, the spec says " +
                 size_text(preamble_.header_bytes));
        }
        bz2_compress(header, size, compressed_[0]);
        section_.clear();
        section_.put<std::uint32_t>(tcz_header_tag);
        section_.put<std::uint64_t>(size);
        section_.put<std::uint64_t>(compressed_[0].size());
        section_.put<std::uint32_t>(crc32(section_.data(), section_.size()));
        emit(section_.data(), section_.size());
        emit(compressed_[0].data(), compressed_[0].size());
        section_.clear();
        section_.put<std::uint32_t>(crc32(compressed_[0].data(), compressed_[0].size()));
        section_.put<std::uint32_t>(crc32(header, size));
        emit(section_.data(), section_.size());
    }

    // streams[0..stream_count) hold what the codec wrote for record_count
    // records whose original bytes have CRC-32 records_crc.
    void write_block(std::uint64_t record_count, const StreamWriter* streams, std::uint32_t records_crc) {
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
        section_.clear();
        section_.put<std::uint32_t>(tcz_block_tag);
        section_.put<std::uint64_t>(record_count);
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            bz2_compress(streams[stream].data(), streams[stream].size(), compressed_[stream]);
            section_.put<std::uint64_t>(streams[stream].size());
            section_.put<std::uint64_t>(compressed_[stream].size());
        }
        section_.put<std::uint32_t>(crc32(section_.data(), section_.size()));
        emit(section_.data(), section_.size());
        std::uint32_t payload_crc = 0;
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            emit(compressed_[stream].data(), compressed_[stream].size());
            payload_crc = crc32(compressed_[stream].data(), compressed_[stream].size(), payload_crc);
        }
        section_.clear();
        section_.put<std::uint32_t>(payload_crc);
        section_.put<std::uint32_t>(records_crc);
        emit(section_.data(), section_.size());
    }

    void write_trailer(std::uint64_t total_records, std::uint64_t total_bytes, const std::uint8_t* tail,
                       std::size_t tail_size) {
        if (tail_size >= preamble_.record_bytes) {
            fail("internal error: tail of " + size_text(tail_size) + " bytes is a whole record");
        }
        section_.clear();
        section_.put<std::uint32_t>(tcz_end_tag);
        section_.put<std::uint64_t>(total_records);
        section_.put<std::uint64_t>(total_bytes);
        section_.put<std::uint32_t>(static_cast<std::uint32_t>(tail_size));
        section_.put_bytes(tail, tail_size);
        section_.put<std::uint32_t>(crc32(section_.data(), section_.size()));
        emit(section_.data(), section_.size());
    }

    std::uint64_t bytes_written() const { return bytes_written_; }

private:
    void emit(const std::uint8_t* data, std::size_t size) {
        sink_.write(data, size);
        bytes_written_ += size;
    }

    ByteSink& sink_;
    Preamble preamble_;
    StreamWriter section_;
    std::vector<std::vector<std::uint8_t>> compressed_ = std::vector<std::vector<std::uint8_t>>(1);
    std::uint64_t bytes_written_ = 0;
};

// One block as read back: record count, each stream decompressed, and the
// CRC-32 its original records must have. Reused from block to block.
struct BlockData {
    std::uint64_t number = 0;
    std::uint64_t record_count = 0;
    std::vector<std::vector<std::uint8_t>> streams;
    std::uint32_t records_crc = 0;
};

class ContainerReader {
public:
    explicit ContainerReader(ByteSource& source) : source_(source) {}

    // Reads and checks the preamble: magic, version, limits, CRC.
    Preamble read_preamble() {
        begin_section("preamble", tcz_preamble_fixed_bytes);
        std::array<std::uint8_t, tcz_magic.size()> magic{};
        const std::size_t magic_size = read_available(magic.data(), magic.size());
        check_magic(magic.data(), magic_size);
        std::vector<std::uint8_t> bytes(tcz_preamble_fixed_bytes);
        std::copy(magic.begin(), magic.end(), bytes.begin());
        read_exact(bytes.data() + magic.size(), 2);
        const std::uint16_t version = load_le<std::uint16_t>(bytes.data() + 8);
        if (version != tcz_format_version) {
            fail("unsupported .tcz format version " + size_text(version) + " (this program reads version " +
                 size_text(tcz_format_version) + ")");
        }
        read_exact(bytes.data() + 10, tcz_preamble_fixed_bytes - 10);
        const std::uint16_t flags = load_le<std::uint16_t>(bytes.data() + 10);
        Preamble preamble;
        preamble.fingerprint = load_le<std::uint64_t>(bytes.data() + 12);
        preamble.record_bytes = load_le<std::uint32_t>(bytes.data() + 20);
        preamble.header_bytes = load_le<std::uint32_t>(bytes.data() + 24);
        preamble.stream_count = load_le<std::uint32_t>(bytes.data() + 28);
        preamble.records_per_block = load_le<std::uint64_t>(bytes.data() + 32);
        const std::uint32_t spec_size = load_le<std::uint32_t>(bytes.data() + 40);
        if (spec_size > tcz_max_spec_bytes) {
            fail("corrupt input: preamble gives a spec of " + size_text(spec_size) + " bytes (limit " +
                 size_text(tcz_max_spec_bytes) + ")");
        }
        extend_section(spec_size + std::size_t{4});
        bytes.resize(tcz_preamble_fixed_bytes + spec_size + 4);
        read_exact(bytes.data() + tcz_preamble_fixed_bytes, spec_size + std::size_t{4});
        const std::size_t crc_offset = tcz_preamble_fixed_bytes + spec_size;
        if (crc32(bytes.data(), crc_offset) != load_le<std::uint32_t>(bytes.data() + crc_offset)) {
            fail("checksum mismatch in preamble");
        }
        if (flags != 0) {
            fail("unsupported .tcz features (flags " + hex32(flags) + ")");
        }
        preamble.spec_text.assign(reinterpret_cast<const char*>(bytes.data() + tcz_preamble_fixed_bytes), spec_size);
        check_preamble_limits(preamble, "corrupt input: ");
        preamble_ = preamble;
        return preamble;
    }

    // Reads the header section into `header` (resized), verified.
    void read_header(std::vector<std::uint8_t>& header) {
        begin_section("header section", tcz_header_section_fixed_bytes);
        std::array<std::uint8_t, 24> fields{};
        read_exact(fields.data(), 4);
        if (load_le<std::uint32_t>(fields.data()) != tcz_header_tag) {
            fail("corrupt input: header section tag missing");
        }
        read_exact(fields.data() + 4, 20);
        if (crc32(fields.data(), 20) != load_le<std::uint32_t>(fields.data() + 20)) {
            fail("checksum mismatch in header section");
        }
        const std::uint64_t raw_size = load_le<std::uint64_t>(fields.data() + 4);
        const std::uint64_t compressed_size = load_le<std::uint64_t>(fields.data() + 12);
        if (raw_size > preamble_.header_bytes) {
            fail("corrupt input: header section holds " + size_text(raw_size) + " bytes, more than the " +
                 size_text(preamble_.header_bytes) + "-byte header");
        }
        check_compressed_size(raw_size, compressed_size, "header");
        header_size_ = raw_size;
        extend_section(compressed_size);
        compressed_.resize(static_cast<std::size_t>(compressed_size));
        read_exact(compressed_.data(), compressed_.size());
        std::array<std::uint8_t, 8> checks{};
        read_exact(checks.data(), checks.size());
        if (crc32(compressed_.data(), compressed_.size()) != load_le<std::uint32_t>(checks.data())) {
            fail("checksum mismatch in header section (compressed data)");
        }
        header.resize(static_cast<std::size_t>(raw_size));
        bz2_decompress(compressed_.data(), compressed_.size(), header.data(), header.size(), "header");
        if (crc32(header.data(), header.size()) != load_le<std::uint32_t>(checks.data() + 4)) {
            fail("checksum mismatch in header");
        }
    }

    // Reads the next section. Returns true with `block` filled (streams
    // decompressed; records not yet verified, the caller checks records_crc
    // after decoding) or false once the trailer was read into `trailer` and
    // checked, including that nothing follows it.
    bool read_next(BlockData& block, Trailer& trailer, const std::string_view* stream_names = nullptr) {
        const std::uint64_t next_number = blocks_read_ + 1;
        begin_section("section after " + (blocks_read_ == 0 ? std::string("the header") : block_name(blocks_read_)), 4,
                      true);
        std::array<std::uint8_t, 4> tag_bytes{};
        const std::size_t tag_size = read_available(tag_bytes.data(), tag_bytes.size());
        if (tag_size == 0) {
            fail("truncated input: the file ends after " +
                 (blocks_read_ == 0 ? std::string("the header") : block_name(blocks_read_)) + " without a trailer");
        }
        if (tag_size < tag_bytes.size()) {
            fail_truncated();
        }
        const std::uint32_t tag = load_le<std::uint32_t>(tag_bytes.data());
        if (tag == tcz_block_tag) {
            read_block(next_number, tag_bytes, block, stream_names);
            return true;
        }
        if (tag == tcz_end_tag) {
            read_trailer(tag_bytes, trailer);
            return false;
        }
        fail("corrupt input: unknown section tag " + hex32(tag) + " after " +
             (blocks_read_ == 0 ? std::string("the header") : block_name(blocks_read_)));
    }

    std::uint64_t bytes_read() const { return bytes_read_; }

private:
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

    void read_block(std::uint64_t number, const std::array<std::uint8_t, 4>& tag_bytes, BlockData& block,
                    const std::string_view* stream_names) {
        const std::size_t stream_count = preamble_.stream_count;
        const std::size_t header_size = 4 + 8 + 16 * stream_count + 4;
        begin_section(block_name(number), header_size);
        section_read_ = 4;
        fields_.resize(header_size);
        std::copy(tag_bytes.begin(), tag_bytes.end(), fields_.begin());
        read_exact(fields_.data() + 4, header_size - 4);
        const std::size_t crc_offset = header_size - 4;
        if (crc32(fields_.data(), crc_offset) != load_le<std::uint32_t>(fields_.data() + crc_offset)) {
            fail("checksum mismatch in " + block_name(number) + " (section header)");
        }
        if (header_size_ < preamble_.header_bytes) {
            fail("corrupt input: " + block_name(number) + " follows a partial header");
        }
        if (saw_partial_block_) {
            fail("corrupt input: " + block_name(number) + " follows a partial block");
        }
        const std::uint64_t record_count = load_le<std::uint64_t>(fields_.data() + 4);
        if (record_count == 0 || record_count > preamble_.records_per_block) {
            fail("corrupt input: " + block_name(number) + " has " + size_text(record_count) + " records (limit " +
                 size_text(preamble_.records_per_block) + ")");
        }
        block.number = number;
        block.record_count = record_count;
        if (block.streams.size() != stream_count) {
            block.streams.resize(stream_count);
        }
        raw_sizes_.resize(stream_count);
        compressed_sizes_.resize(stream_count);
        std::uint64_t raw_total = 0;
        std::uint64_t compressed_total = 0;
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            raw_sizes_[stream] = load_le<std::uint64_t>(fields_.data() + 12 + 16 * stream);
            compressed_sizes_[stream] = load_le<std::uint64_t>(fields_.data() + 20 + 16 * stream);
            if (raw_sizes_[stream] > tcz_max_stream_bytes(record_count, preamble_.record_bytes)) {
                fail("corrupt input: " + stream_label(number, stream, stream_names) + " is too long");
            }
            check_compressed_size(raw_sizes_[stream], compressed_sizes_[stream],
                                  stream_label(number, stream, stream_names));
            raw_total += raw_sizes_[stream];
            compressed_total += compressed_sizes_[stream];
        }
        if (raw_total > tcz_max_stream_bytes(record_count, preamble_.record_bytes)) {
            fail("corrupt input: the streams of " + block_name(number) + " are too long for " +
                 size_text(record_count) + " records");
        }
        extend_section(compressed_total + 8);
        compressed_.resize(static_cast<std::size_t>(compressed_total));
        read_exact(compressed_.data(), compressed_.size());
        std::array<std::uint8_t, 8> checks{};
        read_exact(checks.data(), checks.size());
        if (crc32(compressed_.data(), compressed_.size()) != load_le<std::uint32_t>(checks.data())) {
            fail("checksum mismatch in " + block_name(number) + " (compressed data)");
        }
        block.records_crc = load_le<std::uint32_t>(checks.data() + 4);
        std::size_t offset = 0;
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            std::vector<std::uint8_t>& raw = block.streams[stream];
            raw.resize(static_cast<std::size_t>(raw_sizes_[stream]));
            const std::size_t compressed_size = static_cast<std::size_t>(compressed_sizes_[stream]);
            bz2_decompress(compressed_.data() + offset, compressed_size, raw.data(), raw.size(),
                           stream_label(number, stream, stream_names));
            offset += compressed_size;
        }
        if (record_count < preamble_.records_per_block) {
            saw_partial_block_ = true;
        }
        blocks_read_ = number;
        records_read_ += record_count;
    }

    void read_trailer(const std::array<std::uint8_t, 4>& tag_bytes, Trailer& trailer) {
        begin_section("trailer", tcz_trailer_fixed_bytes);
        section_read_ = 4;
        fields_.resize(tcz_trailer_fixed_bytes - 4);
        std::copy(tag_bytes.begin(), tag_bytes.end(), fields_.begin());
        read_exact(fields_.data() + 4, tcz_trailer_fixed_bytes - 8);
        const std::uint32_t tail_size = load_le<std::uint32_t>(fields_.data() + 20);
        if (tail_size >= preamble_.record_bytes) {
            fail("corrupt input: trailer gives a " + size_text(tail_size) + "-byte partial record, records are " +
                 size_text(preamble_.record_bytes) + " bytes");
        }
        extend_section(tail_size);
        fields_.resize(tcz_trailer_fixed_bytes + tail_size);
        read_exact(fields_.data() + tcz_trailer_fixed_bytes - 4, tail_size + std::size_t{4});
        const std::size_t crc_offset = tcz_trailer_fixed_bytes - 4 + tail_size;
        if (crc32(fields_.data(), crc_offset) != load_le<std::uint32_t>(fields_.data() + crc_offset)) {
            fail("checksum mismatch in trailer");
        }
        trailer.total_records = load_le<std::uint64_t>(fields_.data() + 4);
        trailer.total_bytes = load_le<std::uint64_t>(fields_.data() + 12);
        trailer.tail.assign(fields_.data() + 24, fields_.data() + 24 + tail_size);
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
        std::uint8_t extra = 0;
        if (source_.read_up_to(&extra, 1) != 0) {
            fail("trailing garbage after the trailer");
        }
    }

    void check_compressed_size(std::uint64_t raw_size, std::uint64_t compressed_size, const std::string& what) {
        if ((raw_size == 0) != (compressed_size == 0)) {
            fail("corrupt input: " + what + " has " + size_text(raw_size) + " bytes stored in " +
                 size_text(compressed_size));
        }
        if (compressed_size > bz2_compress_bound(raw_size)) {
            fail("corrupt input: " + what + " has " + size_text(compressed_size) + " compressed bytes for " +
                 size_text(raw_size));
        }
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
        const std::size_t got = source_.read_up_to(buffer, size);
        section_read_ += got;
        bytes_read_ += got;
        return got;
    }

    void read_exact(std::uint8_t* buffer, std::size_t size) {
        if (read_available(buffer, size) < size) {
            fail_truncated();
        }
    }

    [[noreturn]] void fail_truncated() const {
        const std::string expected = (section_size_is_final_ ? "" : "at least ") + size_text(section_size_);
        fail("truncated input: " + section_name_ + " ends after " + size_text(section_read_) + " of " + expected +
             " bytes");
    }

    ByteSource& source_;
    Preamble preamble_;
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
    std::vector<std::uint64_t> raw_sizes_;
    std::vector<std::uint64_t> compressed_sizes_;
};

}  // namespace tcgen_runtime
