// The .tcz writer (runtime/container_writer.hpp): every field where the layout
// puts it, and what the format cannot hold refused.

#include "runtime/container_writer.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/container_files.hpp"

namespace tcgen_runtime {
namespace {

TEST(ContainerLayout, WriterPutsEveryFieldAtItsOffset) {
    const Contents contents = typical_contents();
    const Bytes file = write_file(contents);
    const Sections sections = find_sections(file);
    const std::uint8_t* const bytes = file.data();

    const std::size_t spec_size = contents.preamble.spec_text.size();
    EXPECT_EQ(Bytes(bytes, bytes + PreambleLayout::magic.size),
              Bytes({0x89, 'T', 'C', 'Z', 0x0D, 0x0A, 0x1A, 0x0A}));
    EXPECT_EQ(PreambleLayout::version.load(bytes), 11u);
    EXPECT_EQ(PreambleLayout::flags.load(bytes), 0u);
    EXPECT_EQ(PreambleLayout::fingerprint.load(bytes), 0x0123456789ABCDEFu);
    EXPECT_EQ(PreambleLayout::record_bytes.load(bytes), 6u);
    EXPECT_EQ(PreambleLayout::header_bytes.load(bytes), 4u);
    EXPECT_EQ(PreambleLayout::stream_count.load(bytes), 2u);
    EXPECT_EQ(PreambleLayout::records_per_block.load(bytes), 3u);
    EXPECT_EQ(PreambleLayout::restart_blocks.load(bytes), 2u);
    EXPECT_EQ(PreambleLayout::spec_size.load(bytes), spec_size);
    EXPECT_EQ(std::string(bytes + PreambleLayout::spec_text, bytes + PreambleLayout::spec_text + spec_size),
              contents.preamble.spec_text);
    const std::size_t spec_end = PreambleLayout::spec_text + spec_size;
    // Every check is seeded with the one before it.
    std::uint64_t chain = xxh64(bytes, spec_end, 0);
    EXPECT_EQ(PreambleLayout::AfterSpec::check.load(bytes + spec_end), chain);
    EXPECT_EQ(sections.header_section, spec_end + PreambleLayout::AfterSpec::size);

    const std::uint8_t* const header = bytes + sections.header_section;
    const Bytes header_data = compressed(contents.header);
    EXPECT_EQ(Bytes(header, header + 4), text_bytes("TCZH"));
    EXPECT_EQ(HeaderLayout::tag.load(header), tcz_header_tag);
    EXPECT_EQ(HeaderLayout::raw_size.load(header), 4u);
    EXPECT_EQ(HeaderLayout::compressed_size.load(header), header_data.size());
    EXPECT_EQ(HeaderLayout::backend.load(header), 2u);
    chain = xxh64(header, HeaderLayout::fields_check.offset, chain);
    EXPECT_EQ(HeaderLayout::fields_check.load(header), chain);
    EXPECT_EQ(Bytes(header + HeaderLayout::data, header + HeaderLayout::data + header_data.size()), header_data);
    const std::uint8_t* const after_header_data = header + HeaderLayout::data + header_data.size();
    chain = xxh64(header_data.data(), header_data.size(), chain);
    EXPECT_EQ(HeaderLayout::AfterData::data_check.load(after_header_data), chain);
    chain = xxh64(contents.header.data(), contents.header.size(), chain);
    EXPECT_EQ(HeaderLayout::AfterData::header_check.load(after_header_data), chain);

    ASSERT_EQ(sections.blocks.size(), contents.blocks.size());
    std::size_t next_section = sections.header_section + HeaderLayout::fixed_bytes + header_data.size();
    for (std::size_t index = 0; index < contents.blocks.size(); ++index) {
        const TestBlock& written = contents.blocks[index];
        EXPECT_EQ(sections.blocks[index], next_section) << "block " << index + 1;
        const std::uint8_t* const block = bytes + sections.blocks[index];
        EXPECT_EQ(Bytes(block, block + 4), text_bytes("TCZB"));
        EXPECT_EQ(BlockLayout::tag.load(block), tcz_block_tag);
        EXPECT_EQ(BlockLayout::record_count.load(block), written.record_count);
        Bytes data;
        for (std::size_t stream = 0; stream < 2; ++stream) {
            const Bytes stream_data = compressed(written.streams[stream]);
            EXPECT_EQ(BlockLayout::raw_size(stream).load(block), written.streams[stream].size());
            EXPECT_EQ(BlockLayout::compressed_size(stream).load(block), stream_data.size());
            EXPECT_EQ(BlockLayout::backend(stream).load(block), 2u);
            data.insert(data.end(), stream_data.begin(), stream_data.end());
        }
        const TczField<std::uint64_t> fields_check = BlockLayout::fields_check(2);
        chain = xxh64(block, fields_check.offset, chain);
        EXPECT_EQ(fields_check.load(block), chain);
        EXPECT_EQ(Bytes(block + BlockLayout::data(2), block + BlockLayout::data(2) + data.size()), data);
        const std::uint8_t* const after_data = block + BlockLayout::data(2) + data.size();
        chain = xxh64(data.data(), data.size(), chain);
        EXPECT_EQ(BlockLayout::AfterData::data_check.load(after_data), chain);
        const Bytes records = test_records(index + 1, written.record_count, 6);
        chain = xxh64(records.data(), records.size(), chain);
        EXPECT_EQ(BlockLayout::AfterData::records_check.load(after_data), chain);
        next_section = sections.blocks[index] + BlockLayout::data(2) + data.size() + BlockLayout::AfterData::size;
    }

    EXPECT_EQ(sections.trailer, next_section);
    const std::uint8_t* const trailer = bytes + sections.trailer;
    EXPECT_EQ(Bytes(trailer, trailer + 4), text_bytes("TCZE"));
    EXPECT_EQ(TrailerLayout::tag.load(trailer), tcz_end_tag);
    EXPECT_EQ(TrailerLayout::total_records.load(trailer), 8u);
    EXPECT_EQ(TrailerLayout::total_bytes.load(trailer), 4u + 8u * 6u + 5u);
    EXPECT_EQ(TrailerLayout::tail_size.load(trailer), 5u);
    EXPECT_EQ(Bytes(trailer + TrailerLayout::tail, trailer + TrailerLayout::tail + 5), text_bytes("tail!"));
    // Restarts every 2 blocks: blocks 1 and 3 are in the index.
    EXPECT_EQ(TrailerLayout::restart_count.load(trailer), 2u);
    const std::size_t tail_end = TrailerLayout::tail + 5;
    EXPECT_EQ(load_le<std::uint64_t>(trailer + tail_end), sections.blocks[0]);
    EXPECT_EQ(load_le<std::uint64_t>(trailer + tail_end + 8), sections.blocks[2]);
    const std::size_t index_end = tail_end + 16;
    EXPECT_EQ(TrailerLayout::AfterIndex::trailer_offset.load(trailer + index_end), sections.trailer);
    EXPECT_EQ(TrailerLayout::AfterIndex::check.load(trailer + index_end), xxh64(trailer, index_end + 8, chain));
    EXPECT_EQ(sections.trailer + index_end + TrailerLayout::AfterIndex::size, file.size());
}

// One row of a layout table: a field's name in the code, its offset from the
// start of its section and its size, for given lengths of the variable parts.
TEST(ContainerErrors, WriterRefusesWhatTheFormatCannotHold) {
    auto writer_error = [](auto write) {
        MemorySink sink;
        ContainerWriter writer(sink);
        try {
            write(writer);
        } catch (const Error& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    Preamble bad_preamble = test_preamble();
    bad_preamble.record_bytes = 0;
    EXPECT_EQ(writer_error([&](ContainerWriter& writer) { writer.write_preamble(bad_preamble); }),
              "internal error: record size 0 is not in 1..1048576");
    const Bytes five = text_bytes("12345");
    EXPECT_EQ(writer_error([&](ContainerWriter& writer) {
                  writer.write_preamble(test_preamble());
                  writer.write_header(five.data(), five.size());
              }),
              "internal error: header of 5 bytes, the spec says 4");
    std::vector<StreamWriter> streams(2);
    const Bytes records(4 * 6, 0);
    EXPECT_EQ(writer_error([&](ContainerWriter& writer) {
                  writer.write_preamble(test_preamble());
                  writer.write_block(records.data(), 4, streams.data());
              }),
              "internal error: block of 4 records");
    const Bytes too_long(337, 0);
    streams[0].put_bytes(too_long.data(), too_long.size());
    EXPECT_EQ(writer_error([&](ContainerWriter& writer) {
                  writer.write_preamble(test_preamble());
                  writer.write_block(records.data(), 3, streams.data());
              }),
              "internal error: the codec wrote 337 stream bytes for 3 records, more than the format allows");
    const Bytes whole_record(6, 0);
    EXPECT_EQ(writer_error([&](ContainerWriter& writer) {
                  writer.write_preamble(test_preamble());
                  writer.write_trailer(0, 6, whole_record.data(), whole_record.size());
              }),
              "internal error: tail of 6 bytes is a whole record");
}

}  // namespace
}  // namespace tcgen_runtime
