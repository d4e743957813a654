// Records as ids (runtime/record_ids.hpp): the writer numbers distinct
// records in order of first appearance across blocks, hands the first
// appearances to the fields, and the reader rebuilds the very records from
// the ids and those; an id beyond the records known is refused; the table
// is emptied at a restart and once it holds max_kept_bytes, on both sides
// alike.

#include "runtime/record_ids.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/error.hpp"

namespace tcgen_runtime {
namespace {

constexpr std::size_t record_bytes = 6;
// A table emptied once it holds 100 records or more.
using Ids = RecordIds<record_bytes, 100 * record_bytes>;

std::vector<std::uint8_t> record_of(std::uint32_t value) {
    return {static_cast<std::uint8_t>(value),
            static_cast<std::uint8_t>(value >> 8),
            static_cast<std::uint8_t>(value >> 16),
            static_cast<std::uint8_t>(value >> 24),
            0xA5,
            static_cast<std::uint8_t>(value * 7)};
}

std::vector<std::uint8_t> records_of(const std::vector<std::uint32_t>& values) {
    std::vector<std::uint8_t> records;
    for (const std::uint32_t value : values) {
        const std::vector<std::uint8_t> record = record_of(value);
        records.insert(records.end(), record.begin(), record.end());
    }
    return records;
}

std::vector<std::uint32_t> ids_in(const StreamWriter& stream) {
    std::vector<std::uint32_t> ids(stream.size() / 4);
    for (std::size_t index = 0; index < ids.size(); ++index) {
        ids[index] = load_le<std::uint32_t>(stream.data() + 4 * index);
    }
    return ids;
}

// One block through a writer and a reader: the reader's records must be the
// writer's; returns the ids written.
std::vector<std::uint32_t> round_trip(Ids& writer, Ids& reader, const std::vector<std::uint8_t>& records) {
    const std::size_t count = records.size() / record_bytes;
    StreamWriter stream;
    std::vector<std::uint8_t> fresh;
    writer.encode(records.data(), count, stream, fresh);
    StreamReader ids("ids", stream.data(), stream.size());
    const std::size_t new_records = reader.read_ids(ids, count);
    EXPECT_TRUE(ids.at_end());
    EXPECT_EQ(new_records * record_bytes, fresh.size());
    std::vector<std::uint8_t> rebuilt(records.size());
    reader.write_records(fresh.data(), rebuilt.data());
    EXPECT_EQ(rebuilt, records);
    return ids_in(stream);
}

TEST(RecordIds, DistinctRecordsAreNumberedInOrderOfFirstAppearanceAcrossBlocks) {
    Ids writer;
    Ids reader;
    EXPECT_EQ(round_trip(writer, reader, records_of({7, 9, 7, 7, 3, 9})),
              (std::vector<std::uint32_t>{0, 1, 0, 0, 2, 1}));
    // The second block knows the first's records.
    EXPECT_EQ(round_trip(writer, reader, records_of({3, 11, 7})), (std::vector<std::uint32_t>{2, 3, 0}));
    EXPECT_EQ(writer.distinct(), 4u);
    EXPECT_EQ(reader.distinct(), 4u);
}

TEST(RecordIds, OnlyFirstAppearancesReachTheFields) {
    Ids writer;
    const std::vector<std::uint8_t> records = records_of({5, 6, 5, 6, 8, 5});
    StreamWriter stream;
    std::vector<std::uint8_t> fresh;
    writer.encode(records.data(), 6, stream, fresh);
    EXPECT_EQ(fresh, records_of({5, 6, 8}));
}

TEST(RecordIds, ManyDistinctRecordsRoundTrip) {
    // Enough distinct records to grow the writer's index several times.
    std::mt19937 random(12);
    std::vector<std::uint32_t> values;
    for (int index = 0; index < 40000; ++index) {
        values.push_back(static_cast<std::uint32_t>(random() % 9000));
    }
    Ids writer;
    Ids reader;
    for (std::size_t block = 0; block < 4; ++block) {
        const std::vector<std::uint32_t> part(values.begin() + static_cast<std::ptrdiff_t>(block * 10000),
                                              values.begin() + static_cast<std::ptrdiff_t>((block + 1) * 10000));
        round_trip(writer, reader, records_of(part));
    }
    EXPECT_EQ(writer.distinct(), reader.distinct());
    EXPECT_LE(writer.distinct(), 9000u);
}

TEST(RecordIds, ARestartNumbersFromZeroAgain) {
    Ids writer;
    Ids reader;
    round_trip(writer, reader, records_of({1, 2, 3}));
    writer.restart();
    reader.restart();
    EXPECT_EQ(round_trip(writer, reader, records_of({3, 1})), (std::vector<std::uint32_t>{0, 1}));
}

TEST(RecordIds, AFullTableIsEmptiedAtTheNextBlockOnBothSides) {
    Ids writer;
    Ids reader;
    std::vector<std::uint32_t> values(100);
    for (std::size_t index = 0; index < values.size(); ++index) {
        values[index] = static_cast<std::uint32_t>(index);
    }
    round_trip(writer, reader, records_of(values));
    EXPECT_EQ(writer.distinct(), 100u);
    // The next block starts afresh: a record seen before is new again.
    EXPECT_EQ(round_trip(writer, reader, records_of({5, 5})), (std::vector<std::uint32_t>{0, 0}));
    EXPECT_EQ(reader.distinct(), 1u);
}

TEST(RecordIds, AnIdBeyondTheRecordsKnownIsRefused) {
    Ids reader;
    // 0 is new, 1 is new, 3 skips 2.
    StreamWriter forged;
    for (const std::uint32_t id : {0u, 1u, 0u, 3u}) {
        forged.put<std::uint32_t>(id);
    }
    StreamReader ids("ids", forged.data(), forged.size());
    try {
        reader.read_ids(ids, 4);
        FAIL() << "a forged id was accepted";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(),
                     "corrupt input: record 3 of the block has id 3, beyond the 2 distinct records before it");
    }
}

TEST(RecordIds, AShortIdsStreamIsRefused) {
    Ids reader;
    StreamWriter forged;
    forged.put<std::uint32_t>(0);
    StreamReader ids("ids", forged.data(), forged.size());
    try {
        reader.read_ids(ids, 2);
        FAIL() << "a short stream was accepted";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "corrupt input: stream 'ids' ends early");
    }
}

}  // namespace
}  // namespace tcgen_runtime
