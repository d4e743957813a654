#include "runtime/bzip2_codec.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

std::vector<std::uint8_t> round_trip(const std::vector<std::uint8_t>& data) {
    const std::vector<std::uint8_t> compressed = bz2_compress(data.data(), data.size());
    std::vector<std::uint8_t> restored;
    bz2_decompress(compressed.data(), compressed.size(), restored, data.size());
    return restored;
}

std::string error_of(const std::vector<std::uint8_t>& compressed, std::size_t expected_size) {
    std::vector<std::uint8_t> out;
    try {
        bz2_decompress(compressed.data(), compressed.size(), out, expected_size, "stream 'x'");
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

TEST(Bzip2, EmptyIsStoredAsNothing) {
    EXPECT_TRUE(bz2_compress(nullptr, 0).empty());
    std::vector<std::uint8_t> out = {1};
    bz2_decompress(nullptr, 0, out, 0);
    EXPECT_TRUE(out.empty());
    EXPECT_EQ(error_of({}, 5), "corrupt input: stream 'x' is empty but should hold 5 bytes");
    EXPECT_EQ(error_of({1, 2, 3}, 0), "corrupt input: stream 'x' should be empty but has 3 compressed bytes");
}

TEST(Bzip2, RoundTrips) {
    EXPECT_EQ(round_trip({42}), std::vector<std::uint8_t>({42}));
    std::mt19937 random(7);
    for (const std::size_t size : {2u, 100u, 99981u, 99982u, 250000u, 1000000u}) {
        std::vector<std::uint8_t> data(size);
        for (std::uint8_t& byte : data) {
            byte = static_cast<std::uint8_t>(random() % 4);
        }
        EXPECT_EQ(round_trip(data), data) << size;
    }
}

TEST(Bzip2, ReusesTheOutputBuffer) {
    std::vector<std::uint8_t> compressed;
    const std::vector<std::uint8_t> data(5000, 9);
    bz2_compress(data.data(), data.size(), compressed);
    const std::vector<std::uint8_t> first = compressed;
    bz2_compress(data.data(), data.size(), compressed);
    EXPECT_EQ(compressed, first);
    bz2_compress(data.data(), 0, compressed);
    EXPECT_TRUE(compressed.empty());
}

TEST(Bzip2, WrongSizesAndGarbageAreErrors) {
    const std::vector<std::uint8_t> data(1000, 'a');
    const std::vector<std::uint8_t> compressed = bz2_compress(data.data(), data.size());
    EXPECT_EQ(error_of(compressed, 999), "corrupt input: stream 'x' decompresses to more than 999 bytes");
    EXPECT_EQ(error_of(compressed, 1001), "corrupt input: stream 'x' decompresses to 1000 bytes instead of 1001");
    std::vector<std::uint8_t> truncated(compressed.begin(), compressed.end() - 1);
    EXPECT_EQ(error_of(truncated, 1000), "corrupt input: stream 'x' ends in the middle of the bzip2 stream");
    std::vector<std::uint8_t> extended = compressed;
    extended.push_back(0);
    EXPECT_EQ(error_of(extended, 1000), "corrupt input: stream 'x' has 1 bytes after the end of its bzip2 stream");
    EXPECT_EQ(error_of({'h', 'e', 'l', 'l', 'o'}, 5),
              "corrupt input: stream 'x' is not valid bzip2 data (BZ_DATA_ERROR_MAGIC)");
    std::mt19937 random(99);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<std::uint8_t> damaged = compressed;
        damaged[4 + random() % (damaged.size() - 4)] ^= static_cast<std::uint8_t>(1u << (random() % 8));
        std::vector<std::uint8_t> out;
        try {
            bz2_decompress(damaged.data(), damaged.size(), out, data.size());
        } catch (const Error&) {
        }
    }
}

// A size field is a claim, not a fact: what a stream of a few bytes claims
// to hold is not allocated before the data produces it.
TEST(Bzip2, AllocatesWhatTheDataHoldsNotWhatItClaims) {
    const std::vector<std::uint8_t> data(1000, 'a');
    const std::vector<std::uint8_t> compressed = bz2_compress(data.data(), data.size());
    std::vector<std::uint8_t> out;
    try {
        bz2_decompress(compressed.data(), compressed.size(), out, std::size_t{3} << 30, "stream 'x'");
        ADD_FAILURE() << "no error";
    } catch (const Error& error) {
        EXPECT_EQ(std::string(error.what()), "corrupt input: stream 'x' decompresses to 1000 bytes instead of 3221225472");
    }
    EXPECT_LE(out.capacity(), std::size_t{1} << 16);
}

}  // namespace
}  // namespace tcgen_runtime
