#include "runtime/streams.hpp"

#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

TEST(StreamWriter, PutsLittleEndianValuesAndBytes) {
    StreamWriter writer;
    EXPECT_EQ(writer.size(), 0u);
    writer.put<std::uint8_t>(0x11);
    writer.put<std::uint16_t>(0x2233);
    writer.put<std::uint32_t>(0x44556677u);
    writer.put<std::uint64_t>(0x8899AABBCCDDEEFFu);
    const std::uint8_t extra[] = {1, 2, 3};
    writer.put_bytes(extra, sizeof extra);
    writer.put_bytes(nullptr, 0);
    const std::vector<std::uint8_t> expected = {0x11, 0x33, 0x22, 0x77, 0x66, 0x55, 0x44, 0xFF, 0xEE,
                                                0xDD, 0xCC, 0xBB, 0xAA, 0x99, 0x88, 1,    2,    3};
    ASSERT_EQ(writer.size(), expected.size());
    EXPECT_EQ(std::vector<std::uint8_t>(writer.data(), writer.data() + writer.size()), expected);
}

TEST(StreamWriter, GrowsAndClearKeepsCapacity) {
    StreamWriter writer;
    for (std::uint32_t value = 0; value < 100000; ++value) {
        writer.put<std::uint32_t>(value);
    }
    ASSERT_EQ(writer.size(), 400000u);
    for (std::uint32_t value = 0; value < 100000; value += 997) {
        EXPECT_EQ(load_le<std::uint32_t>(writer.data() + 4 * value), value);
    }
    const std::size_t capacity = writer.capacity();
    const std::uint8_t* storage = writer.data();
    writer.clear();
    EXPECT_EQ(writer.size(), 0u);
    for (std::uint32_t value = 0; value < 100000; ++value) {
        writer.put<std::uint32_t>(value);
    }
    EXPECT_EQ(writer.capacity(), capacity);
    EXPECT_EQ(writer.data(), storage);
}

TEST(StreamWriter, MovesKeepContent) {
    StreamWriter first;
    first.put<std::uint16_t>(0xBEEF);
    StreamWriter second(std::move(first));
    ASSERT_EQ(second.size(), 2u);
    EXPECT_EQ(load_le<std::uint16_t>(second.data()), 0xBEEFu);
    std::vector<StreamWriter> writers(3);
    writers.resize(10);
    writers[9].put<std::uint8_t>(1);
    EXPECT_EQ(writers[9].size(), 1u);
}

TEST(StreamReader, GetsWhatWasPut) {
    StreamWriter writer;
    writer.put<std::uint8_t>(7);
    writer.put<std::uint64_t>(0x0102030405060708u);
    writer.put<std::int16_t>(-3);
    StreamReader reader("values", writer.data(), writer.size());
    EXPECT_EQ(reader.name(), "values");
    EXPECT_EQ(reader.get<std::uint8_t>(), 7u);
    EXPECT_EQ(reader.get<std::uint64_t>(), 0x0102030405060708u);
    EXPECT_FALSE(reader.at_end());
    EXPECT_EQ(reader.remaining(), 2u);
    EXPECT_EQ(reader.get<std::int16_t>(), -3);
    EXPECT_TRUE(reader.at_end());
}

TEST(StreamReader, OverrunIsAnErrorNamingTheStream) {
    const std::uint8_t bytes[] = {1, 2, 3};
    StreamReader reader("addresses", bytes, sizeof bytes);
    EXPECT_EQ(reader.get<std::uint16_t>(), 0x0201u);
    try {
        reader.get<std::uint16_t>();
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "corrupt input: stream 'addresses' ends early");
    }
    std::uint8_t sink[4];
    EXPECT_THROW(reader.get_bytes(sink, 2), Error);
    reader.get_bytes(sink, 1);
    EXPECT_TRUE(reader.at_end());
    StreamReader empty("empty", nullptr, 0);
    EXPECT_TRUE(empty.at_end());
    EXPECT_THROW(empty.get<std::uint8_t>(), Error);
}

}  // namespace
}  // namespace tcgen_runtime
