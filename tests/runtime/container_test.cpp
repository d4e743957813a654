// The .tcz container on its own: ContainerWriter and ContainerReader in
// memory, the offset of every field of every section, every error the reader
// reports, and the tables of docs/format.md checked against the layout that
// the writer and the reader use.

#include "runtime/container.hpp"

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/tcz_sections.hpp"

namespace tcgen_runtime {
namespace {

using Bytes = std::vector<std::uint8_t>;
using PreambleLayout = TczPreambleLayout;
using HeaderLayout = TczHeaderSectionLayout;
using BlockLayout = TczBlockLayout;
using TrailerLayout = TczTrailerLayout;

constexpr std::string_view test_stream_names[] = {"codes", "values"};

Bytes text_bytes(std::string_view text) {
    return Bytes(text.begin(), text.end());
}

// Bytes that bzip2 squeezes a little, different for every seed.
Bytes pattern_bytes(std::size_t size, std::uint8_t seed) {
    Bytes bytes(size);
    for (std::size_t index = 0; index < size; ++index) {
        bytes[index] = static_cast<std::uint8_t>(seed + index % 7);
    }
    return bytes;
}

Preamble test_preamble() {
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

Bytes test_records(std::uint64_t block_number, std::uint64_t record_count, std::uint32_t record_bytes) {
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
Contents with_totals(Contents contents) {
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
Contents typical_contents() {
    Contents contents;
    contents.header = text_bytes("HDR1");
    contents.blocks.push_back({3, {pattern_bytes(30, 1), pattern_bytes(12, 2)}});
    contents.blocks.push_back({3, {pattern_bytes(25, 3), Bytes()}});
    contents.blocks.push_back({2, {pattern_bytes(9, 4), pattern_bytes(40, 5)}});
    contents.tail = text_bytes("tail!");
    return with_totals(contents);
}

Bytes write_file(const Contents& contents, Backend backend = default_backend) {
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

Contents read_file(const Bytes& file, const std::string_view* stream_names = nullptr) {
    MemorySource source(file);
    ContainerReader reader(source);
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

std::string read_error(const Bytes& file, const std::string_view* stream_names = nullptr) {
    try {
        read_file(file, stream_names);
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

void expect_same_contents(const Contents& found, const Contents& expected) {
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
Bytes compressed(const Bytes& data) {
    Bytes out;
    backend_compress(default_backend, data.data(), data.size(), out);
    return out;
}

Bytes cut(const Bytes& file, std::size_t size) {
    return Bytes(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(size));
}

Bytes flip(Bytes file, std::size_t position) {
    file[position] ^= 1;
    return file;
}

// The seed of the first check of the section at `section`: the last check of
// the section before, which every section ends with (0 for the preamble).
std::uint64_t chain_seed(const Bytes& file, std::size_t section) {
    return section == 0 ? 0 : load_le<std::uint64_t>(file.data() + section - 8);
}

// Recomputes the check at `check_offset` of the section at `section`, which
// covers every byte of the section before it, so that a test can change a
// field and reach the checks behind the checksum. (The chain after it breaks.)
void reseal(Bytes& file, std::size_t section, std::size_t check_offset) {
    store_le<std::uint64_t>(file.data() + section + check_offset,
                            xxh64(file.data() + section, check_offset, chain_seed(file, section)));
}

void reseal_preamble(Bytes& file) {
    reseal(file, 0, PreambleLayout::spec_text + PreambleLayout::spec_size.load(file.data()));
}

TEST(Container, ReadsBackWhatItWrote) {
    const Contents contents = typical_contents();
    const Bytes file = write_file(contents);
    expect_same_contents(read_file(file), contents);
    expect_same_contents(read_file(file, test_stream_names), contents);
}

TEST(Container, ReadsBackEveryBackend) {
    const Contents contents = typical_contents();
    for (const Backend backend : {Backend::bzip2, Backend::lzma, Backend::zstd}) {
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

// The layout, pinned: these numbers are the format (docs/format.md), and
// changing one is a new format version.
TEST(ContainerLayout, FieldsAreAtTheDocumentedOffsets) {
    EXPECT_EQ(PreambleLayout::magic.offset, 0u);
    EXPECT_EQ(PreambleLayout::magic.size, 8u);
    EXPECT_EQ(PreambleLayout::version.offset, 8u);
    EXPECT_EQ(PreambleLayout::flags.offset, 10u);
    EXPECT_EQ(PreambleLayout::fingerprint.offset, 12u);
    EXPECT_EQ(PreambleLayout::record_bytes.offset, 20u);
    EXPECT_EQ(PreambleLayout::header_bytes.offset, 24u);
    EXPECT_EQ(PreambleLayout::stream_count.offset, 28u);
    EXPECT_EQ(PreambleLayout::records_per_block.offset, 32u);
    EXPECT_EQ(PreambleLayout::restart_blocks.offset, 40u);
    EXPECT_EQ(PreambleLayout::spec_size.offset, 44u);
    EXPECT_EQ(PreambleLayout::spec_text, 48u);
    EXPECT_EQ(PreambleLayout::AfterSpec::check.offset, 0u);
    EXPECT_EQ(PreambleLayout::fixed_bytes, 56u);

    EXPECT_EQ(HeaderLayout::tag.offset, 0u);
    EXPECT_EQ(HeaderLayout::raw_size.offset, 4u);
    EXPECT_EQ(HeaderLayout::compressed_size.offset, 12u);
    EXPECT_EQ(HeaderLayout::backend.offset, 20u);
    EXPECT_EQ(HeaderLayout::fields_check.offset, 21u);
    EXPECT_EQ(HeaderLayout::data, 29u);
    EXPECT_EQ(HeaderLayout::AfterData::data_check.offset, 0u);
    EXPECT_EQ(HeaderLayout::AfterData::header_check.offset, 8u);
    EXPECT_EQ(HeaderLayout::fixed_bytes, 45u);

    EXPECT_EQ(BlockLayout::tag.offset, 0u);
    EXPECT_EQ(BlockLayout::record_count.offset, 4u);
    EXPECT_EQ(BlockLayout::raw_size(0).offset, 12u);
    EXPECT_EQ(BlockLayout::compressed_size(0).offset, 20u);
    EXPECT_EQ(BlockLayout::backend(0).offset, 28u);
    EXPECT_EQ(BlockLayout::raw_size(3).offset, 63u);
    EXPECT_EQ(BlockLayout::compressed_size(3).offset, 71u);
    EXPECT_EQ(BlockLayout::backend(3).offset, 79u);
    EXPECT_EQ(BlockLayout::fields_check(0).offset, 12u);
    EXPECT_EQ(BlockLayout::fields_check(4).offset, 80u);
    EXPECT_EQ(BlockLayout::data(0), 20u);
    EXPECT_EQ(BlockLayout::data(4), 88u);
    EXPECT_EQ(BlockLayout::AfterData::data_check.offset, 0u);
    EXPECT_EQ(BlockLayout::AfterData::records_check.offset, 8u);
    EXPECT_EQ(BlockLayout::AfterData::size, 16u);

    EXPECT_EQ(TrailerLayout::tag.offset, 0u);
    EXPECT_EQ(TrailerLayout::total_records.offset, 4u);
    EXPECT_EQ(TrailerLayout::total_bytes.offset, 12u);
    EXPECT_EQ(TrailerLayout::tail_size.offset, 20u);
    EXPECT_EQ(TrailerLayout::restart_count.offset, 24u);
    EXPECT_EQ(TrailerLayout::tail, 32u);
    EXPECT_EQ(TrailerLayout::restart_offset_bytes, 8u);
    EXPECT_EQ(TrailerLayout::AfterIndex::trailer_offset.offset, 0u);
    EXPECT_EQ(TrailerLayout::AfterIndex::check.offset, 8u);
    EXPECT_EQ(TrailerLayout::fixed_bytes, 48u);
}

TEST(ContainerLayout, WriterPutsEveryFieldAtItsOffset) {
    const Contents contents = typical_contents();
    const Bytes file = write_file(contents);
    const Sections sections = find_sections(file);
    const std::uint8_t* const bytes = file.data();

    const std::size_t spec_size = contents.preamble.spec_text.size();
    EXPECT_EQ(Bytes(bytes, bytes + PreambleLayout::magic.size),
              Bytes({0x89, 'T', 'C', 'Z', 0x0D, 0x0A, 0x1A, 0x0A}));
    EXPECT_EQ(PreambleLayout::version.load(bytes), 5u);
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
struct Row {
    std::string name;
    std::size_t offset = 0;
    std::size_t size = 0;
};

std::string row_text(const Row& row) {
    return row.name + " at " + std::to_string(row.offset) + ", " + std::to_string(row.size) + " bytes";
}

std::vector<std::string> rows_text(const std::vector<Row>& rows) {
    std::vector<std::string> texts;
    for (const Row& row : rows) {
        texts.push_back(row_text(row));
    }
    return texts;
}

template <class Field>
Row field_row(std::string name, Field field, std::size_t part = 0) {
    return {std::move(name), part + field.offset, field.size};
}

// The lengths docs/format.md names with letters, chosen all different so
// that a wrong letter shows.
const std::map<char, std::size_t> doc_lengths = {{'L', 5}, {'C', 7}, {'S', 2}, {'D', 11}, {'T', 3}, {'K', 4}};

std::vector<Row> code_rows(const std::string& section) {
    const std::size_t spec_size = doc_lengths.at('L');
    const std::size_t header_data = doc_lengths.at('C');
    const std::size_t stream_count = doc_lengths.at('S');
    const std::size_t block_data = doc_lengths.at('D');
    const std::size_t tail_size = doc_lengths.at('T');
    const std::size_t index_bytes = doc_lengths.at('K') * TrailerLayout::restart_offset_bytes;
    if (section == "Preamble") {
        using Layout = PreambleLayout;
        return {field_row("magic", Layout::magic),
                field_row("version", Layout::version),
                field_row("flags", Layout::flags),
                field_row("fingerprint", Layout::fingerprint),
                field_row("record_bytes", Layout::record_bytes),
                field_row("header_bytes", Layout::header_bytes),
                field_row("stream_count", Layout::stream_count),
                field_row("records_per_block", Layout::records_per_block),
                field_row("restart_blocks", Layout::restart_blocks),
                field_row("spec_size", Layout::spec_size),
                {"spec_text", Layout::spec_text, spec_size},
                field_row("AfterSpec::check", Layout::AfterSpec::check, Layout::spec_text + spec_size)};
    }
    if (section == "Header section") {
        using Layout = HeaderLayout;
        return {field_row("tag", Layout::tag),
                field_row("raw_size", Layout::raw_size),
                field_row("compressed_size", Layout::compressed_size),
                field_row("backend", Layout::backend),
                field_row("fields_check", Layout::fields_check),
                {"data", Layout::data, header_data},
                field_row("AfterData::data_check", Layout::AfterData::data_check, Layout::data + header_data),
                field_row("AfterData::header_check", Layout::AfterData::header_check, Layout::data + header_data)};
    }
    if (section == "Block") {
        using Layout = BlockLayout;
        std::vector<Row> rows = {field_row("tag", Layout::tag), field_row("record_count", Layout::record_count)};
        for (std::size_t stream = 0; stream < stream_count; ++stream) {
            rows.push_back(field_row("raw_size(" + std::to_string(stream) + ")", Layout::raw_size(stream)));
            rows.push_back(
                field_row("compressed_size(" + std::to_string(stream) + ")", Layout::compressed_size(stream)));
            rows.push_back(field_row("backend(" + std::to_string(stream) + ")", Layout::backend(stream)));
        }
        const std::size_t data = Layout::data(stream_count);
        rows.push_back(field_row("fields_check(S)", Layout::fields_check(stream_count)));
        rows.push_back({"data(S)", data, block_data});
        rows.push_back(field_row("AfterData::data_check", Layout::AfterData::data_check, data + block_data));
        rows.push_back(field_row("AfterData::records_check", Layout::AfterData::records_check, data + block_data));
        return rows;
    }
    using Layout = TrailerLayout;
    return {field_row("tag", Layout::tag),
            field_row("total_records", Layout::total_records),
            field_row("total_bytes", Layout::total_bytes),
            field_row("tail_size", Layout::tail_size),
            field_row("restart_count", Layout::restart_count),
            {"tail", Layout::tail, tail_size},
            {"restart_offsets", Layout::tail + tail_size, index_bytes},
            field_row("AfterIndex::trailer_offset", Layout::AfterIndex::trailer_offset,
                      Layout::tail + tail_size + index_bytes),
            field_row("AfterIndex::check", Layout::AfterIndex::check, Layout::tail + tail_size + index_bytes)};
}

// A sum of terms as the tables write offsets and lengths: "44+L", "20 + 16i",
// "16+16S+D". Each term is a number, a letter, or a number times a letter.
std::size_t evaluate(const std::string& expression, const std::map<char, std::size_t>& values) {
    std::size_t total = 0;
    std::stringstream terms(expression);
    std::string term;
    while (std::getline(terms, term, '+')) {
        std::string compact;
        for (const char character : term) {
            if (character != ' ') {
                compact += character;
            }
        }
        std::size_t digits = 0;
        while (digits < compact.size() && compact[digits] >= '0' && compact[digits] <= '9') {
            ++digits;
        }
        const std::size_t number = digits > 0 ? std::stoul(compact.substr(0, digits)) : 1;
        if (digits == compact.size() && digits > 0) {
            total += number;
        } else if (digits + 1 == compact.size() && values.count(compact[digits]) == 1) {
            total += number * values.at(compact[digits]);
        } else {
            ADD_FAILURE() << "cannot evaluate '" << expression << "'";
        }
    }
    return total;
}

std::size_t type_size(const std::string& type, const std::map<char, std::size_t>& values) {
    const std::map<std::string, std::size_t> integers = {{"u8", 1}, {"u16", 2}, {"u32", 4}, {"u64", 8}};
    if (integers.count(type) == 1) {
        return integers.at(type);
    }
    const std::string bytes_suffix = " bytes";
    if (type.size() > bytes_suffix.size() && type.compare(type.size() - bytes_suffix.size(), std::string::npos,
                                                          bytes_suffix) == 0) {
        return evaluate(type.substr(0, type.size() - bytes_suffix.size()), values);
    }
    ADD_FAILURE() << "unknown type '" << type << "'";
    return 0;
}

std::string trimmed(const std::string& text, const std::string& strip = " `") {
    const std::size_t first = text.find_first_not_of(strip);
    if (first == std::string::npos) {
        return "";
    }
    return text.substr(first, text.find_last_not_of(strip) - first + 1);
}

// The offset, type and name cells of each row of the table under the
// heading "## section" of docs/format.md.
std::vector<std::vector<std::string>> doc_table(const std::string& section) {
    std::ifstream doc(std::string(TCGEN_SOURCE_DIR) + "/docs/format.md");
    EXPECT_TRUE(doc) << "cannot read docs/format.md";
    std::vector<std::vector<std::string>> table;
    bool in_section = false;
    std::string line;
    while (std::getline(doc, line)) {
        if (line.rfind("## ", 0) == 0) {
            in_section = line == "## " + section;
        }
        if (!in_section || line.rfind("|", 0) != 0) {
            continue;
        }
        std::vector<std::string> cells;
        std::stringstream cell_stream(line.substr(1));
        std::string cell;
        while (cells.size() < 3 && std::getline(cell_stream, cell, '|')) {
            cells.push_back(trimmed(cell));
        }
        if (cells.size() < 3) {
            ADD_FAILURE() << "docs/format.md, section " << section << ": short table row: " << line;
            continue;
        }
        const bool heading_or_rule = cells[0] == "offset" || cells[0].rfind("---", 0) == 0;
        if (!heading_or_rule) {
            table.push_back(cells);
        }
    }
    return table;
}

// The table of docs/format.md for `section`, evaluated for doc_lengths; rows
// whose offset has the stream index i are repeated for every stream.
std::vector<Row> doc_rows(const std::string& section) {
    const std::vector<std::vector<std::string>> table = doc_table(section);
    std::map<char, std::size_t> values = doc_lengths;
    std::vector<Row> rows;
    std::size_t index = 0;
    while (index < table.size()) {
        std::size_t group_end = index + 1;
        const bool per_stream = table[index][0].find('i') != std::string::npos;
        while (per_stream && group_end < table.size() && table[group_end][0].find('i') != std::string::npos) {
            ++group_end;
        }
        const std::size_t repeats = per_stream ? values.at('S') : 1;
        for (std::size_t stream = 0; stream < repeats; ++stream) {
            values['i'] = stream;
            for (std::size_t member = index; member < group_end; ++member) {
                const std::vector<std::string>& cells = table[member];
                std::string name = cells[2];
                const std::size_t index_mark = name.find("(i)");
                if (index_mark != std::string::npos) {
                    name.replace(index_mark, 3, "(" + std::to_string(stream) + ")");
                }
                rows.push_back({name, evaluate(cells[0], values), type_size(cells[1], values)});
            }
        }
        index = group_end;
    }
    return rows;
}

TEST(ContainerLayout, DocumentationTablesMatchTheCode) {
    for (const std::string section : {"Preamble", "Header section", "Block", "Trailer"}) {
        const std::vector<Row> code = code_rows(section);
        EXPECT_EQ(rows_text(doc_rows(section)), rows_text(code)) << "docs/format.md, section " << section;
        // The variable-length parts too leave no gap: every byte is a field.
        std::size_t next = 0;
        for (const Row& row : code) {
            EXPECT_EQ(row.offset, next) << section << ": " << row_text(row);
            next = row.offset + row.size;
        }
    }
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

// Two files of the same spec and shape, different in every section but the
// preamble, cut into their sections.
std::vector<Bytes> file_sections(const Bytes& file) {
    const Sections sections = find_sections(file);
    std::vector<std::size_t> starts = {0, sections.header_section};
    starts.insert(starts.end(), sections.blocks.begin(), sections.blocks.end());
    starts.push_back(sections.trailer);
    starts.push_back(file.size());
    std::vector<Bytes> pieces;
    for (std::size_t index = 0; index + 1 < starts.size(); ++index) {
        pieces.emplace_back(file.begin() + static_cast<std::ptrdiff_t>(starts[index]),
                            file.begin() + static_cast<std::ptrdiff_t>(starts[index + 1]));
    }
    return pieces;
}

Contents other_contents() {
    Contents contents;
    contents.header = text_bytes("HDR2");
    contents.blocks.push_back({3, {pattern_bytes(30, 7), pattern_bytes(12, 8)}});
    contents.blocks.push_back({3, {pattern_bytes(25, 9), Bytes()}});
    contents.blocks.push_back({2, {pattern_bytes(9, 10), pattern_bytes(40, 11)}});
    contents.tail = text_bytes("TAIL?");
    return with_totals(contents);
}

Bytes joined(const std::vector<Bytes>& pieces) {
    Bytes file;
    for (const Bytes& piece : pieces) {
        file.insert(file.end(), piece.begin(), piece.end());
    }
    return file;
}

// Sections are tied to their file and their place: any mix of the sections
// of two files, and any file with sections dropped, repeated or swapped, is
// refused (unless it is byte for byte one of the two files, or several
// whole files concatenated).
TEST(ContainerSplicing, EveryMixOfTwoFilesIsRefused) {
    const Bytes first = write_file(typical_contents());
    const Bytes second = write_file(other_contents());
    const std::vector<Bytes> first_pieces = file_sections(first);
    const std::vector<Bytes> second_pieces = file_sections(second);
    ASSERT_EQ(first_pieces.size(), 6u);
    ASSERT_EQ(second_pieces.size(), 6u);
    // A file followed by a whole file is a valid concatenation.
    auto is_whole_files = [&](const Bytes& file) {
        std::size_t offset = 0;
        while (offset < file.size()) {
            bool matched = false;
            for (const Bytes* whole : {&first, &second}) {
                if (file.size() - offset >= whole->size() &&
                    std::equal(whole->begin(), whole->end(), file.begin() + static_cast<std::ptrdiff_t>(offset))) {
                    offset += whole->size();
                    matched = true;
                    break;
                }
            }
            if (!matched) {
                return false;
            }
        }
        return true;
    };
    auto expect_refused = [&](const Bytes& file, const std::string& what) {
        if (!is_whole_files(file)) {
            EXPECT_NE(read_error(file), "no error") << what;
        }
    };
    std::size_t tried = 0;
    for (unsigned mask = 0; mask < (1u << first_pieces.size()); ++mask) {
        std::vector<Bytes> pieces;
        for (std::size_t index = 0; index < first_pieces.size(); ++index) {
            pieces.push_back(((mask >> index) & 1u) != 0 ? second_pieces[index] : first_pieces[index]);
        }
        expect_refused(joined(pieces), "sections from the second file: mask " + std::to_string(mask));
        ++tried;
    }
    // A prefix of one file and a suffix of either, cut at section boundaries.
    for (const std::vector<Bytes>* suffix_file : {&first_pieces, &second_pieces}) {
        for (std::size_t prefix = 0; prefix <= first_pieces.size(); ++prefix) {
            for (std::size_t suffix = 0; suffix <= suffix_file->size(); ++suffix) {
                std::vector<Bytes> pieces(first_pieces.begin(), first_pieces.begin() + static_cast<std::ptrdiff_t>(prefix));
                pieces.insert(pieces.end(), suffix_file->begin() + static_cast<std::ptrdiff_t>(suffix),
                              suffix_file->end());
                expect_refused(joined(pieces), "first " + std::to_string(prefix) + " sections, then from section " +
                                                   std::to_string(suffix));
                ++tried;
            }
        }
    }
    std::vector<Bytes> swapped = first_pieces;
    std::swap(swapped[2], swapped[3]);
    EXPECT_EQ(read_error(joined(swapped)), "checksum mismatch in block 1 (section header)");
    EXPECT_GT(tried, 100u);
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
