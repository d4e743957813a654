#include "runtime/checksum.hpp"

#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <xxhash.h>

namespace tcgen_runtime {
namespace {

std::uint64_t xxh64_of(std::string_view text, std::uint64_t seed = 0) {
    return xxh64(reinterpret_cast<const std::uint8_t*>(text.data()), text.size(), seed);
}

std::vector<std::uint8_t> random_bytes(std::size_t size) {
    std::mt19937 random(12345);
    std::vector<std::uint8_t> bytes(size);
    for (std::uint8_t& byte : bytes) {
        byte = static_cast<std::uint8_t>(random());
    }
    return bytes;
}

// Published values (xxHash's own test vectors and `xxhsum -H1`).
TEST(Xxh64, KnownValues) {
    EXPECT_EQ(xxh64_of(""), 0xEF46DB3751D8E999u);
    EXPECT_EQ(xxh64_of("abc"), 0x44BC2CF5AD770999u);
    EXPECT_EQ(xxh64_of("", 1), 0xD5AFBA1336A3BE4Bu);
}

// Every length through two stripes and a few seeds, at unaligned offsets,
// against libxxhash (Debian's libxxhash-dev), which the runtime does not use.
TEST(Xxh64, MatchesLibxxhash) {
    const std::vector<std::uint8_t> bytes = random_bytes(200);
    for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{0x9E3779B185EBCA87u},
                                     ~std::uint64_t{0}}) {
        for (std::size_t offset = 0; offset < 3; ++offset) {
            for (std::size_t length = 0; offset + length <= bytes.size(); ++length) {
                EXPECT_EQ(xxh64(bytes.data() + offset, length, seed), XXH64(bytes.data() + offset, length, seed))
                    << "offset " << offset << " length " << length << " seed " << seed;
            }
        }
    }
}

TEST(Xxh64, PiecesGiveTheValueOfTheWhole) {
    const std::vector<std::uint8_t> bytes = random_bytes(150);
    for (std::size_t first = 0; first <= bytes.size(); first += 3) {
        for (std::size_t second = first; second <= bytes.size(); second += 11) {
            Xxh64 hash(7);
            hash.update(bytes.data(), first);
            hash.update(bytes.data() + first, second - first);
            hash.update(bytes.data() + second, bytes.size() - second);
            EXPECT_EQ(hash.digest(), xxh64(bytes.data(), bytes.size(), 7)) << first << " " << second;
        }
    }
    EXPECT_EQ(Xxh64(3).digest(), xxh64(bytes.data(), 0, 3));
}

TEST(Fingerprint64, IsFnv1a64) {
    EXPECT_EQ(fingerprint64(""), 0xCBF29CE484222325u);
    EXPECT_EQ(fingerprint64("a"), 0xAF63DC4C8601EC8Cu);
    EXPECT_EQ(fingerprint64("foobar"), 0x85944171F73967E8u);
    static_assert(fingerprint64("a") == 0xAF63DC4C8601EC8Cu, "usable in constant expressions");
}

}  // namespace
}  // namespace tcgen_runtime
