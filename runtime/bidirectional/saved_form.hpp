#pragma once
// The bytes of a saved bidirectional stream: little-endian integers and
// LEB128 counts out, and read back with every length checked against what
// is left, so that a truncated or forged stream is an Error, never a read
// past the end.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/byte_order.hpp"
#include "runtime/error.hpp"

namespace tcgen_runtime::bidirectional {

class ByteWriter {
public:
    template <class T>
    void put(T value) {
        std::uint8_t bytes[sizeof(T)];
        store_le(bytes, value);
        bytes_.insert(bytes_.end(), bytes, bytes + sizeof(T));
    }

    void put_count(std::uint64_t value) {
        while (value >= 0x80) {
            bytes_.push_back(static_cast<std::uint8_t>(value | 0x80));
            value >>= 7;
        }
        bytes_.push_back(static_cast<std::uint8_t>(value));
    }

    std::vector<std::uint8_t>& bytes() { return bytes_; }

private:
    std::vector<std::uint8_t> bytes_;
};

class ByteReader {
public:
    ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

    template <class T>
    T get() {
        need(sizeof(T));
        const T value = load_le<T>(data_ + offset_);
        offset_ += sizeof(T);
        return value;
    }

    std::uint64_t get_count() {
        std::uint64_t value = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            const std::uint8_t byte = get<std::uint8_t>();
            if (shift == 63 && byte > 1) {
                break;
            }
            value |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
            if ((byte & 0x80) == 0) {
                return value;
            }
        }
        fail("corrupt stream: a count does not fit 64 bits");
    }

    // A count of items of `item_bytes` each that the rest of the input can
    // hold: what a reader may allocate for, whatever the stream claims.
    std::uint64_t get_items(std::uint64_t item_bytes) {
        const std::uint64_t count = get_count();
        if (item_bytes > 0 && count > remaining() / item_bytes) {
            fail("truncated stream: it claims " + std::to_string(count) + " items where " +
                 std::to_string(remaining()) + " bytes are left");
        }
        return count;
    }

    std::size_t remaining() const { return size_ - offset_; }
    std::size_t offset() const { return offset_; }

private:
    void need(std::size_t bytes) const {
        if (bytes > remaining()) {
            fail("truncated stream: it ends " + std::to_string(bytes - remaining()) + " bytes early");
        }
    }

    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t offset_ = 0;
};

}  // namespace tcgen_runtime::bidirectional
