#pragma once
// Whole .tcz files written and read back in memory by the container's own
// tests (container_layout_test, check_chain_test, container_writer_test,
// container_reader_test, block_index_test): known contents, the file
// ContainerWriter makes of them, what ContainerReader reads back, and ways
// to damage a file and reseal its checks.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/container_layout.hpp"
#include "runtime/container_reader.hpp"
#include "runtime/container_writer.hpp"
#include "tests/runtime/tcz_sections.hpp"

namespace tcgen_runtime {

using Bytes = std::vector<std::uint8_t>;
using PreambleLayout = TczPreambleLayout;
using HeaderLayout = TczHeaderSectionLayout;
using BlockLayout = TczBlockLayout;
using TrailerLayout = TczTrailerLayout;

inline constexpr std::string_view test_stream_names[] = {"codes", "values"};

inline Bytes text_bytes(std::string_view text) {
    return Bytes(text.begin(), text.end());
}

// Bytes that bzip2 squeezes a little, different for every seed.
inline Bytes pattern_bytes(std::size_t size, std::uint8_t seed) {
    Bytes bytes(size);
    for (std::size_t index = 0; index < size; ++index) {
        bytes[index] = static_cast<std::uint8_t>(seed + index % 7);
    }
    return bytes;
}

inline Preamble test_preamble() {
    Preamble preamble;
    preamble.fingerprint = 0x0123456789ABCDEFu;
    preamble.spec_text = "TCgen Trace Specification;\n32-Bit Header;\n";
    preamble.record_bytes = 6;
    preamble.header_bytes = 4;
    preamble.stream_count = 2;
    preamble.records_per_block = 3;
    preamble.restart_blocks = 2;
    return preamble;
}

// A block as the writer is given it: its records are test_records(number,
// record_count), so the reader can check them without decoding the streams.
struct TestBlock {
    std::uint64_t record_count = 0;
    std::vector<Bytes> streams;
};

inline Bytes test_records(std::uint64_t block_number, std::uint64_t record_count, std::uint32_t record_bytes) {
    return pattern_bytes(static_cast<std::size_t>(record_count * record_bytes),
                         static_cast<std::uint8_t>(0x40 + block_number));
}

// Everything a file holds: what the writer is given and the reader returns.
struct Contents {
    Preamble preamble = test_preamble();
    Bytes header;
    std::vector<TestBlock> blocks;
    std::uint64_t total_records = 0;
    std::uint64_t total_bytes = 0;
    Bytes tail;
};

// Sets the trailer's totals to what the rest of `contents` adds up to.
inline Contents with_totals(Contents contents) {
    contents.total_records = 0;
    for (const TestBlock& block : contents.blocks) {
        contents.total_records += block.record_count;
    }
    contents.total_bytes =
        contents.header.size() + contents.total_records * contents.preamble.record_bytes + contents.tail.size();
    return contents;
}

// A whole header, two full blocks (the second with an empty stream), a
// partial block and a tail.
inline Contents typical_contents() {
    Contents contents;
    contents.header = text_bytes("HDR1");
    contents.blocks.push_back({3, {pattern_bytes(30, 1), pattern_bytes(12, 2)}});
    contents.blocks.push_back({3, {pattern_bytes(25, 3), Bytes()}});
    contents.blocks.push_back({2, {pattern_bytes(9, 4), pattern_bytes(40, 5)}});
    contents.tail = text_bytes("tail!");
    return with_totals(contents);
}

inline Bytes write_file(const Contents& contents, Backend backend = default_backend) {
    MemorySink sink;
    ContainerWriter writer(sink, backend);
    writer.write_preamble(contents.preamble);
    writer.write_header(contents.header.data(), contents.header.size());
    for (std::size_t index = 0; index < contents.blocks.size(); ++index) {
        const TestBlock& block = contents.blocks[index];
        std::vector<StreamWriter> streams(block.streams.size());
        for (std::size_t stream = 0; stream < streams.size(); ++stream) {
            streams[stream].put_bytes(block.streams[stream].data(), block.streams[stream].size());
        }
        const Bytes records = test_records(index + 1, block.record_count, contents.preamble.record_bytes);
        writer.write_block(records.data(), block.record_count, streams.data());
    }
    writer.write_trailer(contents.total_records, contents.total_bytes, contents.tail.data(), contents.tail.size());
    EXPECT_EQ(writer.bytes_written(), sink.bytes().size());
    return sink.bytes();
}

// With `stream_limits`, the reader holds each stream to that many bytes per
// record, as a codec's stream_bytes_per_record makes it.
inline Contents read_file(const Bytes& file, const std::string_view* stream_names = nullptr,
                          const std::vector<std::uint64_t>& stream_limits = {}) {
    MemorySource source(file);
    ContainerReader reader(source);
    if (!stream_limits.empty()) {
        reader.limit_stream_bytes(stream_limits.data(), stream_limits.size());
    }
    Contents contents;
    contents.preamble = reader.read_preamble();
    reader.read_header(contents.header);
    BlockData block;
    Trailer trailer;
    while (reader.read_next(block, trailer, stream_names)) {
        EXPECT_EQ(block.number, contents.blocks.size() + 1);
        reader.verify_records(block, test_records(block.number, block.record_count, contents.preamble.record_bytes).data());
        contents.blocks.push_back({block.record_count, block.streams});
    }
    contents.total_records = trailer.total_records;
    contents.total_bytes = trailer.total_bytes;
    contents.tail = trailer.tail;
    // Only a whole .tcz may follow (concatenation); read it too, so that an
    // error in it is found, but return the first.
    const std::uint64_t first_bytes = reader.bytes_read();
    while (reader.next_member()) {
        reader.read_preamble();
        Bytes header;
        reader.read_header(header);
        while (reader.read_next(block, trailer, stream_names)) {
        }
    }
    EXPECT_EQ(reader.bytes_read(), file.size());
    EXPECT_TRUE(first_bytes == file.size() || first_bytes < file.size());
    return contents;
}

inline std::string read_error(const Bytes& file, const std::string_view* stream_names = nullptr,
                              const std::vector<std::uint64_t>& stream_limits = {}) {
    try {
        read_file(file, stream_names, stream_limits);
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

inline void expect_same_contents(const Contents& found, const Contents& expected) {
    EXPECT_EQ(found.preamble.fingerprint, expected.preamble.fingerprint);
    EXPECT_EQ(found.preamble.spec_text, expected.preamble.spec_text);
    EXPECT_EQ(found.preamble.record_bytes, expected.preamble.record_bytes);
    EXPECT_EQ(found.preamble.header_bytes, expected.preamble.header_bytes);
    EXPECT_EQ(found.preamble.stream_count, expected.preamble.stream_count);
    EXPECT_EQ(found.preamble.records_per_block, expected.preamble.records_per_block);
    EXPECT_EQ(found.header, expected.header);
    ASSERT_EQ(found.blocks.size(), expected.blocks.size());
    for (std::size_t index = 0; index < found.blocks.size(); ++index) {
        EXPECT_EQ(found.blocks[index].record_count, expected.blocks[index].record_count) << "block " << index + 1;
        EXPECT_EQ(found.blocks[index].streams, expected.blocks[index].streams) << "block " << index + 1;
    }
    EXPECT_EQ(found.total_records, expected.total_records);
    EXPECT_EQ(found.total_bytes, expected.total_bytes);
    EXPECT_EQ(found.tail, expected.tail);
}

using Sections = TczSections;

// What the writer stores for `data` with the default back-end.
inline Bytes compressed(const Bytes& data) {
    Bytes out;
    backend_compress(default_backend, data.data(), data.size(), out);
    return out;
}

inline Bytes cut(const Bytes& file, std::size_t size) {
    return Bytes(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(size));
}

inline Bytes flip(Bytes file, std::size_t position) {
    file[position] ^= 1;
    return file;
}

// The seed of the first check of the section at `section`: the last check of
// the section before, which every section ends with (0 for the preamble).
inline std::uint64_t chain_seed(const Bytes& file, std::size_t section) {
    return section == 0 ? 0 : load_le<std::uint64_t>(file.data() + section - 8);
}

// Recomputes the check at `check_offset` of the section at `section`, which
// covers every byte of the section before it, so that a test can change a
// field and reach the checks behind the checksum. (The chain after it breaks.)
inline void reseal(Bytes& file, std::size_t section, std::size_t check_offset) {
    store_le<std::uint64_t>(file.data() + section + check_offset,
                            xxh64(file.data() + section, check_offset, chain_seed(file, section)));
}

inline void reseal_preamble(Bytes& file) {
    reseal(file, 0, PreambleLayout::spec_text + PreambleLayout::spec_size.load(file.data()));
}

}  // namespace tcgen_runtime
