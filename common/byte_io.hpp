#pragma once
// Little-endian bytes in and out, for the saved forms (the WET, the wpp
// grammar). ByteReader refuses to read past its end, so a length a file
// claims is checked against the bytes present before anything is allocated
// for it; it fails with a FileError naming the file and the part read.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/file_error.hpp>

#include "runtime/byte_order.hpp"

namespace tcgen {

class ByteWriter {
public:
    // Where a writer with a sink hands its bytes, in order.
    using Sink = std::function<void(const std::uint8_t* data, std::size_t size)>;
    // A writer with a sink holds at most about this many bytes before it
    // hands them on; larger writes go to the sink at once, not copied.
    static constexpr std::size_t sink_piece_bytes = std::size_t{1} << 20;

    // Bytes gathered in data().
    ByteWriter() = default;
    // Bytes handed to `sink` as written, a piece at a time: a saved form
    // written to a file is never held whole. flush() hands on the last.
    explicit ByteWriter(Sink sink) : sink_(std::move(sink)) {}

    void u8(std::uint8_t value) {
        bytes_.push_back(value);
        if (sink_ && bytes_.size() >= sink_piece_bytes) {
            flush();
        }
    }
    void u16(std::uint16_t value) {
        std::uint8_t le[2];
        tcgen_runtime::store_le16(le, value);
        bytes(le, sizeof le);
    }
    void u32(std::uint32_t value) {
        std::uint8_t le[4];
        tcgen_runtime::store_le32(le, value);
        bytes(le, sizeof le);
    }
    void u64(std::uint64_t value) {
        std::uint8_t le[8];
        tcgen_runtime::store_le64(le, value);
        bytes(le, sizeof le);
    }
    void bytes(const std::uint8_t* data, std::size_t size) {
        if (sink_ && bytes_.size() + size >= sink_piece_bytes) {
            flush();
            if (size >= sink_piece_bytes) {
                sink_(data, size);
                return;
            }
        }
        bytes_.insert(bytes_.end(), data, data + size);
    }
    // A length-prefixed blob (u64 length, then the bytes).
    void blob(const std::vector<std::uint8_t>& data) {
        u64(data.size());
        bytes(data.data(), data.size());
    }
    // The bytes written (with a sink: those not yet handed on).
    std::vector<std::uint8_t>& data() { return bytes_; }
    // With a sink: every byte written handed on.
    void flush() {
        if (sink_ && !bytes_.empty()) {
            sink_(bytes_.data(), bytes_.size());
            bytes_.clear();
        }
    }

private:
    Sink sink_;
    std::vector<std::uint8_t> bytes_;
};

class ByteReader {
public:
    // `file` and `what` name the place in messages: "run.wet: error: truncated META section".
    ByteReader(const std::uint8_t* data, std::size_t size, std::string file, std::string what)
        : data_(data), size_(size), file_(std::move(file)), what_(std::move(what)) {}

    std::uint8_t u8() { return *bytes(1); }
    std::uint16_t u16() { return tcgen_runtime::load_le16(bytes(2)); }
    std::uint32_t u32() { return tcgen_runtime::load_le32(bytes(4)); }
    std::uint64_t u64() { return tcgen_runtime::load_le64(bytes(8)); }
    // `size` bytes in place; the pointer stays valid as long as the input.
    const std::uint8_t* bytes(std::uint64_t size) {
        need(size);
        const std::uint8_t* start = data_ + position_;
        position_ += static_cast<std::size_t>(size);
        return start;
    }
    // A count of records of `record_bytes` each that must all be present.
    std::size_t count(std::uint64_t record_bytes) {
        const std::uint64_t value = u64();
        if (record_bytes != 0 && value > remaining() / record_bytes) {
            fail("claims " + std::to_string(value) + " records, more than its " + std::to_string(remaining()) +
                 " bytes hold");
        }
        return static_cast<std::size_t>(value);
    }
    std::size_t remaining() const { return size_ - position_; }
    // Where the next read starts.
    const std::uint8_t* here() const { return data_ + position_; }
    void expect_end() {
        if (remaining() != 0) {
            fail(std::to_string(remaining()) + " unexpected bytes at its end");
        }
    }
    [[noreturn]] void fail(const std::string& message) const { throw FileError(file_, what_ + ": " + message); }
    const std::string& file() const { return file_; }

private:
    void need(std::uint64_t size) const {
        if (size > remaining()) {
            fail("truncated: needs " + std::to_string(size) + " bytes, " + std::to_string(remaining()) + " left");
        }
    }

    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t position_ = 0;
    std::string file_;
    std::string what_;
};

}  // namespace tcgen
