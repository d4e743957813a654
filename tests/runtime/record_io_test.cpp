// The in-process Reader and Writer on the test codec (tiny blocks, so that
// short traces span many): every record where it belongs after any sequence
// of seeks, restart points and the block index used where the source has
// random access, and never wrong records when it does not or when the index
// is damaged.

#include "runtime/record_io.hpp"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/runtime/stream_only.hpp"
#include "tests/runtime/test_codec.hpp"

namespace tcgen_runtime {
namespace {

using Bytes = std::vector<std::uint8_t>;

// Counts the blocks decoded, to see what a seek cost.
struct CountingCodec : tcgen_test::DeltaCodecTemplate<4, 5> {
    static inline std::uint64_t blocks_decoded = 0;
    void decode(StreamReader* streams, std::size_t count, std::uint8_t* records) {
        blocks_decoded += 1;
        DeltaCodecTemplate::decode(streams, count, records);
    }
};

using tcgen_test::TestRecord;

using Reader = RecordReader<CountingCodec, TestRecord>;
using Writer = RecordWriter<CountingCodec, TestRecord>;

TestRecord record_at(std::size_t index) {
    return {static_cast<std::uint16_t>(index * 7), static_cast<std::uint32_t>(0x9000 + index / 3)};
}

// A .tcz of `records` records in blocks of the codec's 5 records, or of
// `block_records` records when given.
Bytes written(std::size_t records, std::uint32_t restart_blocks, std::uint64_t block_records = 0) {
    MemorySink sink;
    Writer writer(sink, {'H', 'D', 'R', '1'},
                  {restart_blocks, block_records * CountingCodec::record_bytes, Backend::zstd});
    for (std::size_t index = 0; index < records; ++index) {
        writer.append(record_at(index));
    }
    writer.close();
    return sink.bytes();
}

void expect_record(Reader& reader, std::size_t index) {
    TestRecord record;
    ASSERT_TRUE(reader.next(record)) << "record " << index;
    EXPECT_EQ(record.counter, record_at(index).counter) << "record " << index;
    EXPECT_EQ(record.word, record_at(index).word) << "record " << index;
}

// A Writer's file is any program's new file: 0666 less the umask, as xz and
// zstd make theirs, so that others may read it where the umask says so.
TEST(RecordIo, AWritersFileHasMode0666LessTheUmask) {
    std::string pattern = ::testing::TempDir() + "tcgen_writer_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    const mode_t saved = ::umask(0);
    for (const mode_t mask : {mode_t{022}, mode_t{077}}) {
        ::umask(mask);
        const std::string path = pattern + "/trace" + std::to_string(mask) + ".tcz";
        Writer writer(path, {'H', 'D', 'R', '1'});
        writer.append(record_at(0));
        writer.close();
        struct stat status {};
        ASSERT_EQ(::stat(path.c_str(), &status), 0) << path;
        EXPECT_EQ(status.st_mode & 07777, 0666 & ~mask) << "umask " << mask;
        ::unlink(path.c_str());
    }
    ::umask(saved);
    ::rmdir(pattern.c_str());
}

TEST(RecordIo, ReadsBackEveryRecordWhateverTheRestartInterval) {
    for (const std::uint32_t restart_blocks : {0u, 1u, 3u, 16u}) {
        const Bytes file = written(1003, restart_blocks);
        MemorySource source(file);
        Reader reader(source);
        EXPECT_EQ(reader.header(), Bytes({'H', 'D', 'R', '1'}));
        for (std::size_t index = 0; index < 1003; ++index) {
            expect_record(reader, index);
        }
        TestRecord record;
        EXPECT_FALSE(reader.next(record));
    }
}

TEST(RecordIo, ASecondCloseDoesNothingAndAnAppendAfterCloseIsTheCallersError) {
    MemorySink sink;
    Writer writer(sink, {'H', 'D', 'R', '1'});
    writer.append(record_at(0));
    writer.close();
    const Bytes closed = sink.bytes();
    writer.close();
    EXPECT_EQ(sink.bytes(), closed);
    for (int form = 0; form < 2; ++form) {
        try {
            if (form == 0) {
                writer.append(record_at(1));
            } else {
                const std::uint8_t bytes[CountingCodec::record_bytes] = {};
                writer.append_bytes(bytes);
            }
            ADD_FAILURE() << "an append after close() was accepted";
        } catch (const Error& error) {
            EXPECT_STREQ(error.what(), "a record appended to a Writer after its close()");
        }
    }
    EXPECT_EQ(sink.bytes(), closed);
}

TEST(RecordIo, SeeksThroughTheBlockIndexWithoutDecodingWhatItSkips) {
    const Bytes file = written(1003, 3);  // 201 blocks of 5, restarts every 3
    MemorySource source(file);
    Reader reader(source);
    CountingCodec::blocks_decoded = 0;
    ASSERT_TRUE(reader.seek(990));
    expect_record(reader, 990);
    // Block 199 holds record 990; the restart point before it is block 199.
    EXPECT_LE(CountingCodec::blocks_decoded, 3u);
    std::mt19937 random(5);
    for (int step = 0; step < 300; ++step) {
        const std::size_t index = random() % 1003;
        ASSERT_TRUE(reader.seek(index));
        expect_record(reader, index);
        EXPECT_EQ(reader.position(), index + 1);
    }
    ASSERT_TRUE(reader.seek(1003));  // the end: no record there
    TestRecord record;
    EXPECT_FALSE(reader.next(record));
    EXPECT_FALSE(reader.seek(1004));
    ASSERT_TRUE(reader.seek(0));
    expect_record(reader, 0);
}

TEST(RecordIo, SeeksInBlocksOfTheWritersSizeNotTheCodecs) {
    for (const std::uint64_t block_records : {1u, 4u, 7u, 64u}) {
        const Bytes file = written(1003, 2, block_records);
        MemorySource source(file);
        Reader reader(source);
        std::mt19937 random(static_cast<unsigned>(block_records));
        for (int step = 0; step < 100; ++step) {
            const std::size_t index = random() % 1003;
            ASSERT_TRUE(reader.seek(index)) << block_records << "-record blocks";
            expect_record(reader, index);
        }
        CountingCodec::blocks_decoded = 0;
        ASSERT_TRUE(reader.seek(1002));
        expect_record(reader, 1002);
        // From the restart point before the last block: two blocks at most.
        EXPECT_LE(CountingCodec::blocks_decoded, 2u) << block_records << "-record blocks";
    }
}

TEST(RecordIo, AWriterRefusesABlockSmallerThanARecordOrLargerThanTheFormatAllows) {
    MemorySink sink;
    const std::uint64_t record_bytes = CountingCodec::record_bytes;
    for (const std::uint64_t block_bytes : {std::uint64_t{1}, record_bytes - 1, tcz_max_block_bytes + 1}) {
        try {
            Writer writer(sink, {'H', 'D', 'R', '1'}, {0, block_bytes, Backend::zstd});
            ADD_FAILURE() << "a block of " << block_bytes << " bytes was accepted";
        } catch (const Error& error) {
            EXPECT_EQ(std::string(error.what()), "a block holds 6 to 268435456 bytes (one record to the format's "
                                                 "limit), not " + std::to_string(block_bytes));
        }
    }
}

TEST(RecordIo, AWriterRefusesALevelAboveNine) {
    MemorySink sink;
    WriteOptions options;
    options.level = 10;
    try {
        Writer writer(sink, {'H', 'D', 'R', '1'}, options);
        ADD_FAILURE() << "level 10 was accepted";
    } catch (const Error& error) {
        EXPECT_EQ(std::string(error.what()), "compression level 10 is not in 0..9");
    }
}

TEST(RecordIo, SeeksWithoutRandomAccessOrWithoutAUsableIndex) {
    const Bytes file = written(500, 2);
    StreamOnly stream(file);
    Reader forward(stream);
    CountingCodec::blocks_decoded = 0;
    ASSERT_TRUE(forward.seek(480));
    expect_record(forward, 480);
    EXPECT_GE(CountingCodec::blocks_decoded, 97u);  // every block before it
    try {
        forward.seek(3);
        ADD_FAILURE() << "a backward seek in a stream succeeded";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "cannot seek backward in a .tcz read from a stream");
    }

    // Two files concatenated: the trailer at the end is the second's, so the
    // first has no usable index; seeks go back only to restart points read
    // past already, within the .tcz being read.
    Bytes both = file;
    both.insert(both.end(), file.begin(), file.end());
    MemorySource concatenated(both);
    Reader reader(concatenated);
    for (const std::size_t index : {300u, 12u, 499u, 500u, 999u, 700u, 501u}) {
        ASSERT_TRUE(reader.seek(index)) << index;
        expect_record(reader, index % 500);
    }
}

// The record count comes from the verified trailer at the end, before and
// after reading, read ahead or not; where that trailer cannot vouch for the
// whole input (a stream, a file cut short, two files one after the other)
// there is none.
TEST(RecordIo, TheRecordCountComesFromTheTrailerWhereItCoversTheFile) {
    const Bytes file = written(1003, 3);
    for (const ReadAhead read_ahead : {ReadAhead::on, ReadAhead::off}) {
        MemorySource source(file);
        Reader reader(source, read_ahead);
        EXPECT_EQ(reader.total_records(), std::optional<std::uint64_t>(1003));
        expect_record(reader, 0);
        EXPECT_EQ(reader.total_records(), std::optional<std::uint64_t>(1003));
        for (std::size_t index = 1; index < 1003; ++index) {
            expect_record(reader, index);
        }
        EXPECT_EQ(reader.total_records(), std::optional<std::uint64_t>(1003));
    }
    StreamOnly stream(file);
    EXPECT_FALSE(Reader(stream).total_records());
    const Bytes cut(file.begin(), file.end() - 1);
    MemorySource cut_source(cut);
    EXPECT_FALSE(Reader(cut_source).total_records());
    Bytes both = file;
    both.insert(both.end(), file.begin(), file.end());
    MemorySource concatenated(both);
    Reader reader(concatenated);
    EXPECT_FALSE(reader.total_records());
    ASSERT_TRUE(reader.seek(1500));
    EXPECT_FALSE(reader.total_records());
}

TEST(RecordIo, ADamagedIndexGivesAnErrorOrTheRightRecordNeverAWrongOne) {
    const Bytes file = written(300, 2);
    for (std::size_t back = 17; back <= 17 + 8 * 30 && back < file.size(); back += 3) {
        Bytes damaged = file;
        damaged[damaged.size() - back] ^= 0x21;
        MemorySource source(damaged);
        try {
            Reader reader(source);
            for (const std::size_t index : {250u, 20u, 299u, 0u}) {
                if (!reader.seek(index)) {
                    break;
                }
                expect_record(reader, index);
            }
            TestRecord record;
            while (reader.next(record)) {
            }
        } catch (const Error&) {
            // Refused, as it should be; what matters is that no wrong record came out first.
        }
    }
}

}  // namespace
}  // namespace tcgen_runtime
