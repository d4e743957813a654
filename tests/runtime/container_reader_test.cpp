// The .tcz reader (runtime/container_reader.hpp): what the writer wrote read
// back, with every back-end, and every error the reader reports.

#include "runtime/container_reader.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/container_files.hpp"

namespace tcgen_runtime {
namespace {

TEST(Container, ReadsBackWhatItWrote) {
    const Contents contents = typical_contents();
    const Bytes file = write_file(contents);
    expect_same_contents(read_file(file), contents);
    expect_same_contents(read_file(file, test_stream_names), contents);
}

TEST(Container, ReadsBackEveryBackend) {
    const Contents contents = typical_contents();
    for (const Backend backend : {Backend::bzip2, Backend::lzma, Backend::zstd, Backend::cm}) {
        const Bytes file = write_file(contents, backend);
        const Sections sections = find_sections(file);
        EXPECT_EQ(HeaderLayout::backend.load(file.data() + sections.header_section), static_cast<int>(backend));
        EXPECT_EQ(BlockLayout::backend(1).load(file.data() + sections.blocks[2]), static_cast<int>(backend));
        expect_same_contents(read_file(file), contents);
    }
}

TEST(Container, ReadsBackAFileWithoutBlocks) {
    Contents contents;
    contents.header = text_bytes("HDR1");
    contents.tail = text_bytes("abc");
    contents = with_totals(contents);
    const Bytes file = write_file(contents);
    expect_same_contents(read_file(file), contents);
    EXPECT_TRUE(find_sections(file).blocks.empty());
}

TEST(Container, ReadsBackAnEmptyInput) {
    const Contents contents = with_totals(Contents());
    const Bytes file = write_file(contents);
    expect_same_contents(read_file(file), contents);
    // Nothing but the fixed fields: an empty header is stored as zero bytes.
    EXPECT_EQ(file.size(), PreambleLayout::fixed_bytes + contents.preamble.spec_text.size() +
                               HeaderLayout::fixed_bytes + TrailerLayout::fixed_bytes);
}

TEST(Container, ReadsBackAPartialHeader) {
    Contents contents;
    contents.header = text_bytes("HD");
    contents = with_totals(contents);
    expect_same_contents(read_file(write_file(contents)), contents);
}

TEST(Container, ReadsBackATail) {
    Contents contents;
    contents.header = text_bytes("HDR1");
    contents.blocks.push_back({1, {pattern_bytes(5, 9), pattern_bytes(3, 8)}});
    contents.tail = text_bytes("12345");
    contents = with_totals(contents);
    const Contents found = read_file(write_file(contents));
    expect_same_contents(found, contents);
    EXPECT_EQ(found.tail, text_bytes("12345"));
}

TEST(Container, ReadsBackBlocksWithoutStreams) {
    Contents contents;
    contents.preamble.stream_count = 0;
    contents.header = text_bytes("HDR1");
    contents.blocks.push_back({3, {}});
    contents.blocks.push_back({1, {}});
    contents = with_totals(contents);
    const Bytes file = write_file(contents);
    expect_same_contents(read_file(file), contents);
    EXPECT_EQ(find_sections(file).blocks.size(), 2u);
}

TEST(ContainerErrors, Preamble) {
    const Bytes file = write_file(typical_contents());
    const std::size_t spec_size = typical_contents().preamble.spec_text.size();
    EXPECT_EQ(read_error(Bytes()), "not a .tcz file (empty input)");
    EXPECT_EQ(read_error(flip(file, 1)), "not a .tcz file (bad magic)");
    EXPECT_EQ(read_error(flip(file, 0)),
              "not a .tcz file (bad magic: the file looks mangled, e.g. by a text-mode transfer)");

    Bytes version_2 = file;
    PreambleLayout::version.store(version_2.data(), 2);
    EXPECT_EQ(read_error(version_2), "unsupported .tcz format version 2 (this program reads version " +
                                         std::to_string(tcz_format_version) + ")");

    Bytes long_spec = file;
    PreambleLayout::spec_size.store(long_spec.data(), (1u << 20) + 1);
    EXPECT_EQ(read_error(long_spec), "corrupt input: preamble gives a spec of 1048577 bytes (limit 1048576)");

    EXPECT_EQ(read_error(flip(file, PreambleLayout::fingerprint.offset)), "checksum mismatch in preamble");
    EXPECT_EQ(read_error(flip(file, PreambleLayout::spec_text + spec_size - 1)), "checksum mismatch in preamble");
    EXPECT_EQ(read_error(flip(file, PreambleLayout::spec_text + spec_size)), "checksum mismatch in preamble");

    Bytes flagged = file;
    PreambleLayout::flags.store(flagged.data(), 1);
    reseal_preamble(flagged);
    EXPECT_EQ(read_error(flagged), "unsupported .tcz features (flags 0x00000001)");
}

TEST(ContainerErrors, PreambleLimits) {
    const Bytes file = write_file(typical_contents());
    auto with = [&](auto field, auto value) {
        Bytes changed = file;
        field.store(changed.data(), value);
        reseal_preamble(changed);
        return read_error(changed);
    };
    EXPECT_EQ(with(PreambleLayout::record_bytes, 0u), "corrupt input: record size 0 is not in 1..1048576");
    EXPECT_EQ(with(PreambleLayout::record_bytes, (1u << 20) + 1),
              "corrupt input: record size 1048577 is not in 1..1048576");
    EXPECT_EQ(with(PreambleLayout::header_bytes, (1u << 28) + 1),
              "corrupt input: header size 268435457 exceeds the limit of 268435456");
    EXPECT_EQ(with(PreambleLayout::stream_count, 65536u),
              "corrupt input: stream count 65536 exceeds the limit of 65535");
    EXPECT_EQ(with(PreambleLayout::records_per_block, std::uint64_t{0}),
              "corrupt input: records per block 0 is not in 1..44739242");
    EXPECT_EQ(with(PreambleLayout::records_per_block, std::uint64_t{44739243}),
              "corrupt input: records per block 44739243 is not in 1..44739242");
}

TEST(ContainerErrors, HeaderSection) {
    const Bytes file = write_file(typical_contents());
    const std::size_t section = find_sections(file).header_section;
    const std::size_t data_size = HeaderLayout::compressed_size.load(file.data() + section);
    auto with = [&](TczField<std::uint64_t> field, std::uint64_t value) {
        Bytes changed = file;
        field.store(changed.data() + section, value);
        reseal(changed, section, HeaderLayout::fields_check.offset);
        return read_error(changed);
    };
    EXPECT_EQ(read_error(flip(file, section)), "corrupt input: header section tag missing");
    EXPECT_EQ(read_error(flip(file, section + HeaderLayout::raw_size.offset)), "checksum mismatch in header section");
    EXPECT_EQ(read_error(flip(file, section + HeaderLayout::fields_check.offset)),
              "checksum mismatch in header section");
    EXPECT_EQ(with(HeaderLayout::raw_size, 5),
              "corrupt input: header section holds 5 bytes, more than the 4-byte header");
    EXPECT_EQ(with(HeaderLayout::compressed_size, 0), "corrupt input: header has 4 bytes stored in 0");
    EXPECT_EQ(with(HeaderLayout::compressed_size, lzma_compress_bound(4) + 1),
              "corrupt input: header has 69 compressed bytes for 4");
    Bytes unknown_backend = file;
    HeaderLayout::backend.store(unknown_backend.data() + section, 9);
    reseal(unknown_backend, section, HeaderLayout::fields_check.offset);
    EXPECT_EQ(read_error(unknown_backend), "corrupt input: header names unknown back-end 9");
    EXPECT_EQ(read_error(flip(file, section + HeaderLayout::data)),
              "checksum mismatch in header section (compressed data)");
    const std::size_t after_data = section + HeaderLayout::data + data_size;
    EXPECT_EQ(read_error(flip(file, after_data + HeaderLayout::AfterData::data_check.offset)),
              "checksum mismatch in header section (compressed data)");
    EXPECT_EQ(read_error(flip(file, after_data + HeaderLayout::AfterData::header_check.offset)),
              "checksum mismatch in header");
}

TEST(ContainerErrors, Block) {
    const Bytes file = write_file(typical_contents());
    const Sections sections = find_sections(file);
    const std::size_t block = sections.blocks[0];
    const std::uint64_t raw_size_0 = BlockLayout::raw_size(0).load(file.data() + block);
    const std::uint64_t raw_size_1 = BlockLayout::raw_size(1).load(file.data() + block);
    auto with = [&](TczField<std::uint64_t> field, std::uint64_t value) {
        Bytes changed = file;
        field.store(changed.data() + block, value);
        reseal(changed, block, BlockLayout::fields_check(2).offset);
        return changed;
    };
    EXPECT_EQ(read_error(flip(file, block + BlockLayout::record_count.offset)),
              "checksum mismatch in block 1 (section header)");
    EXPECT_EQ(read_error(flip(file, block + BlockLayout::compressed_size(1).offset)),
              "checksum mismatch in block 1 (section header)");
    EXPECT_EQ(read_error(with(BlockLayout::record_count, 4)), "corrupt input: block 1 has 4 records (limit 3)");
    EXPECT_EQ(read_error(with(BlockLayout::record_count, 0)), "corrupt input: block 1 has 0 records (limit 3)");

    // 3 records of 6 bytes allow 3 * (16 * 6 + 16) = 336 stream bytes.
    EXPECT_EQ(read_error(with(BlockLayout::raw_size(0), 337)), "corrupt input: stream 0 of block 1 is too long");
    EXPECT_EQ(read_error(with(BlockLayout::raw_size(1), 337), test_stream_names),
              "corrupt input: stream 'values' of block 1 is too long");
    // A codec that writes at most 40 bytes per record to stream 1 refuses a
    // claim of 121 for 3 records before allocating or decompressing for it,
    // though the format's general limit would allow it.
    EXPECT_EQ(read_error(with(BlockLayout::raw_size(1), 121), test_stream_names, {40, 40}),
              "corrupt input: stream 'values' of block 1 claims 121 bytes, more than its 3 records can hold (120)");
    EXPECT_EQ(read_error(file, test_stream_names, {112, 112}), "no error");
    Bytes long_streams = with(BlockLayout::raw_size(0), 200);
    BlockLayout::raw_size(1).store(long_streams.data() + block, 200);
    reseal(long_streams, block, BlockLayout::fields_check(2).offset);
    EXPECT_EQ(read_error(long_streams), "corrupt input: the streams of block 1 are too long for 3 records");

    EXPECT_EQ(read_error(with(BlockLayout::compressed_size(0), 0)),
              "corrupt input: stream 0 of block 1 has " + std::to_string(raw_size_0) + " bytes stored in 0");
    Bytes unknown_backend = file;
    BlockLayout::backend(1).store(unknown_backend.data() + block, 0);
    reseal(unknown_backend, block, BlockLayout::fields_check(2).offset);
    EXPECT_EQ(read_error(unknown_backend, test_stream_names),
              "corrupt input: stream 'values' of block 1 names unknown back-end 0");
    EXPECT_EQ(read_error(with(BlockLayout::compressed_size(1), lzma_compress_bound(raw_size_1) + 1),
                         test_stream_names),
              "corrupt input: stream 'values' of block 1 has " + std::to_string(lzma_compress_bound(raw_size_1) + 1) +
                  " compressed bytes for " + std::to_string(raw_size_1));

    const std::size_t data = block + BlockLayout::data(2);
    EXPECT_EQ(read_error(flip(file, data)), "checksum mismatch in block 1 (compressed data)");
    EXPECT_EQ(read_error(flip(file, sections.blocks[1] - BlockLayout::AfterData::size)),
              "checksum mismatch in block 1 (compressed data)");
    // The records' check is verified against the decoded records, and the
    // next section's checks are seeded with the one stored.
    EXPECT_EQ(read_error(flip(file, sections.blocks[1] - 1)), "checksum mismatch in block 1");

    EXPECT_EQ(read_error(flip(file, block)), "corrupt input: unknown section tag 0x425a4355 after the header");
    EXPECT_EQ(read_error(flip(file, sections.blocks[1])),
              "corrupt input: unknown section tag 0x425a4355 after block 1");
}

TEST(ContainerErrors, RecordsThatDecodeWrongAreRefused) {
    const Contents contents = typical_contents();
    const Bytes file = write_file(contents);
    MemorySource source(file);
    ContainerReader reader(source);
    reader.read_preamble();
    Bytes header;
    reader.read_header(header);
    BlockData block;
    Trailer trailer;
    ASSERT_TRUE(reader.read_next(block, trailer));
    Bytes records = test_records(1, block.record_count, 6);
    reader.verify_records(block, records.data());
    records.back() ^= 1;
    try {
        reader.verify_records(block, records.data());
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_EQ(std::string(error.what()), "checksum mismatch in block 1");
    }
}

TEST(ContainerErrors, BlockOrder) {
    Contents after_partial_header;
    after_partial_header.header = text_bytes("HD");
    after_partial_header.blocks.push_back({3, {pattern_bytes(4, 1), pattern_bytes(4, 2)}});
    EXPECT_EQ(read_error(write_file(with_totals(after_partial_header))),
              "corrupt input: block 1 follows a partial header");

    Contents after_partial_block;
    after_partial_block.header = text_bytes("HDR1");
    after_partial_block.blocks.push_back({3, {pattern_bytes(4, 1), pattern_bytes(4, 2)}});
    after_partial_block.blocks.push_back({2, {pattern_bytes(4, 1), pattern_bytes(4, 2)}});
    after_partial_block.blocks.push_back({3, {pattern_bytes(4, 1), pattern_bytes(4, 2)}});
    EXPECT_EQ(read_error(write_file(with_totals(after_partial_block))),
              "corrupt input: block 3 follows a partial block");
}

TEST(ContainerErrors, Trailer) {
    const Contents contents = typical_contents();
    const Bytes file = write_file(contents);
    const std::size_t trailer = find_sections(file).trailer;

    Bytes long_tail = file;
    TrailerLayout::tail_size.store(long_tail.data() + trailer, 6);
    EXPECT_EQ(read_error(long_tail), "corrupt input: trailer gives a 6-byte partial record, records are 6 bytes");
    EXPECT_EQ(read_error(flip(file, trailer + TrailerLayout::total_records.offset)), "checksum mismatch in trailer");
    EXPECT_EQ(read_error(flip(file, trailer + TrailerLayout::tail)), "checksum mismatch in trailer");
    EXPECT_EQ(read_error(flip(file, file.size() - 1)), "checksum mismatch in trailer");

    Contents more_records = contents;
    more_records.total_records += 1;
    EXPECT_EQ(read_error(write_file(more_records)), "corrupt input: trailer counts 9 records, the blocks hold 8");
    Contents more_bytes = contents;
    more_bytes.total_bytes += 1;
    EXPECT_EQ(read_error(write_file(more_bytes)), "corrupt input: trailer counts 58 bytes, the file holds 57");

    Contents tail_after_partial_header;
    tail_after_partial_header.header = text_bytes("HD");
    tail_after_partial_header.tail = text_bytes("abc");
    EXPECT_EQ(read_error(write_file(with_totals(tail_after_partial_header))),
              "corrupt input: trailer has a partial record after a partial header");

    Bytes garbage = file;
    garbage.push_back(0);
    EXPECT_EQ(read_error(garbage), "trailing garbage after the trailer");
}

TEST(ContainerErrors, TruncationInsideEachSection) {
    const Contents contents = typical_contents();
    const Bytes file = write_file(contents);
    const Sections sections = find_sections(file);
    const std::size_t spec_size = contents.preamble.spec_text.size();
    const std::string preamble_size = std::to_string(PreambleLayout::fixed_bytes + spec_size);
    auto ends_after = [](const std::string& section, std::size_t read, const std::string& of) {
        return "truncated input: " + section + " ends after " + std::to_string(read) + " of " + of + " bytes";
    };

    EXPECT_EQ(read_error(cut(file, 5)), ends_after("preamble", 5, "at least 48"));
    EXPECT_EQ(read_error(cut(file, 9)), ends_after("preamble", 9, "at least 48"));
    EXPECT_EQ(read_error(cut(file, 47)), ends_after("preamble", 47, "at least 48"));
    EXPECT_EQ(read_error(cut(file, 48)), ends_after("preamble", 48, preamble_size));
    EXPECT_EQ(read_error(cut(file, sections.header_section - 1)),
              ends_after("preamble", sections.header_section - 1, preamble_size));

    const std::size_t header = sections.header_section;
    const std::string header_size = std::to_string(sections.blocks[0] - header);
    EXPECT_EQ(read_error(cut(file, header + 2)), ends_after("header section", 2, "at least 45"));
    EXPECT_EQ(read_error(cut(file, header + 28)), ends_after("header section", 28, "at least 45"));
    EXPECT_EQ(read_error(cut(file, header + 29)), ends_after("header section", 29, header_size));
    EXPECT_EQ(read_error(cut(file, sections.blocks[0] - 1)),
              ends_after("header section", sections.blocks[0] - 1 - header, header_size));

    EXPECT_EQ(read_error(cut(file, sections.blocks[0])),
              "truncated input: the file ends after the header without a trailer");
    EXPECT_EQ(read_error(cut(file, sections.blocks[0] + 2)), ends_after("section after the header", 2, "4"));
    const std::size_t block = sections.blocks[1];
    const std::string block_size = std::to_string(sections.blocks[2] - block);
    EXPECT_EQ(read_error(cut(file, block + 3)), ends_after("section after block 1", 3, "4"));
    EXPECT_EQ(read_error(cut(file, block + 4)), ends_after("block 2", 4, "at least 54"));
    EXPECT_EQ(read_error(cut(file, block + 53)), ends_after("block 2", 53, "at least 54"));
    EXPECT_EQ(read_error(cut(file, block + 54)), ends_after("block 2", 54, block_size));
    EXPECT_EQ(read_error(cut(file, sections.blocks[2] - 1)),
              ends_after("block 2", sections.blocks[2] - 1 - block, block_size));

    const std::size_t trailer = sections.trailer;
    EXPECT_EQ(read_error(cut(file, trailer)), "truncated input: the file ends after block 3 without a trailer");
    EXPECT_EQ(read_error(cut(file, trailer + 1)), ends_after("section after block 3", 1, "4"));
    // 48 fixed bytes, a 5-byte tail and an index of 2 restart points.
    EXPECT_EQ(read_error(cut(file, trailer + 4)), ends_after("trailer", 4, "at least 48"));
    EXPECT_EQ(read_error(cut(file, trailer + 31)), ends_after("trailer", 31, "at least 48"));
    EXPECT_EQ(read_error(cut(file, trailer + 32)), ends_after("trailer", 32, "69"));
    EXPECT_EQ(read_error(cut(file, file.size() - 1)), ends_after("trailer", 68, "69"));

    for (std::size_t size = 1; size < file.size(); ++size) {
        const std::string message = read_error(cut(file, size));
        EXPECT_EQ(message.rfind("truncated input: ", 0), 0u) << "length " << size << ": " << message;
    }
}

TEST(ContainerErrors, SpecMismatch) {
    const Preamble expected = test_preamble();
    Preamble other_spec = expected;
    other_spec.spec_text = "another spec\n";
    other_spec.fingerprint = 42;
    try {
        check_preamble_matches(other_spec, expected);
        FAIL() << "no error";
    } catch (const SpecMismatchError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "this .tcz was made by a different spec (fingerprint 0x000000000000002a, expected "
                  "0x0123456789abcdef); it was made by:");
        EXPECT_EQ(error.spec_text(), "another spec\n");
    }
    auto mismatch = [&](Preamble found) {
        try {
            check_preamble_matches(found, expected);
        } catch (const Error& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    Preamble other_layout = expected;
    other_layout.record_bytes = 8;
    EXPECT_EQ(mismatch(other_layout), "record size mismatch: this .tcz has 8-byte records, this program expects 6");
    other_layout = expected;
    other_layout.header_bytes = 0;
    EXPECT_EQ(mismatch(other_layout), "header size mismatch: this .tcz has a 0-byte header, this program expects 4");
    other_layout = expected;
    other_layout.stream_count = 3;
    EXPECT_EQ(mismatch(other_layout), "stream count mismatch: this .tcz has 3 streams, this program expects 2");
    // Another block size is no mismatch: blocks say how many records they hold.
    other_layout = expected;
    other_layout.records_per_block = 7;
    EXPECT_EQ(mismatch(other_layout), "no error");
}

}  // namespace
}  // namespace tcgen_runtime
