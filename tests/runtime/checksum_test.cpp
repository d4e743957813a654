#include "runtime/checksum.hpp"

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

std::uint32_t crc_of(std::string_view text) {
    return crc32(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

// Bit by bit, straight from the definition, to check the sliced version.
std::uint32_t reference_crc32(const std::vector<std::uint8_t>& bytes) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (const std::uint8_t byte : bytes) {
        crc ^= byte;
        for (int bit = 0; bit < 8; ++bit) {
            crc = (crc & 1u) != 0 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
        }
    }
    return ~crc;
}

TEST(Crc32, KnownValues) {
    EXPECT_EQ(crc_of(""), 0x00000000u);
    EXPECT_EQ(crc_of("a"), 0xE8B7BE43u);
    EXPECT_EQ(crc_of("123456789"), 0xCBF43926u);
    EXPECT_EQ(crc_of("The quick brown fox jumps over the lazy dog"), 0x414FA339u);
}

TEST(Crc32, MatchesBitwiseReferenceAtEveryLengthAndOffset) {
    std::mt19937 random(12345);
    std::vector<std::uint8_t> bytes(300);
    for (std::uint8_t& byte : bytes) {
        byte = static_cast<std::uint8_t>(random());
    }
    for (std::size_t offset = 0; offset < 9; ++offset) {
        for (std::size_t length = 0; offset + length <= bytes.size(); length += 7) {
            const std::vector<std::uint8_t> slice(bytes.begin() + static_cast<std::ptrdiff_t>(offset),
                                                  bytes.begin() + static_cast<std::ptrdiff_t>(offset + length));
            EXPECT_EQ(crc32(bytes.data() + offset, length), reference_crc32(slice))
                << "offset " << offset << " length " << length;
        }
    }
}

TEST(Crc32, Chains) {
    const std::string_view text = "123456789";
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
    for (std::size_t split = 0; split <= text.size(); ++split) {
        EXPECT_EQ(crc32(bytes + split, text.size() - split, crc32(bytes, split)), 0xCBF43926u);
    }
}

TEST(Fingerprint64, IsFnv1a64) {
    EXPECT_EQ(fingerprint64(""), 0xCBF29CE484222325u);
    EXPECT_EQ(fingerprint64("a"), 0xAF63DC4C8601EC8Cu);
    EXPECT_EQ(fingerprint64("foobar"), 0x85944171F73967E8u);
    static_assert(fingerprint64("a") == 0xAF63DC4C8601EC8Cu, "usable in constant expressions");
}

}  // namespace
}  // namespace tcgen_runtime
