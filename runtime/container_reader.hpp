#pragma once
// Reading the .tcz container sequentially: the preamble, the header section,
// each block (its streams decompressed and verified) and the trailer, then
// the next .tcz if several are concatenated. Random access through the
// block index is block_index.hpp's.
//
// Every length read from a file is checked against a limit derived from the
// preamble before anything is allocated, and every byte of the file is
// covered by the check chain, so that corruption, and sections of other
// files spliced in, give an Error, never a crash, a huge allocation or
// silently different output.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "byte_order.hpp"
#include "check_chain.hpp"
#include "checksum.hpp"
#include "container_layout.hpp"
#include "error.hpp"
#include "format_limits.hpp"
#include "io.hpp"

namespace tcgen_runtime {

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
    // Read with decompress_streams false: the streams' compressed bytes, one
    // after another, and the back-end of each (decompress_block_streams).
    std::vector<std::uint8_t> compressed;
    std::vector<Backend> backends;
};

inline std::string tcz_stream_label(std::uint64_t block_number, std::size_t stream,
                                    const std::string_view* stream_names) {
    const std::string name = stream_names != nullptr ? "'" + std::string(stream_names[stream]) + "'" : size_text(stream);
    return "stream " + name + " of " + block_name(block_number);
}

// Back-end-decompresses the streams of a block that read_next read with
// decompress_streams false, with the errors read_next would have given: for
// a thread other than the reader's (group_decoder.hpp).
inline void decompress_block_streams(BlockData& block, const std::string_view* stream_names) {
    std::size_t offset = 0;
    for (std::size_t stream = 0; stream < block.backends.size(); ++stream) {
        const std::size_t compressed_size = static_cast<std::size_t>(block.compressed_sizes[stream]);
        backend_decompress(block.backends[stream], block.compressed.data() + offset, compressed_size,
                           block.streams[stream], static_cast<std::size_t>(block.raw_sizes[stream]),
                           tcz_stream_label(block.number, stream, stream_names));
        offset += compressed_size;
    }
}

// Checks the records decoded from `block` against the check the file
// stores for them (ContainerReader::verify_records, for any thread).
inline void verify_block_records(const BlockData& block, const std::uint8_t* records, std::size_t record_bytes) {
    const std::size_t record_area = static_cast<std::size_t>(block.record_count) * record_bytes;
    if (xxh64(records, record_area, block.records_seed) != block.records_check) {
        fail("checksum mismatch in " + block_name(block.number));
    }
}

class ContainerReader {
public:
    explicit ContainerReader(ByteSource& source) : source_(source) {}

    // The most one record can add to each stream, as the codec reading the
    // file knows it (Codec::stream_bytes_per_record): a block whose stream
    // claims more than its records can hold is refused before anything is
    // allocated or decompressed for it. Without it only the format's general
    // limit (tcz_max_stream_bytes) applies.
    void limit_stream_bytes(const std::uint64_t* bytes_per_record, std::size_t stream_count) {
        stream_bytes_per_record_.assign(bytes_per_record, bytes_per_record + stream_count);
    }

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
        verify_block_records(block, records, preamble_.record_bytes);
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

protected:
    // What a reader with random access (IndexedContainerReader,
    // block_index.hpp) needs to move this one to a restart point.
    struct ObservedRestart {
        std::uint64_t block;
        std::uint64_t offset;
    };

    ByteSource& source() const { return source_; }
    const Preamble& preamble() const { return preamble_; }

    // Where the .tcz being read starts in the source.
    std::uint64_t member_start() const { return member_start_; }

    // The source's read position: past what was read and what is held to
    // see whether another .tcz follows.
    std::uint64_t source_position() const { return bytes_read_ + lookahead_.size(); }

    // Every restart block found in this .tcz so far, in order.
    const std::vector<ObservedRestart>& known_restarts() const { return known_restarts_; }

    // Goes on at block `block`, whose section starts `offset` bytes into
    // this .tcz (the source is there), as if the blocks before it had been
    // read: the chain goes on from `seed`, the check stored just before it.
    void continue_at_block(std::uint64_t block, std::uint64_t offset, std::uint64_t seed) {
        lookahead_.clear();
        member_follows_ = false;
        chain_.advance(seed);
        bytes_read_ = member_start_ + offset;
        blocks_read_ = block - 1;
        records_read_ = (block - 1) * preamble_.records_per_block;
        header_size_ = preamble_.header_bytes;
        saw_partial_block_ = false;
        observed_restarts_.clear();
    }

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
            if (stream < stream_bytes_per_record_.size() &&
                raw_sizes[stream] > record_count * stream_bytes_per_record_[stream]) {
                fail("corrupt input: " + stream_label(number, stream, stream_names) + " claims " +
                     size_text(raw_sizes[stream]) + " bytes, more than its " + size_text(record_count) +
                     " records can hold (" + size_text(record_count * stream_bytes_per_record_[stream]) + ")");
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
        if (!decompress_streams) {
            block.compressed.swap(compressed_);
            block.backends = backends_;
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
        return tcz_stream_label(block_number, stream, stream_names);
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
    std::vector<std::uint64_t> stream_bytes_per_record_;  // empty: no codec's limits
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
