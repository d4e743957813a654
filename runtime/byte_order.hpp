#pragma once
// Little-endian loads and stores at any alignment. Written with explicit
// shifts rather than memcpy plus a host-endianness test so that it is portable
// without macros; GCC and Clang merge these byte accesses into one plain load
// or store on little-endian targets at -O2. (A loop over the bytes is not
// merged by GCC at -O2, hence one spelled-out expression per width.)

#include <cstdint>
#include <type_traits>

namespace tcgen_runtime {

inline std::uint16_t load_le16(const std::uint8_t* source) {
    return static_cast<std::uint16_t>(source[0] | source[1] << 8);
}

inline std::uint32_t load_le32(const std::uint8_t* source) {
    return static_cast<std::uint32_t>(source[0]) | static_cast<std::uint32_t>(source[1]) << 8 |
           static_cast<std::uint32_t>(source[2]) << 16 | static_cast<std::uint32_t>(source[3]) << 24;
}

inline std::uint64_t load_le64(const std::uint8_t* source) {
    return static_cast<std::uint64_t>(source[0]) | static_cast<std::uint64_t>(source[1]) << 8 |
           static_cast<std::uint64_t>(source[2]) << 16 | static_cast<std::uint64_t>(source[3]) << 24 |
           static_cast<std::uint64_t>(source[4]) << 32 | static_cast<std::uint64_t>(source[5]) << 40 |
           static_cast<std::uint64_t>(source[6]) << 48 | static_cast<std::uint64_t>(source[7]) << 56;
}

inline void store_le16(std::uint8_t* destination, std::uint16_t value) {
    destination[0] = static_cast<std::uint8_t>(value);
    destination[1] = static_cast<std::uint8_t>(value >> 8);
}

inline void store_le32(std::uint8_t* destination, std::uint32_t value) {
    destination[0] = static_cast<std::uint8_t>(value);
    destination[1] = static_cast<std::uint8_t>(value >> 8);
    destination[2] = static_cast<std::uint8_t>(value >> 16);
    destination[3] = static_cast<std::uint8_t>(value >> 24);
}

inline void store_le64(std::uint8_t* destination, std::uint64_t value) {
    destination[0] = static_cast<std::uint8_t>(value);
    destination[1] = static_cast<std::uint8_t>(value >> 8);
    destination[2] = static_cast<std::uint8_t>(value >> 16);
    destination[3] = static_cast<std::uint8_t>(value >> 24);
    destination[4] = static_cast<std::uint8_t>(value >> 32);
    destination[5] = static_cast<std::uint8_t>(value >> 40);
    destination[6] = static_cast<std::uint8_t>(value >> 48);
    destination[7] = static_cast<std::uint8_t>(value >> 56);
}

// T is any 1-, 2-, 4- or 8-byte integer type; signed values are stored in
// two's complement.
template <class T>
T load_le(const std::uint8_t* source) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "load_le needs an integer type");
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                  "load_le needs a 1-, 2-, 4- or 8-byte integer");
    if constexpr (sizeof(T) == 1) {
        return static_cast<T>(source[0]);
    } else if constexpr (sizeof(T) == 2) {
        return static_cast<T>(load_le16(source));
    } else if constexpr (sizeof(T) == 4) {
        return static_cast<T>(load_le32(source));
    } else {
        return static_cast<T>(load_le64(source));
    }
}

template <class T>
void store_le(std::uint8_t* destination, T value) {
    static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>, "store_le needs an integer type");
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                  "store_le needs a 1-, 2-, 4- or 8-byte integer");
    if constexpr (sizeof(T) == 1) {
        destination[0] = static_cast<std::uint8_t>(value);
    } else if constexpr (sizeof(T) == 2) {
        store_le16(destination, static_cast<std::uint16_t>(value));
    } else if constexpr (sizeof(T) == 4) {
        store_le32(destination, static_cast<std::uint32_t>(value));
    } else {
        store_le64(destination, static_cast<std::uint64_t>(value));
    }
}

}  // namespace tcgen_runtime
