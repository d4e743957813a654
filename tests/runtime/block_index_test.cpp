// Random access to a .tcz (runtime/block_index.hpp): the block index read
// from the trailer at the end of the file, and reading resumed at a restart
// point with the check chain going on as if the blocks before had been read.
// SeekableTraceReader, built on it, is tested through the Reader
// (record_io_test, read_ahead_test).

#include "runtime/block_index.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/container_files.hpp"
#include "tests/runtime/stream_only.hpp"

namespace tcgen_runtime {
namespace {

using RestartPoint = std::pair<std::uint64_t, std::uint64_t>;

// Five full blocks; test_preamble() restarts the predictors every two
// blocks, so blocks 1, 3 and 5 are restart points.
Contents five_blocks() {
    Contents contents;
    contents.header = text_bytes("HDR1");
    for (std::uint8_t block = 1; block <= 5; ++block) {
        contents.blocks.push_back({3, {pattern_bytes(10u + block, block), pattern_bytes(4, 50u + block)}});
    }
    return with_totals(contents);
}

// A reader of `file` from a Source (with random access or not), past the
// header. It keeps its own copy of the file, which a MemorySource only
// points into, so that a test may hand it a temporary.
template <class Source>
struct ReaderAtBlocks {
    explicit ReaderAtBlocks(Bytes file) : bytes(std::move(file)), source(bytes), reader(source) {
        reader.read_preamble();
        Bytes header;
        reader.read_header(header);
    }

    const Bytes bytes;
    Source source;
    IndexedContainerReader reader;
    BlockData block;
    Trailer trailer;
};

TEST(BlockIndex, ReadsTheIndexAndKeepsTheReadPosition) {
    const Bytes file = write_file(five_blocks());
    const Sections sections = find_sections(file);
    ReaderAtBlocks<MemorySource> at(file);
    const std::optional<std::vector<std::uint64_t>> index = at.reader.read_block_index();
    ASSERT_TRUE(index);
    const std::vector<std::uint64_t> restart_blocks = {sections.blocks[0], sections.blocks[2], sections.blocks[4]};
    EXPECT_EQ(*index, restart_blocks);
    ASSERT_TRUE(at.reader.read_next(at.block, at.trailer));
    EXPECT_EQ(at.block.number, 1u);
}

TEST(BlockIndex, ResumesAtARestartPointAndVerifiesToTheEnd) {
    const Contents contents = five_blocks();
    const Bytes file = write_file(contents);
    ReaderAtBlocks<MemorySource> at(file);
    const std::vector<std::uint64_t> index = at.reader.read_block_index().value();
    at.reader.resume_at_block(3, index[1]);
    std::vector<std::uint64_t> numbers;
    while (at.reader.read_next(at.block, at.trailer)) {
        const BlockData& block = at.block;
        numbers.push_back(block.number);
        EXPECT_EQ(block.streams, contents.blocks[block.number - 1].streams) << "block " << block.number;
        at.reader.verify_records(
            block, test_records(block.number, block.record_count, contents.preamble.record_bytes).data());
    }
    EXPECT_EQ(numbers, (std::vector<std::uint64_t>{3, 4, 5}));
    EXPECT_EQ(at.trailer.total_records, contents.total_records);
    EXPECT_EQ(at.reader.bytes_read(), file.size());
}

TEST(BlockIndex, RefusesToResumeAtABlockThatIsNoRestartPoint) {
    ReaderAtBlocks<MemorySource> at(write_file(five_blocks()));
    const std::vector<std::uint64_t> index = at.reader.read_block_index().value();
    try {
        at.reader.resume_at_block(2, index[1]);
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_EQ(std::string(error.what()), "internal error: cannot resume at block 2");
    }
}

TEST(BlockIndex, NoIndexFromAStreamOrADamagedTrailer) {
    const Bytes file = write_file(five_blocks());
    EXPECT_FALSE(ReaderAtBlocks<StreamOnly>(file).reader.read_block_index());

    // The first index entry, damaged: the trailer's check fails, so there is
    // no index, and reading on sequentially reports the damage.
    const Sections sections = find_sections(file);
    const std::uint32_t tail_size = TrailerLayout::tail_size.load(file.data() + sections.trailer);
    ReaderAtBlocks<MemorySource> at(flip(file, sections.trailer + TrailerLayout::tail + tail_size));
    EXPECT_FALSE(at.reader.read_block_index());
    try {
        while (at.reader.read_next(at.block, at.trailer)) {
        }
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_EQ(std::string(error.what()), "checksum mismatch in trailer");
    }
}

TEST(BlockIndex, KnowsTheRestartPointsReadPast) {
    const Bytes file = write_file(five_blocks());
    const Sections sections = find_sections(file);
    ReaderAtBlocks<MemorySource> at(file);
    EXPECT_EQ(at.reader.known_restart_before(4), RestartPoint(0, 0));
    for (int read = 0; read < 4; ++read) {
        ASSERT_TRUE(at.reader.read_next(at.block, at.trailer));
    }
    EXPECT_EQ(at.reader.known_restart_before(2), RestartPoint(1, sections.blocks[0]));
    EXPECT_EQ(at.reader.known_restart_before(4), RestartPoint(3, sections.blocks[2]));
    // Without random access there is nothing to resume at.
    ReaderAtBlocks<StreamOnly> streamed(file);
    ASSERT_TRUE(streamed.reader.read_next(streamed.block, streamed.trailer));
    EXPECT_EQ(streamed.reader.known_restart_before(1), RestartPoint(0, 0));
}

}  // namespace
}  // namespace tcgen_runtime
