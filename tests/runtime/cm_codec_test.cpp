// The context-mixing back-end on its own (cm_codec.hpp): round trips of
// buffers of every shape, the stored fallback, the size its tables take,
// bytes that are the same on every compiler, and damaged data refused.
// What every back-end shares is tested in backends_test.cpp.

#include "runtime/cm_codec.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/checksum.hpp"
#include "tests/runtime/random_bytes.hpp"
#include "tests/test_scale.hpp"

namespace tcgen_runtime {
namespace {

using Bytes = std::vector<std::uint8_t>;

using tcgen_test::random_bytes;

// Like a miss stream: 8-byte little-endian values, a few strides apart,
// their high bytes mostly equal.
Bytes address_like_bytes(std::size_t values) {
    std::mt19937 random(5);
    Bytes bytes;
    std::uint64_t address = 0x7FFF12340000u;
    for (std::size_t index = 0; index < values; ++index) {
        address += (random() % 4 == 0) ? (random() % 4096) * 64 : 64;
        for (int shift = 0; shift < 64; shift += 8) {
            bytes.push_back(static_cast<std::uint8_t>(address >> shift));
        }
    }
    return bytes;
}

// Like a code stream: runs of 0 broken by other small codes, segments of
// which repeat far apart.
Bytes code_like_bytes(std::size_t size) {
    std::mt19937 random(9);
    std::vector<Bytes> segments;
    for (int index = 0; index < 100; ++index) {
        Bytes segment(10 + random() % 200, 0);
        segment.push_back(static_cast<std::uint8_t>(1 + random() % 6));
        segments.push_back(segment);
    }
    Bytes bytes;
    while (bytes.size() < size) {
        const Bytes& segment = segments[random() % segments.size()];
        bytes.insert(bytes.end(), segment.begin(), segment.end());
    }
    bytes.resize(size);
    return bytes;
}

Bytes compress(const Bytes& data) {
    Bytes out;
    cm_compress(data.data(), data.size(), out);
    return out;
}

Bytes decompress(const Bytes& compressed, std::size_t expected_size) {
    Bytes out;
    cm_decompress(compressed.data(), compressed.size(), out, expected_size, "stream 'x'");
    return out;
}

std::string decompress_error(const Bytes& compressed, std::size_t expected_size) {
    try {
        decompress(compressed, expected_size);
    } catch (const Error& error) {
        return error.what();
    }
    return "no error";
}

TEST(CmCodec, RoundTripsEveryShapeOfBuffer) {
    Bytes every_value(256 * 3);
    for (std::size_t index = 0; index < every_value.size(); ++index) {
        every_value[index] = static_cast<std::uint8_t>(index * 7);
    }
    const struct {
        const char* name;
        Bytes data;
    } cases[] = {{"empty", Bytes{}},
                 {"one byte", Bytes{42}},
                 {"one zero", Bytes{0}},
                 {"two bytes", Bytes{0xFF, 0x00}},
                 {"every value", every_value},
                 {"random", random_bytes(20000, 1)},
                 {"one value repeated", Bytes(50000, 0xAB)},
                 {"addresses", address_like_bytes(40000)},
                 {"codes, long (the largest tables)", code_like_bytes((std::size_t{1} << 20) + 1)}};
    for (const auto& test : cases) {
        const Bytes compressed = compress(test.data);
        EXPECT_EQ(compressed.empty(), test.data.empty()) << test.name;
        EXPECT_LE(compressed.size(), cm_compress_bound(test.data.size())) << test.name;
        EXPECT_EQ(decompress(compressed, test.data.size()), test.data) << test.name;
    }
}

// What modelling cannot shrink is stored, behind one byte.
TEST(CmCodec, StoresWhatItCannotShrink) {
    const Bytes data = random_bytes(50000, 2);
    const Bytes compressed = compress(data);
    ASSERT_EQ(compressed.size(), data.size() + 1);
    EXPECT_EQ(compressed[0], 0);
    EXPECT_EQ(Bytes(compressed.begin() + 1, compressed.end()), data);
}

// Repeats and structure shrink far: a run of one value to almost nothing,
// code-like and address-like streams well below their size. (A check of the
// model's ratio, not of its accesses: the sanitized suite leaves it to the
// unsanitized one and round-trips the same shapes above.)
TEST(CmCodec, ShrinksRepeatsAndStructure) {
    if (tcgen_test::under_sanitizers) {
        GTEST_SKIP() << "the ratio is checked by the unsanitized suite";
    }
    EXPECT_LT(compress(Bytes(300000, 0xAB)).size(), 300u);
    const Bytes codes = code_like_bytes(std::size_t{1} << 18);
    EXPECT_LT(compress(codes).size() * 20, codes.size());
    const Bytes addresses = address_like_bytes(40000);
    EXPECT_LT(compress(addresses).size() * 4, addresses.size());
}

// Integer arithmetic only: the same bytes from every compiler and platform.
// These checks pin them; a change of the model that changes them is a
// change of the format.
TEST(CmCodec, MakesTheSameBytesEverywhere) {
    const Bytes codes = code_like_bytes(200000);
    const Bytes codes_compressed = compress(codes);
    const Bytes addresses = address_like_bytes(20000);
    const Bytes addresses_compressed = compress(addresses);
    EXPECT_EQ(codes_compressed.size(), 2587u);
    EXPECT_EQ(xxh64(codes_compressed.data(), codes_compressed.size(), 0), 0x05FC40E511257EEFu);
    EXPECT_EQ(addresses_compressed.size(), 17926u);
    EXPECT_EQ(xxh64(addresses_compressed.data(), addresses_compressed.size(), 0), 0x6B78F5288C7733F2u);
}

// The tables grow with the stream (a bucket of 64 bytes per 2 bytes of it,
// per context) up to a cap, so a decoder's memory follows the size the
// container states.
TEST(CmCodec, TablesFollowTheStreamSizeUpToACap) {
    EXPECT_EQ(cm_detail::cm_table_bits(0), 10u);
    EXPECT_EQ(cm_detail::cm_table_bits(2048), 10u);
    EXPECT_EQ(cm_detail::cm_table_bits(2049), 11u);
    EXPECT_EQ(cm_detail::cm_table_bits(std::uint64_t{1} << 21), 20u);
    EXPECT_EQ(cm_detail::cm_table_bits(std::uint64_t{1} << 40), 20u);
    EXPECT_LT(cm_encoder_bytes(4096), std::uint64_t{8} << 20);
    EXPECT_EQ(cm_encoder_bytes(std::uint64_t{1} << 40), cm_encoder_bytes(std::uint64_t{1} << 22));
    EXPECT_LT(cm_encoder_bytes(std::uint64_t{1} << 40), std::uint64_t{600} << 20);
}

TEST(CmCodec, RefusesDamagedData) {
    const Bytes data = address_like_bytes(2000);
    const Bytes compressed = compress(data);
    ASSERT_EQ(compressed[0], 1);
    // Truncations (24 lengths across the buffer) end early, never a hang.
    // (Each decode sets its tables up afresh: under the sanitizers every
    // one costs tens of milliseconds.)
    const std::size_t step = std::max<std::size_t>(1, compressed.size() / 24);
    for (std::size_t size = 1; size < compressed.size(); size += step) {
        const std::string error = decompress_error(
            Bytes(compressed.begin(), compressed.begin() + static_cast<std::ptrdiff_t>(size)), data.size());
        EXPECT_EQ(error.rfind("corrupt input: stream 'x' ", 0), 0u) << size << ": " << error;
    }
    EXPECT_EQ(decompress_error(Bytes(compressed.begin(), compressed.end() - 1), data.size()),
              "corrupt input: stream 'x' ends in the middle of the CM stream");
    Bytes mode = compressed;
    mode[0] = 7;
    EXPECT_EQ(decompress_error(mode, data.size()), "corrupt input: stream 'x' is not valid CM data (mode 7)");
    // A size beyond what the container allows is refused before anything
    // is allocated for it.
    const Bytes huge = {1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0, 0, 0, 0};
    EXPECT_EQ(decompress_error(huge, data.size()), "corrupt input: stream 'x' decompresses to more than 16000 bytes");
    const Bytes too_long_size = {1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
    EXPECT_EQ(decompress_error(too_long_size, data.size()),
              "corrupt input: stream 'x' is not valid CM data (size too large)");
    EXPECT_EQ(decompress_error(Bytes{1, 0, 0, 0, 0, 0}, data.size()),
              "corrupt input: stream 'x' is not valid CM data (size 0)");
    // A stored buffer of the wrong length.
    EXPECT_EQ(decompress_error(Bytes{0, 1, 2}, 3), "corrupt input: stream 'x' decompresses to 2 bytes instead of 3");
    EXPECT_EQ(decompress_error(Bytes{0, 1, 2}, 1), "corrupt input: stream 'x' decompresses to more than 1 bytes");
    // A damaged byte (24 places across the buffer): an error or data of the
    // right size.
    for (std::size_t position = 0; position < compressed.size(); position += step + 1) {
        Bytes damaged = compressed;
        damaged[position] ^= static_cast<std::uint8_t>(1u << (position % 8));
        try {
            EXPECT_EQ(decompress(damaged, data.size()).size(), data.size());
        } catch (const Error&) {
        }
    }
}

}  // namespace
}  // namespace tcgen_runtime
