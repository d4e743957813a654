#include "runtime/byte_order.hpp"

#include <array>
#include <cstdint>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

TEST(ByteOrder, LoadsLittleEndianAtAnyAlignment) {
    const std::array<std::uint8_t, 10> bytes = {0xFF, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xFF};
    EXPECT_EQ(load_le<std::uint8_t>(bytes.data() + 1), 0x01u);
    EXPECT_EQ(load_le<std::uint16_t>(bytes.data() + 1), 0x0201u);
    EXPECT_EQ(load_le<std::uint32_t>(bytes.data() + 1), 0x04030201u);
    EXPECT_EQ(load_le<std::uint64_t>(bytes.data() + 1), 0x0807060504030201u);
}

TEST(ByteOrder, StoresLittleEndianAtAnyAlignment) {
    std::array<std::uint8_t, 10> bytes{};
    store_le<std::uint64_t>(bytes.data() + 1, 0x0807060504030201u);
    const std::array<std::uint8_t, 10> expected = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x00};
    EXPECT_EQ(bytes, expected);
    store_le<std::uint32_t>(bytes.data() + 3, 0xAABBCCDDu);
    EXPECT_EQ(bytes[3], 0xDD);
    EXPECT_EQ(bytes[6], 0xAA);
    store_le<std::uint16_t>(bytes.data() + 7, 0x1234);
    EXPECT_EQ(bytes[7], 0x34);
    EXPECT_EQ(bytes[8], 0x12);
    store_le<std::uint8_t>(bytes.data() + 9, 0x77);
    EXPECT_EQ(bytes[9], 0x77);
}

TEST(ByteOrder, SignedValuesRoundTripAsTwosComplement) {
    std::array<std::uint8_t, 8> bytes{};
    store_le<std::int32_t>(bytes.data(), -2);
    EXPECT_EQ(load_le<std::uint32_t>(bytes.data()), 0xFFFFFFFEu);
    EXPECT_EQ(load_le<std::int32_t>(bytes.data()), -2);
    store_le<std::int64_t>(bytes.data(), INT64_MIN);
    EXPECT_EQ(load_le<std::int64_t>(bytes.data()), INT64_MIN);
}

TEST(ByteOrder, ExtremeValuesRoundTrip) {
    std::array<std::uint8_t, 8> bytes{};
    for (const std::uint64_t value :
         {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0}, std::uint64_t{0x8000000000000000u}}) {
        store_le(bytes.data(), value);
        EXPECT_EQ(load_le<std::uint64_t>(bytes.data()), value);
    }
}

}  // namespace
}  // namespace tcgen_runtime
