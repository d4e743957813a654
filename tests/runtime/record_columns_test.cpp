// Records as columns on the test codec (blocks of 5 records, so that every
// read crosses blocks): column reads give what next() gives, in batches of
// any size, after skips and seeks, across concatenated files and up to the
// tail; a block at a time; any subset of the fields; the Writer's column
// append writes the bytes its record append writes; Columns' checks.

#include "runtime/record_columns.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/record_io.hpp"
#include "tests/runtime/stream_only.hpp"
#include "tests/runtime/test_codec.hpp"

namespace tcgen_runtime {
namespace {

using Bytes = std::vector<std::uint8_t>;
using tcgen_test::DeltaCodec;
using tcgen_test::TestRecord;
using Reader = RecordReader<DeltaCodec, TestRecord>;
using Writer = RecordWriter<DeltaCodec, TestRecord>;

// TestRecord's layout, as a generated header states its record's.
constexpr std::array<FieldLayout, 2> test_fields = {{
    {"counter", 16, 0},
    {"word", 32, 2},
}};

TestRecord record_at(std::size_t index) {
    return {static_cast<std::uint16_t>(index * 7), static_cast<std::uint32_t>(0x9000 + index / 3)};
}

// `records` records in blocks of 5, the predictors restarting every 3 blocks,
// then `tail` as a partial record.
Bytes written(std::size_t records, const Bytes& tail = {}) {
    MemorySink sink;
    Writer writer(sink, {'H', 'D', 'R', '1'}, {3, 0, Backend::zstd});
    for (std::size_t index = 0; index < records; ++index) {
        writer.append(record_at(index));
    }
    writer.close();
    if (tail.empty()) {
        return sink.bytes();
    }
    // The same records through the driver, which keeps a partial record.
    Bytes trace = {'H', 'D', 'R', '1'};
    for (std::size_t index = 0; index < records; ++index) {
        std::uint8_t bytes[TestRecord::bytes];
        record_at(index).store(bytes);
        trace.insert(trace.end(), bytes, bytes + sizeof bytes);
    }
    trace.insert(trace.end(), tail.begin(), tail.end());
    MemorySource source(trace);
    MemorySink with_tail;
    compress<DeltaCodec>(source, with_tail);
    return with_tail.bytes();
}

// Columns of `count` records from `first` on hold records first, first + 1, ...
// (modulo `period`, for concatenations of one file).
void expect_columns(const Columns& columns, std::size_t first, std::size_t period = SIZE_MAX) {
    const std::uint16_t* counters = columns.values<std::uint16_t>("counter");
    const std::uint32_t* words = columns.values<std::uint32_t>("word");
    for (std::size_t k = 0; k < columns.size(); ++k) {
        const TestRecord expected = record_at((first + k) % period);
        ASSERT_EQ(counters[k], expected.counter) << "record " << first + k;
        ASSERT_EQ(words[k], expected.word) << "record " << first + k;
    }
}

TEST(RecordColumns, BatchesOfAnySizeGiveTheRecordsInOrderUpToTheTail) {
    const Bytes tail = {1, 2, 3};
    const Bytes file = written(1003, tail);
    std::mt19937 random(46);
    for (int run = 0; run < 20; ++run) {
        MemorySource source(file);
        Reader reader(source);
        std::size_t position = 0;
        for (;;) {
            Columns columns(test_fields, 1 + random() % 40);
            const std::size_t read = reader.read_columns(columns);
            EXPECT_EQ(read, columns.size());
            expect_columns(columns, position);
            position += read;
            ASSERT_EQ(reader.position(), position);
            if (read < columns.capacity()) {
                break;
            }
        }
        EXPECT_EQ(position, 1003u);
        Columns after(test_fields, 8);
        EXPECT_EQ(reader.read_columns(after), 0u);
        EXPECT_EQ(reader.tail(), tail);
        EXPECT_EQ(reader.header(), Bytes({'H', 'D', 'R', '1'}));
    }
}

TEST(RecordColumns, ReadsFromWhereSkipsAndSeeksLeaveTheReader) {
    const Bytes file = written(1003);
    MemorySource source(file);
    Reader reader(source);
    Columns columns(test_fields, 17);
    std::mt19937 random(5);
    for (int step = 0; step < 200; ++step) {
        const std::size_t index = random() % 1010;
        if (step % 2 == 0) {
            ASSERT_EQ(reader.seek(index), index <= 1003) << index;
        } else {
            ASSERT_TRUE(reader.seek(0));
            EXPECT_EQ(reader.skip(index), std::min<std::size_t>(index, 1003)) << index;
        }
        const std::size_t from = std::min<std::size_t>(index, 1003);
        ASSERT_EQ(reader.read_columns(columns), std::min<std::size_t>(17, 1003 - from)) << index;
        expect_columns(columns, from);
        // Records and columns interleave.
        TestRecord record;
        if (reader.next(record)) {
            EXPECT_EQ(record.counter, record_at(from + 17).counter);
            ASSERT_EQ(reader.read_columns(columns), std::min<std::size_t>(17, 1003 - from - 18));
            expect_columns(columns, from + 18);
        }
    }
}

TEST(RecordColumns, ConcatenatedFilesGiveTheirRecordsInTurn) {
    const Bytes once = written(103);
    Bytes twice = once;
    twice.insert(twice.end(), once.begin(), once.end());
    for (const bool stream_only : {false, true}) {
        MemorySource memory(twice);
        StreamOnly stream(twice);
        Reader reader(stream_only ? static_cast<ByteSource&>(stream) : memory);
        Columns columns(test_fields, 60);
        std::size_t position = 0;
        while (reader.read_columns(columns) > 0) {
            expect_columns(columns, position, 103);
            position += columns.size();
        }
        EXPECT_EQ(position, 206u);
    }
}

TEST(RecordColumns, ABlockAtATime) {
    const Bytes file = written(103);
    MemorySource source(file);
    Reader reader(source);
    Columns columns(test_fields);
    EXPECT_EQ(reader.skip(2), 2u);
    EXPECT_EQ(reader.block_records_left(), 3u);
    std::vector<std::size_t> sizes;
    std::size_t position = 2;
    while (reader.read_block_columns(columns) > 0) {
        expect_columns(columns, position);
        position += columns.size();
        sizes.push_back(columns.size());
    }
    EXPECT_EQ(position, 103u);
    ASSERT_EQ(sizes.size(), 21u);
    EXPECT_EQ(sizes.front(), 3u);
    EXPECT_EQ(sizes[1], 5u);
    EXPECT_EQ(sizes.back(), 3u);
    EXPECT_EQ(reader.block_records_left(), 0u);
    EXPECT_EQ(columns.capacity(), 5u);  // one block's worth, whatever the file's length
}

TEST(RecordColumns, AnySubsetOfTheFieldsInAnyOrderIntoTheCallersArrays) {
    const Bytes file = written(50);
    MemorySource source(file);
    Reader reader(source);
    const FieldLayout word_then_low_byte[] = {test_fields[1], {"counter_low", 8, 0}};
    std::vector<std::uint32_t> words(50);
    std::vector<std::uint8_t> low_bytes(50);
    void* const columns[] = {words.data(), low_bytes.data()};
    ASSERT_EQ(reader.read_columns(word_then_low_byte, 2, columns, 64), 50u);
    for (std::size_t k = 0; k < 50; ++k) {
        ASSERT_EQ(words[k], record_at(k).word) << k;
        ASSERT_EQ(low_bytes[k], static_cast<std::uint8_t>(record_at(k).counter)) << k;
    }
}

TEST(RecordColumns, TheWritersColumnAppendWritesWhatItsRecordAppendWrites) {
    // More records than one batch of the column append, in pieces that
    // cross it and the blocks.
    const std::size_t count = 30011;
    Columns all(test_fields, count);
    all.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
        all.values<std::uint16_t>(0)[k] = record_at(k).counter;
        all.values<std::uint32_t>(1)[k] = record_at(k).word;
    }
    MemorySink by_columns;
    Writer column_writer(by_columns, {'H', 'D', 'R', '1'}, {3, 0, Backend::zstd});
    std::size_t done = 0;
    for (const std::size_t piece : {std::size_t{1}, std::size_t{4}, std::size_t{0}, std::size_t{12000},
                                    std::size_t{17000}, count}) {
        const std::size_t step = std::min(piece, count - done);
        const void* const columns[] = {all.values<std::uint16_t>(0) + done, all.values<std::uint32_t>(1) + done};
        column_writer.append_columns(test_fields.data(), 2, columns, step);
        done += step;
    }
    ASSERT_EQ(done, count);
    EXPECT_EQ(column_writer.records(), count);
    column_writer.close();
    EXPECT_EQ(by_columns.bytes(), written(count));

    // A byte no column covers is 0.
    MemorySink words_only;
    Writer word_writer(words_only, {'H', 'D', 'R', '1'});
    const FieldLayout word[] = {test_fields[1]};
    const void* const word_column[] = {all.values<std::uint32_t>(1)};
    word_writer.append_columns(word, 1, word_column, 10);
    word_writer.close();
    MemorySource source(words_only.bytes());
    Reader reader(source);
    TestRecord record;
    for (std::size_t k = 0; k < 10; ++k) {
        ASSERT_TRUE(reader.next(record));
        EXPECT_EQ(record.counter, 0u);
        EXPECT_EQ(record.word, record_at(k).word);
    }
    EXPECT_FALSE(reader.next(record));
}

std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

TEST(RecordColumns, WrongWidthsNamesAndFieldsAreErrors) {
    Columns columns(test_fields, 4);
    EXPECT_EQ(error_of([&] { columns.values<std::uint64_t>("word"); }),
              "column 'word' holds 32-bit values, not 64-bit");
    EXPECT_EQ(error_of([&] { columns.values<std::uint16_t>("address"); }), "no column is named 'address'");
    EXPECT_EQ(error_of([&] { columns.resize(5); }), "columns resized to 5 records hold at most 4");
    EXPECT_NE(columns.values<std::int32_t>("word"), nullptr);  // any integer of the width

    const FieldLayout twelve_bits[] = {{"odd", 12, 0}};
    EXPECT_EQ(error_of([&] { Columns odd(twelve_bits, 1, 4); }), "column 'odd' has 12 bits, not 8, 16, 32 or 64");
    const Bytes file = written(10);
    MemorySource source(file);
    Reader reader(source);
    const FieldLayout beyond[] = {{"beyond", 32, 4}};
    std::uint32_t values[10];
    void* const column[] = {values};
    EXPECT_EQ(error_of([&] { reader.read_columns(beyond, 1, column, 10); }),
              "column 'beyond' at byte 4 does not fit in a record of 6 bytes");
    EXPECT_EQ(reader.position(), 0u);

    MemorySink sink;
    Writer writer(sink, {'H', 'D', 'R', '1'});
    writer.close();
    EXPECT_EQ(error_of([&] { writer.append_columns(columns); }), "a record appended to a Writer after its close()");
}

TEST(RecordColumns, CopiesOwnTheirValuesAndColumnsStartOnEightBytes) {
    const FieldLayout odd_widths[] = {{"a", 8, 0}, {"b", 16, 1}, {"c", 64, 3}};
    Columns columns(odd_widths, 3, 3);
    columns.resize(3);
    for (std::size_t column = 0; column < 3; ++column) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(columns.data()[column]) % 8, 0u) << column;
    }
    columns.values<std::uint64_t>("c")[2] = 99;
    Columns copy = columns;
    copy.values<std::uint64_t>("c")[2] = 7;
    EXPECT_EQ(columns.values<std::uint64_t>("c")[2], 99u);
    EXPECT_EQ(copy.size(), 3u);
    columns.reserve(2);  // no smaller
    EXPECT_EQ(columns.size(), 3u);
    columns.reserve(100);  // grown: emptied
    EXPECT_EQ(columns.capacity(), 100u);
    EXPECT_EQ(columns.size(), 0u);
}

}  // namespace
}  // namespace tcgen_runtime
