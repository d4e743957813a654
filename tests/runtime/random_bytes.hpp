#pragma once
// Bytes drawn at random from a seed: the same bytes on every run and
// platform (std::mt19937 is fully specified), for buffers that nothing
// compresses.

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace tcgen_test {

inline std::vector<std::uint8_t> random_bytes(std::size_t size, std::uint32_t seed) {
    std::mt19937 random(seed);
    std::vector<std::uint8_t> bytes(size);
    for (std::uint8_t& byte : bytes) {
        byte = static_cast<std::uint8_t>(random());
    }
    return bytes;
}

}  // namespace tcgen_test
