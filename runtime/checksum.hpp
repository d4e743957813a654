#pragma once
// Checksums of the .tcz format.
//   xxh64: XXH64 of the xxHash family (Yann Collet; specification in
//     xxHash's doc/xxhash_spec.md), 64 bits with a 64-bit seed;
//     xxh64("", 0) == 0xEF46DB3751D8E999. Written out here so that generated
//     code needs no library beyond its stream back-ends; the tests check it
//     against libxxhash. One call for a buffer, Xxh64 for data that arrives
//     in pieces; both give the same value.
//   fingerprint64: FNV-1a 64-bit (offset basis 0xCBF29CE484222325, prime
//     0x100000001B3) over the bytes of a text; identifies a canonical spec.
//     constexpr so that generated code can check its own constant.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "byte_order.hpp"

namespace tcgen_runtime {

namespace xxh64_detail {

inline constexpr std::uint64_t prime1 = 0x9E3779B185EBCA87u;
inline constexpr std::uint64_t prime2 = 0xC2B2AE3D27D4EB4Fu;
inline constexpr std::uint64_t prime3 = 0x165667B19E3779F9u;
inline constexpr std::uint64_t prime4 = 0x85EBCA77C2B2AE63u;
inline constexpr std::uint64_t prime5 = 0x27D4EB2F165667C5u;
inline constexpr std::size_t stripe_bytes = 32;

constexpr std::uint64_t rotate_left(std::uint64_t value, int bits) {
    return (value << bits) | (value >> (64 - bits));
}

constexpr std::uint64_t round(std::uint64_t accumulator, std::uint64_t lane) {
    return rotate_left(accumulator + lane * prime2, 31) * prime1;
}

constexpr std::uint64_t merge_round(std::uint64_t hash, std::uint64_t accumulator) {
    return (hash ^ round(0, accumulator)) * prime1 + prime4;
}

// The four lanes that consume 32-byte stripes.
struct Lanes {
    std::array<std::uint64_t, 4> accumulators{};

    explicit Lanes(std::uint64_t seed)
        : accumulators{seed + prime1 + prime2, seed + prime2, seed, seed - prime1} {}

    // Consumes whole stripes from `data`; returns the bytes consumed.
    std::size_t consume(const std::uint8_t* data, std::size_t size) {
        std::size_t done = 0;
        for (; done + stripe_bytes <= size; done += stripe_bytes) {
            for (std::size_t lane = 0; lane < 4; ++lane) {
                accumulators[lane] = round(accumulators[lane], load_le64(data + done + 8 * lane));
            }
        }
        return done;
    }

    std::uint64_t converge() const {
        std::uint64_t hash = rotate_left(accumulators[0], 1) + rotate_left(accumulators[1], 7) +
                             rotate_left(accumulators[2], 12) + rotate_left(accumulators[3], 18);
        for (const std::uint64_t accumulator : accumulators) {
            hash = merge_round(hash, accumulator);
        }
        return hash;
    }
};

// Folds in the last size % 32 bytes and mixes the result.
inline std::uint64_t finish(std::uint64_t hash, const std::uint8_t* rest, std::size_t size) {
    for (; size >= 8; rest += 8, size -= 8) {
        hash = rotate_left(hash ^ round(0, load_le64(rest)), 27) * prime1 + prime4;
    }
    if (size >= 4) {
        hash = rotate_left(hash ^ (std::uint64_t{load_le32(rest)} * prime1), 23) * prime2 + prime3;
        rest += 4;
        size -= 4;
    }
    for (; size > 0; ++rest, --size) {
        hash = rotate_left(hash ^ (std::uint64_t{*rest} * prime5), 11) * prime1;
    }
    hash ^= hash >> 33;
    hash *= prime2;
    hash ^= hash >> 29;
    hash *= prime3;
    hash ^= hash >> 32;
    return hash;
}

}  // namespace xxh64_detail

// XXH64 of `size` bytes at `data`.
inline std::uint64_t xxh64(const std::uint8_t* data, std::size_t size, std::uint64_t seed) {
    using namespace xxh64_detail;
    std::uint64_t hash = seed + prime5;
    std::size_t done = 0;
    if (size >= stripe_bytes) {
        Lanes lanes(seed);
        done = lanes.consume(data, size);
        hash = lanes.converge();
    }
    return finish(hash + size, data + done, size - done);
}

// XXH64 of data given in pieces: update() any number of times, then digest().
class Xxh64 {
public:
    explicit Xxh64(std::uint64_t seed) : seed_(seed), lanes_(seed) {}

    void update(const std::uint8_t* data, std::size_t size) {
        using xxh64_detail::stripe_bytes;
        total_ += size;
        if (buffered_ > 0) {
            const std::size_t take = size < stripe_bytes - buffered_ ? size : stripe_bytes - buffered_;
            copy(data, take);
            data += take;
            size -= take;
            if (buffered_ < stripe_bytes) {
                return;
            }
            lanes_.consume(buffer_.data(), stripe_bytes);
            buffered_ = 0;
        }
        const std::size_t done = lanes_.consume(data, size);
        copy(data + done, size - done);
    }

    std::uint64_t digest() const {
        using namespace xxh64_detail;
        const std::uint64_t hash = total_ >= stripe_bytes ? lanes_.converge() : seed_ + prime5;
        return finish(hash + total_, buffer_.data(), buffered_);
    }

private:
    void copy(const std::uint8_t* data, std::size_t size) {
        for (std::size_t index = 0; index < size; ++index) {
            buffer_[buffered_ + index] = data[index];
        }
        buffered_ += size;
    }

    std::uint64_t seed_;
    xxh64_detail::Lanes lanes_;
    std::array<std::uint8_t, xxh64_detail::stripe_bytes> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_ = 0;
};

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

// How messages print a fingerprint or a check: "0x" and 16 hex digits.
inline std::string hex64(std::uint64_t value) {
    char text[19];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace tcgen_runtime
