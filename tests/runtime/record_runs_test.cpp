#include "runtime/record_runs.hpp"

#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

constexpr std::size_t record_bytes = 5;
using Runs = RecordRuns<record_bytes>;

// A stand-in for a generated codec around RecordRuns: a record coded field
// by field is its bytes in the codes stream; learning counts, and counts
// apart the records learnt as coded (a block the cost chose).
struct Coded {
    std::vector<std::uint8_t> codes;
    std::size_t coded = 0;
    std::size_t learned = 0;
    std::size_t learned_as_coded = 0;
    std::size_t uncounted = 0;  // coded, then copied instead
};

struct Learned {
    std::size_t records = 0;
    std::size_t as_coded = 0;
};

Coded encode(Runs& runs, const std::vector<std::uint8_t>& records) {
    Coded result;
    StreamWriter codes;
    runs.encode(
        records.data(), records.size() / record_bytes, &codes, 1,
        [&](const std::uint8_t* record) {
            codes.put_bytes(record, record_bytes);
            ++result.coded;
        },
        [&](const std::uint8_t*, auto as_coded) {
            ++result.learned;
            result.learned_as_coded += as_coded ? 1 : 0;
        },
        [&](const std::uint8_t*) { ++result.uncounted; });
    result.codes.assign(codes.data(), codes.data() + codes.size());
    return result;
}

std::vector<std::uint8_t> decode(Runs& runs, const std::vector<std::uint8_t>& codes, std::size_t count,
                                 Learned* learned = nullptr) {
    std::vector<std::uint8_t> records(count * record_bytes);
    StreamReader reader("codes", codes.data(), codes.size());
    Learned calls;
    runs.decode(
        reader, count, records.data(), [&](std::uint8_t* record) { reader.get_bytes(record, record_bytes); },
        [&](const std::uint8_t*, auto as_coded) {
            ++calls.records;
            calls.as_coded += as_coded ? 1 : 0;
        });
    if (!reader.at_end()) {
        throw std::runtime_error("codes left unread");
    }
    if (learned != nullptr) {
        *learned = calls;
    }
    return records;
}

std::vector<std::uint8_t> record_of(std::uint32_t value) {
    return {static_cast<std::uint8_t>(value), static_cast<std::uint8_t>(value >> 8),
            static_cast<std::uint8_t>(value >> 16), static_cast<std::uint8_t>(value >> 24), 0x5A};
}

// A loop of `period` distinct records, `laps` times over.
std::vector<std::uint8_t> loop_trace(std::uint32_t period, std::uint32_t laps) {
    std::vector<std::uint8_t> records;
    for (std::uint32_t lap = 0; lap < laps; ++lap) {
        for (std::uint32_t step = 0; step < period; ++step) {
            const std::vector<std::uint8_t> record = record_of(step * 7919u);
            records.insert(records.end(), record.begin(), record.end());
        }
    }
    return records;
}

std::vector<std::uint8_t> random_trace(std::size_t count, std::uint32_t distinct, unsigned seed) {
    std::mt19937 random(seed);
    std::vector<std::uint8_t> records;
    for (std::size_t i = 0; i < count; ++i) {
        const std::vector<std::uint8_t> record = record_of(static_cast<std::uint32_t>(random() % distinct));
        records.insert(records.end(), record.begin(), record.end());
    }
    return records;
}

// A loop of `period` distinct records, then `noise` random ones, `laps`
// times over: runs of about `period` records.
std::vector<std::uint8_t> loop_between_noise(std::uint32_t period, std::size_t noise, unsigned laps) {
    std::vector<std::uint8_t> records;
    for (unsigned lap = 0; lap < laps; ++lap) {
        const std::vector<std::uint8_t> loop = loop_trace(period, 1);
        records.insert(records.end(), loop.begin(), loop.end());
        const std::vector<std::uint8_t> random = random_trace(noise, 1u << 30, lap);
        records.insert(records.end(), random.begin(), random.end());
    }
    return records;
}

TEST(RecordRuns, ALoopIsCodedAsOneRunAfterItsFirstLap) {
    const std::vector<std::uint8_t> records = loop_trace(50, 40);
    Runs writer;
    writer.learn_every_record(true);
    const Coded coded = encode(writer, records);
    // The first lap and the first record of the second (whose predecessor had
    // never been followed) are coded field by field; the rest is one run.
    EXPECT_EQ(coded.coded, 51u);
    EXPECT_EQ(coded.learned, 2000u - 51u);
    ASSERT_FALSE(coded.codes.empty());
    EXPECT_EQ(coded.codes[0], 1u);  // runs used in this block, learnt whole
    // The scan chose the runs: the fields learn all a copy can teach them.
    EXPECT_EQ(coded.learned_as_coded, 0u);
    Runs reader;
    Learned learned;
    EXPECT_EQ(decode(reader, coded.codes, 2000, &learned), records);
    EXPECT_EQ(learned.records, coded.learned);
    EXPECT_EQ(learned.as_coded, 0u);
}

TEST(RecordRuns, ALongRunIsLearntByItsTail) {
    const std::vector<std::uint8_t> records = loop_trace(50, 40);
    Runs writer;
    std::vector<const std::uint8_t*> learned_by_writer;
    StreamWriter codes;
    writer.encode(
        records.data(), 2000, &codes, 1, [&](const std::uint8_t* record) { codes.put_bytes(record, record_bytes); },
        [&](const std::uint8_t* record, auto) { learned_by_writer.push_back(record); }, [](const std::uint8_t*) {});
    ASSERT_GT(codes.size(), 0u);
    EXPECT_EQ(codes.data()[0], 2u);  // runs used, learnt by their tails
    // The run covers records 51..1999: the fields learn its last four.
    const std::vector<const std::uint8_t*> tail = {
        records.data() + 1996 * record_bytes, records.data() + 1997 * record_bytes,
        records.data() + 1998 * record_bytes, records.data() + 1999 * record_bytes};
    EXPECT_EQ(learned_by_writer, tail);

    Runs reader;
    std::vector<std::uint8_t> decoded(records.size());
    std::vector<std::size_t> learned_by_reader;
    StreamReader reader_codes("codes", codes.data(), codes.size());
    reader.decode(
        reader_codes, 2000, decoded.data(), [&](std::uint8_t* record) { reader_codes.get_bytes(record, record_bytes); },
        [&](const std::uint8_t* record, auto) {
            learned_by_reader.push_back(static_cast<std::size_t>(record - decoded.data()) / record_bytes);
        });
    EXPECT_EQ(decoded, records);
    EXPECT_EQ(learned_by_reader, (std::vector<std::size_t>{1996, 1997, 1998, 1999}));
}

TEST(RecordRuns, ShortRunsAreLearntWhole) {
    // Loops of 20 records between random ones: runs of about 20, too short
    // for their middles to go unlearnt.
    // Where speed comes first they are learnt as coded (flag 4), else all
    // a copy can teach (flag 1).
    const std::vector<std::uint8_t> records = loop_between_noise(20, 3, 100);
    const std::size_t count = records.size() / record_bytes;
    for (const bool every : {false, true}) {
        Runs writer;
        writer.learn_every_record(every);
        const Coded coded = encode(writer, records);
        EXPECT_EQ(coded.codes[0], every ? 1u : 4u);
        EXPECT_EQ(coded.coded + coded.learned, count);
        EXPECT_EQ(coded.learned_as_coded, every ? 0u : coded.learned);
        Runs reader;
        Learned learned;
        EXPECT_EQ(decode(reader, coded.codes, count, &learned), records);
        EXPECT_EQ(learned.records, coded.learned);
        EXPECT_EQ(learned.as_coded, coded.learned_as_coded);
    }
}

TEST(RecordRuns, RandomRecordsAreCodedFieldByField) {
    const std::vector<std::uint8_t> records = random_trace(3000, 1000, 1);
    Runs writer;
    const Coded coded = encode(writer, records);
    EXPECT_EQ(coded.codes[0], 0u);
    EXPECT_EQ(coded.coded, 3000u);
    EXPECT_EQ(coded.codes.size(), 1 + 3000 * record_bytes);
    Runs reader;
    EXPECT_EQ(decode(reader, coded.codes, 3000), records);
}

// RECORDS coded as one block: within the codes' bound per record, and
// decoded back by a fresh reader.
void expect_round_trip_within_bound(const std::vector<std::uint8_t>& records, unsigned seed) {
    const std::size_t count = records.size() / record_bytes;
    Runs writer;
    const Coded coded = encode(writer, records);
    EXPECT_LE(coded.codes.size(), count * (record_bytes + record_runs_bytes_per_record)) << seed;
    Runs reader;
    EXPECT_EQ(decode(reader, coded.codes, count), records) << seed;
}

TEST(RecordRuns, MixedTracesRoundTripAndStayWithinTheirBound) {
    for (unsigned seed = 0; seed < 40; ++seed) {
        std::mt19937 random(seed);
        std::vector<std::uint8_t> records;
        // Stretches of loops of varied periods, some repeating earlier ones,
        // between random records: runs of every length, overlapping copies
        // (period 1 and 2) and wrong predictions.
        while (records.size() < 20000 * record_bytes) {
            const std::uint32_t period = 1 + static_cast<std::uint32_t>(random() % (seed % 4 == 0 ? 3 : 60));
            const std::uint32_t laps = 1 + static_cast<std::uint32_t>(random() % 30);
            const std::vector<std::uint8_t> loop = loop_trace(period, laps);
            records.insert(records.end(), loop.begin(), loop.end());
            const std::vector<std::uint8_t> noise = random_trace(random() % 20, 50, seed);
            records.insert(records.end(), noise.begin(), noise.end());
        }
        expect_round_trip_within_bound(records, seed);
    }
}

TEST(RecordRuns, EveryBlockStartsAfresh) {
    // The second block repeats the first: nothing carries over, so it is
    // coded exactly as the first was.
    const std::vector<std::uint8_t> records = loop_trace(30, 20);
    Runs writer;
    const Coded first = encode(writer, records);
    const Coded second = encode(writer, records);
    EXPECT_EQ(first.codes, second.codes);
    Runs reader;
    EXPECT_EQ(decode(reader, first.codes, 600), records);
    EXPECT_EQ(decode(reader, second.codes, 600), records);
}

TEST(RecordRuns, AnEmptyBlockWritesNothing) {
    Runs writer;
    EXPECT_TRUE(encode(writer, {}).codes.empty());
    Runs reader;
    EXPECT_TRUE(decode(reader, {}, 0).empty());
}

TEST(RecordRuns, TheReportCountsCopiedRecords) {
    Runs writer;
    encode(writer, loop_trace(50, 40));
    std::FILE* out = std::tmpfile();
    ASSERT_NE(out, nullptr);
    writer.write_report(out);
    std::rewind(out);
    char line[200] = {};
    ASSERT_NE(std::fgets(line, sizeof line, out), nullptr);
    std::fclose(out);
    EXPECT_EQ(std::string(line),
              "whole-record runs: 1949 of 2000 records copied from earlier ones, in 1 runs; the predictors "
              "learnt 4 of them\n");
}

std::string decode_error(const std::vector<std::uint8_t>& codes, std::size_t count) {
    Runs reader;
    try {
        decode(reader, codes, count);
    } catch (const std::exception& error) {
        return error.what();
    }
    return "no error";
}

TEST(RecordRuns, CorruptCodesAreRefused) {
    const std::vector<std::uint8_t> records = loop_trace(50, 40);
    Runs writer;
    std::vector<std::uint8_t> codes = encode(writer, records).codes;

    std::vector<std::uint8_t> bad_flag = codes;
    bad_flag[0] = 5;
    EXPECT_EQ(decode_error(bad_flag, 2000), "corrupt input: invalid run flag 5 in the codes stream");

    // The run's length comes after the 51 records coded field by field.
    const std::size_t length_at = 1 + 51 * record_bytes;
    std::vector<std::uint8_t> too_long(codes.begin(), codes.begin() + static_cast<std::ptrdiff_t>(length_at));
    too_long.insert(too_long.end(), {0xD0, 0x0F});  // 2000: more than the 1949 records left
    EXPECT_EQ(decode_error(too_long, 2000), "corrupt input: a run of 2000 records where 1949 remain in the block");

    std::vector<std::uint8_t> endless(codes.begin(), codes.begin() + static_cast<std::ptrdiff_t>(length_at));
    endless.insert(endless.end(), 10, 0xFF);
    EXPECT_EQ(decode_error(endless, 2000), "corrupt input: a run length longer than 64 bits in the codes stream");

    std::vector<std::uint8_t> cut(codes.begin(), codes.begin() + static_cast<std::ptrdiff_t>(length_at));
    EXPECT_EQ(decode_error(cut, 2000), "corrupt input: stream 'codes' ends early");
}

// Short stretches of records that recur in another order, far apart: runs
// (the record after the last equal one) seldom hold, matches of a few
// records do.
std::vector<std::uint8_t> shuffled_segments_trace(std::size_t count, unsigned seed) {
    std::mt19937 random(seed);
    std::vector<std::vector<std::uint8_t>> segments(300);
    for (std::vector<std::uint8_t>& segment : segments) {
        segment = random_trace(2 + random() % 7, 1u << 30, static_cast<unsigned>(random()));
    }
    std::vector<std::uint8_t> records;
    while (records.size() < count * record_bytes) {
        const std::vector<std::uint8_t>& segment = segments[random() % segments.size()];
        records.insert(records.end(), segment.begin(), segment.end());
        if (random() % 8 == 0) {
            const std::vector<std::uint8_t> noise = random_trace(1, 1u << 30, static_cast<unsigned>(random()));
            records.insert(records.end(), noise.begin(), noise.end());
        }
    }
    records.resize(count * record_bytes);
    return records;
}

TEST(RecordRuns, ShortRepeatsAreCodedAsRecordMatches) {
    const std::vector<std::uint8_t> records = shuffled_segments_trace(20000, 7);
    Runs writer;
    const Coded coded = encode(writer, records);
    EXPECT_EQ(coded.codes[0], 3u);  // record matches
    // Every record was coded once for the choice; those a match copies are
    // taken back from the usage counts.
    EXPECT_EQ(coded.coded, 20000u);
    EXPECT_EQ(coded.learned, 0u);
    EXPECT_LT(coded.coded - coded.uncounted, 20000u / 4);
    EXPECT_LE(coded.codes.size(), 20000 * (record_bytes + record_runs_bytes_per_record));
    Runs reader;
    Learned learned;
    EXPECT_EQ(decode(reader, coded.codes, 20000, &learned), records);
    // Every copied record is learnt, as coding it would have been.
    EXPECT_EQ(learned.records, coded.uncounted);
    EXPECT_EQ(learned.as_coded, coded.uncounted);
}

TEST(RecordRuns, WithoutLongRunsTheEstimateChooses) {
    const std::vector<std::uint8_t> records = shuffled_segments_trace(20000, 7);
    // An estimate that finds the most bytes cheapest (the block coded field
    // by field, flag 0, which copies nothing), and one that charges for
    // every byte.
    const auto plain_is_cheapest = [](std::size_t, const std::uint8_t*, std::size_t size) {
        return (std::uint64_t{1} << 40) - size;
    };
    const auto bytes = [](std::size_t, const std::uint8_t*, std::size_t size) { return std::uint64_t{size}; };
    for (const bool plain : {true, false}) {
        Runs writer;
        writer.estimate_with(plain ? StreamCostEstimate(plain_is_cheapest) : StreamCostEstimate(bytes));
        const Coded coded = encode(writer, records);
        EXPECT_EQ(coded.codes[0], plain ? 0u : 3u);
        EXPECT_EQ(coded.uncounted, plain ? 0u : writer.records_in_runs());
        Runs reader;
        EXPECT_EQ(decode(reader, coded.codes, 20000), records);
    }
}

TEST(RecordRuns, ShortRunsWinWhereTheyCopyMost) {
    // Loops of 12 records between random ones: runs too short to decide by
    // the scan, which copy most of the block and save its bytes.
    const std::vector<std::uint8_t> records = loop_between_noise(12, 8, 400);
    Runs writer;
    const Coded coded = encode(writer, records);
    EXPECT_EQ(coded.codes[0], 4u);  // runs chosen by the cost, learnt as coded
    EXPECT_EQ(coded.uncounted, writer.records_in_runs());
    EXPECT_GT(coded.uncounted, records.size() / record_bytes / 3);
    Runs reader;
    Learned learned;
    EXPECT_EQ(decode(reader, coded.codes, records.size() / record_bytes, &learned), records);
    EXPECT_EQ(learned.records, coded.uncounted);
    EXPECT_EQ(learned.as_coded, coded.uncounted);
}

TEST(RecordRuns, RecordMatchesRoundTripOnEveryMix) {
    for (unsigned seed = 0; seed < 20; ++seed) {
        // Segments, loops (overlapping copies) and noise, and blocks of a
        // few records, so that every path of the parse is taken.
        std::mt19937 random(seed);
        std::vector<std::uint8_t> records = shuffled_segments_trace(1 + random() % 5000, seed);
        const std::vector<std::uint8_t> loop =
            loop_trace(1 + static_cast<std::uint32_t>(random() % 3), 1 + static_cast<std::uint32_t>(random() % 40));
        records.insert(records.begin() + static_cast<std::ptrdiff_t>(records.size() / record_bytes / 2 * record_bytes),
                       loop.begin(), loop.end());
        expect_round_trip_within_bound(records, seed);
    }
}

TEST(RecordRuns, ForgedRecordMatchesAreRefused) {
    // Flag 3, record 0 coded field by field (token 0, then its bytes), then a
    // match at record 1.
    const std::vector<std::uint8_t> first = {3, 0, 1, 2, 3, 4, 5};
    const auto with = [&](std::vector<std::uint8_t> tail) {
        std::vector<std::uint8_t> codes = first;
        codes.insert(codes.end(), tail.begin(), tail.end());
        return codes;
    };
    const std::uint8_t explicit_token = 65;
    EXPECT_EQ(decode_error(with({explicit_token, 0, 5}), 3),
              "corrupt input: a match from 6 records back where 1 precede it in the block");
    EXPECT_EQ(decode_error(with({explicit_token, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F}), 3),
              "corrupt input: a match from 4294967296 records back where 1 precede it in the block");
    EXPECT_EQ(decode_error(with({explicit_token, 10, 0}), 3),
              "corrupt input: a match of 11 records where 2 remain in the block");
    EXPECT_EQ(decode_error(with({explicit_token, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}), 3),
              "corrupt input: a match of 0 records where 2 remain in the block");
    EXPECT_EQ(decode_error(with({1, 0}), 3),
              "corrupt input: a match from context candidate 1, beyond the block's candidates");
    EXPECT_EQ(decode_error(with({explicit_token + 1, 0}), 3),
              "corrupt input: invalid match token 66 in the codes stream");
    EXPECT_EQ(decode_error(with({explicit_token, 0}), 3), "corrupt input: stream 'codes' ends early");
    // A valid match from the record before, and a candidate: the record
    // before record 2 (record 1, a copy of record 0) was preceded by record 0
    // at record 1, so candidate 1 is record 1, and candidate 2 is beyond.
    EXPECT_EQ(decode_error(with({explicit_token, 0, 0, 1, 0}), 3), "no error");
    EXPECT_EQ(decode_error(with({explicit_token, 0, 0, 2, 0}), 3),
              "corrupt input: a match from context candidate 2, beyond the block's candidates");
}

}  // namespace
}  // namespace tcgen_runtime
