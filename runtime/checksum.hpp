#pragma once
// Checksums of the .tcz format.
//   crc32: the IEEE 802.3 CRC-32 (reflected polynomial 0xEDB88320, initial
//     value and final xor 0xFFFFFFFF), as in zlib, PNG and gzip;
//     crc32("123456789") == 0xCBF43926. Slicing-by-8 with tables built at
//     compile time. Chainable: crc32(b, crc32(a)) == crc32(a followed by b).
//   fingerprint64: FNV-1a 64-bit (offset basis 0xCBF29CE484222325, prime
//     0x100000001B3) over the bytes of a text; identifies a canonical spec.
//     constexpr so that generated code can check its own constant.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "byte_order.hpp"

namespace tcgen_runtime {

using Crc32Tables = std::array<std::array<std::uint32_t, 256>, 8>;

// Table 0 is the classic byte-at-a-time table; table k advances a CRC by k
// further zero bytes, which lets the main loop fold eight bytes at once.
constexpr Crc32Tables make_crc32_tables() {
    Crc32Tables tables{};
    for (std::uint32_t byte = 0; byte < 256; ++byte) {
        std::uint32_t crc = byte;
        for (int bit = 0; bit < 8; ++bit) {
            const std::uint32_t mask = 0u - (crc & 1u);
            crc = (crc >> 1) ^ (0xEDB88320u & mask);
        }
        tables[0][byte] = crc;
    }
    for (std::size_t table = 1; table < 8; ++table) {
        for (std::size_t byte = 0; byte < 256; ++byte) {
            const std::uint32_t previous = tables[table - 1][byte];
            tables[table][byte] = (previous >> 8) ^ tables[0][previous & 0xFFu];
        }
    }
    return tables;
}

inline constexpr Crc32Tables crc32_tables = make_crc32_tables();

inline std::uint32_t crc32(const std::uint8_t* data, std::size_t size, std::uint32_t previous = 0) {
    std::uint32_t crc = ~previous;
    const std::uint8_t* cursor = data;
    std::size_t remaining = size;
    while (remaining >= 8) {
        const std::uint32_t low = load_le32(cursor) ^ crc;
        const std::uint32_t high = load_le32(cursor + 4);
        crc = crc32_tables[7][low & 0xFFu] ^ crc32_tables[6][(low >> 8) & 0xFFu] ^
              crc32_tables[5][(low >> 16) & 0xFFu] ^ crc32_tables[4][low >> 24] ^ crc32_tables[3][high & 0xFFu] ^
              crc32_tables[2][(high >> 8) & 0xFFu] ^ crc32_tables[1][(high >> 16) & 0xFFu] ^
              crc32_tables[0][high >> 24];
        cursor += 8;
        remaining -= 8;
    }
    while (remaining > 0) {
        crc = (crc >> 8) ^ crc32_tables[0][(crc ^ *cursor) & 0xFFu];
        ++cursor;
        --remaining;
    }
    return ~crc;
}

inline constexpr std::uint64_t fingerprint64_offset_basis = 0xCBF29CE484222325u;
inline constexpr std::uint64_t fingerprint64_prime = 0x100000001B3u;

constexpr std::uint64_t fingerprint64(std::string_view text) {
    std::uint64_t hash = fingerprint64_offset_basis;
    for (const char character : text) {
        hash ^= static_cast<std::uint8_t>(character);
        hash *= fingerprint64_prime;
    }
    return hash;
}

}  // namespace tcgen_runtime
