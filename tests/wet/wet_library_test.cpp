// libtcgen_wet as a user links it: every stream type generated from
// specs/wet/ walked at random (steps both ways, seeks, saves and loads in the
// middle of a walk) and compared with the records it was built from, on
// lengths from 0 to long and on data shaped like real WET streams; and its
// saved streams refused when they are foreign, corrupt or truncated.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <tcgen/wet.hpp>

#include "tests/test_scale.hpp"

namespace {

// Records of a stream type, each field filled by `shape`: 0 random, 1
// increasing with a few strides (timestamps of a loop), 2 a short cycle of
// values, 3 constant, 4 mostly new values.
template <class Record>
std::vector<Record> make_records(std::size_t count, int shape, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<Record> records(count);
    constexpr std::size_t fields = sizeof(Record) / sizeof(Record{}.field1);
    std::uint64_t running[8] = {};
    for (std::size_t index = 0; index < count; ++index) {
        auto* values = &records[index].field1;
        for (std::size_t field = 0; field < fields; ++field) {
            std::uint64_t value = 0;
            switch (shape) {
            case 0: value = random(); break;
            case 1: running[field] += random() % 8 == 0 ? 3 + random() % 40 : 7; value = running[field]; break;
            case 2: value = 1000 + (index % 5) * 77 + field; break;
            case 3: value = 42; break;
            default: value = random() % 4 == 0 ? index : random(); break;
            }
            values[field] = static_cast<std::remove_reference_t<decltype(values[field])>>(value);
        }
    }
    return records;
}

template <class Record>
bool same(const Record& a, const Record& b) {
    return std::memcmp(&a, &b, sizeof(Record)) == 0;
}

template <class Stream>
void random_walk(const std::vector<typename Stream::Record>& records, std::uint64_t seed) {
    using Record = typename Stream::Record;
    Stream stream = Stream::build(records.data(), records.size());
    ASSERT_EQ(stream.size(), records.size());
    ASSERT_TRUE(stream.at_begin());
    std::mt19937_64 random(seed);
    Record record{};
    for (int step = 0; step < tcgen_test::scaled(4000); ++step) {
        const std::uint64_t p = stream.position();
        switch (random() % 8) {
        case 0: case 1: case 2:
            if (p < records.size()) {
                ASSERT_TRUE(stream.next(record));
                ASSERT_TRUE(same(record, records[p])) << "forward at " << p;
            } else {
                ASSERT_FALSE(stream.next(record));
                ASSERT_TRUE(stream.at_end());
            }
            break;
        case 3: case 4: case 5:
            if (p > 0) {
                ASSERT_TRUE(stream.prev(record));
                ASSERT_TRUE(same(record, records[p - 1])) << "backward at " << p;
            } else {
                ASSERT_FALSE(stream.prev(record));
                ASSERT_TRUE(stream.at_begin());
            }
            break;
        case 6:
            stream.seek(random() % (records.size() + 1));
            break;
        default: {
            const std::vector<std::uint8_t> saved = stream.save();
            stream = Stream::load(saved.data(), saved.size());
            ASSERT_EQ(stream.position(), p);
            break;
        }
        }
    }
    stream.seek(records.size());
    for (std::size_t index = records.size(); index-- > 0;) {
        ASSERT_TRUE(stream.prev(record));
        ASSERT_TRUE(same(record, records[index])) << "end to start at " << index;
    }
    for (std::size_t index = 0; index < records.size(); ++index) {
        ASSERT_TRUE(stream.next(record));
        ASSERT_TRUE(same(record, records[index])) << "start to end at " << index;
    }
    EXPECT_FALSE(stream.description().empty());
    EXPECT_GT(stream.memory_bytes(), 0u);
}

template <class Stream>
class WetStream : public ::testing::Test {};

using StreamTypes = ::testing::Types<tcgen::wet::NodeTimestamps, tcgen::wet::NodeValues, tcgen::wet::EdgeTimestamps>;

// The streams' names in the tests' names (and a third argument, without
// which clang warns that the macro's variadic part is empty).
struct StreamNames {
    template <class Stream>
    static std::string GetName(int) {
        if (std::is_same_v<Stream, tcgen::wet::NodeTimestamps>) {
            return "NodeTimestamps";
        }
        if (std::is_same_v<Stream, tcgen::wet::NodeValues>) {
            return "NodeValues";
        }
        return "EdgeTimestamps";
    }
};
TYPED_TEST_SUITE(WetStream, StreamTypes, StreamNames);

TYPED_TEST(WetStream, RandomWalksAreExact) {
    using Record = typename TypeParam::Record;
    for (std::size_t count : {0, 1, 2, 3, 4, 9, 300, 30000}) {
        for (int shape = 0; shape < 5; ++shape) {
            SCOPED_TRACE("count " + std::to_string(count) + ", shape " + std::to_string(shape));
            random_walk<TypeParam>(make_records<Record>(count, shape, count * 7 + static_cast<unsigned>(shape)),
                                   count + static_cast<unsigned>(shape));
            if (::testing::Test::HasFatalFailure()) {
                return;
            }
        }
    }
}

TYPED_TEST(WetStream, FromBytesReadsLittleEndianRecords) {
    using Record = typename TypeParam::Record;
    const std::vector<Record> records = make_records<Record>(100, 1, 5);
    std::vector<std::uint8_t> raw;
    for (const Record& record : records) {
        const auto* values = &record.field1;
        for (std::size_t field = 0; field < sizeof(Record) / sizeof(record.field1); ++field) {
            for (std::size_t byte = 0; byte < sizeof(record.field1); ++byte) {
                raw.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(values[field]) >> (8 * byte)));
            }
        }
    }
    ASSERT_EQ(raw.size(), records.size() * TypeParam::record_bytes);
    TypeParam stream = TypeParam::from_bytes(raw.data(), raw.size());
    Record record{};
    for (const Record& expected : records) {
        ASSERT_TRUE(stream.next(record));
        ASSERT_TRUE(same(record, expected));
    }
    EXPECT_THROW(TypeParam::from_bytes(raw.data(), raw.size() - 1), std::runtime_error);
}

TYPED_TEST(WetStream, CorruptAndTruncatedStreamsAreRefused) {
    using Record = typename TypeParam::Record;
    const std::vector<Record> records = make_records<Record>(500, 4, 9);
    TypeParam stream = TypeParam::build(records.data(), records.size());
    stream.seek(200);
    const std::vector<std::uint8_t> saved = stream.save();
    for (std::size_t size = 0; size < saved.size(); ++size) {
        EXPECT_THROW(TypeParam::load(saved.data(), size), std::runtime_error) << "truncated to " << size;
    }
    for (std::size_t at = 0; at < saved.size(); ++at) {
        std::vector<std::uint8_t> flipped = saved;
        flipped[at] ^= 0x10;
        EXPECT_THROW(TypeParam::load(flipped.data(), flipped.size()), std::runtime_error) << "byte " << at;
    }
    std::vector<std::uint8_t> longer = saved;
    longer.push_back(0);
    EXPECT_THROW(TypeParam::load(longer.data(), longer.size()), std::runtime_error);
}

TEST(WetStreams, AStreamOfAnotherSpecIsRefusedByName) {
    const std::vector<tcgen::wet::NodeTimestamps::Record> records = make_records<tcgen::wet::NodeTimestamps::Record>(50, 1, 3);
    const std::vector<std::uint8_t> saved = tcgen::wet::NodeTimestamps::build(records.data(), records.size()).save();
    try {
        tcgen::wet::NodeValues::load(saved.data(), saved.size());
        FAIL() << "loaded a stream of another spec";
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find("a stream of another spec"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("node_values"), std::string::npos) << error.what();
    }
}

TEST(WetStreams, SeekPastTheEndIsAnError) {
    const std::vector<tcgen::wet::NodeValues::Record> records = make_records<tcgen::wet::NodeValues::Record>(10, 0, 1);
    tcgen::wet::NodeValues stream = tcgen::wet::NodeValues::build(records.data(), records.size());
    EXPECT_THROW(stream.seek(11), std::runtime_error);
    stream.seek(10);
    EXPECT_TRUE(stream.at_end());
}

TEST(WetStreams, EveryKindIsReachableByName) {
    std::size_t found = 0;
    for (std::string_view kind : tcgen::wet::kinds) {
        EXPECT_TRUE(tcgen::wet::visit_kind(kind, [&](auto* type) {
            using Stream = std::remove_pointer_t<decltype(type)>;
            EXPECT_EQ(Stream::spec_name, kind);
            ++found;
        }));
    }
    EXPECT_EQ(found, std::size(tcgen::wet::kinds));
    EXPECT_FALSE(tcgen::wet::visit_kind("no_such_kind", [](auto*) {}));
}

// The selection (WET paper §4.4) picks a differential FCM for a constant
// stride, which no plain FCM or last-n can follow.
TEST(WetStreams, SelectionPicksADifferentialPredictorForStrides) {
    std::vector<tcgen::wet::NodeTimestamps::Record> records(5000);
    for (std::size_t index = 0; index < records.size(); ++index) {
        records[index].field1 = static_cast<std::uint32_t>(100 + 13 * index);
    }
    const tcgen::wet::NodeTimestamps stream = tcgen::wet::NodeTimestamps::build(records.data(), records.size());
    EXPECT_EQ(stream.description().rfind("field 1: DFCM", 0), 0u) << stream.description();
    EXPECT_LT(stream.compressed_bits(), 200u) << stream.description();
}

}  // namespace
