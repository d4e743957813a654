#pragma once
// The value streams a codec writes while encoding a block and reads while
// decoding it. Both are on the per-field hot path: put and get are a bounds
// test, one little-endian store or load, and a pointer bump.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "byte_order.hpp"
#include "error.hpp"

namespace tcgen_runtime {

// A growable byte buffer written front to back. clear() keeps the storage, so
// a writer reused across blocks stops allocating once it has seen the largest
// block.
class StreamWriter {
public:
    StreamWriter() = default;
    StreamWriter(const StreamWriter&) = delete;
    StreamWriter& operator=(const StreamWriter&) = delete;

    StreamWriter(StreamWriter&& other) noexcept { take(other); }

    StreamWriter& operator=(StreamWriter&& other) noexcept {
        if (this != &other) {
            take(other);
        }
        return *this;
    }

    template <class T>
    void put(T value) {
        if (static_cast<std::size_t>(limit_ - cursor_) < sizeof(T)) {
            grow(sizeof(T));
        }
        store_le(cursor_, value);
        cursor_ += sizeof(T);
    }

    void put_bytes(const std::uint8_t* bytes, std::size_t size) {
        if (static_cast<std::size_t>(limit_ - cursor_) < size) {
            grow(size);
        }
        if (size > 0) {
            std::memcpy(cursor_, bytes, size);
        }
        cursor_ += size;
    }

    // Makes room for `size` more bytes now, so later puts do not reallocate.
    void reserve(std::size_t size) {
        if (static_cast<std::size_t>(limit_ - cursor_) < size) {
            grow(size);
        }
    }

    const std::uint8_t* data() const { return storage_.get(); }

    std::size_t size() const { return static_cast<std::size_t>(cursor_ - storage_.get()); }

    std::size_t capacity() const { return static_cast<std::size_t>(limit_ - storage_.get()); }

    void clear() { cursor_ = storage_.get(); }

private:
    void take(StreamWriter& other) {
        storage_ = std::move(other.storage_);
        cursor_ = other.cursor_;
        limit_ = other.limit_;
        other.cursor_ = nullptr;
        other.limit_ = nullptr;
    }

    // Out of the hot path: at least doubles, so puts are amortised O(1).
    void grow(std::size_t needed) {
        const std::size_t used = size();
        std::size_t new_capacity = capacity() * 2;
        if (new_capacity < used + needed) {
            new_capacity = used + needed;
        }
        if (new_capacity < minimum_capacity) {
            new_capacity = minimum_capacity;
        }
        std::unique_ptr<std::uint8_t[]> bigger(new std::uint8_t[new_capacity]);
        if (used > 0) {
            std::memcpy(bigger.get(), storage_.get(), used);
        }
        storage_ = std::move(bigger);
        cursor_ = storage_.get() + used;
        limit_ = storage_.get() + new_capacity;
    }

    static constexpr std::size_t minimum_capacity = 4096;

    std::unique_ptr<std::uint8_t[]> storage_;
    std::uint8_t* cursor_ = nullptr;
    std::uint8_t* limit_ = nullptr;
};

// Reads a stream that was decompressed from a .tcz. Its bytes are untrusted,
// so every get is bounds-checked and an overrun names the stream.
class StreamReader {
public:
    StreamReader() = default;

    StreamReader(std::string_view name, const std::uint8_t* data, std::size_t size)
        : name_(name), cursor_(data), limit_(data + size) {}

    template <class T>
    T get() {
        if (static_cast<std::size_t>(limit_ - cursor_) < sizeof(T)) {
            fail_ends_early();
        }
        const T value = load_le<T>(cursor_);
        cursor_ += sizeof(T);
        return value;
    }

    void get_bytes(std::uint8_t* bytes, std::size_t size) {
        if (static_cast<std::size_t>(limit_ - cursor_) < size) {
            fail_ends_early();
        }
        if (size > 0) {
            std::memcpy(bytes, cursor_, size);
        }
        cursor_ += size;
    }

    bool at_end() const { return cursor_ == limit_; }

    std::size_t remaining() const { return static_cast<std::size_t>(limit_ - cursor_); }

    std::string_view name() const { return name_; }

private:
    [[noreturn]] void fail_ends_early() const { fail("corrupt input: stream '" + std::string(name_) + "' ends early"); }

    std::string_view name_;
    const std::uint8_t* cursor_ = nullptr;
    const std::uint8_t* limit_ = nullptr;
};

}  // namespace tcgen_runtime
