#pragma once
// Byte sources and sinks the driver reads and writes: POSIX file descriptors
// (stdin/stdout by default) for the program, memory buffers for tests and for
// in-process use. Called once per block, so a virtual call costs nothing.

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "error.hpp"

namespace tcgen_runtime {

class ByteSource {
public:
    virtual ~ByteSource() = default;
    // Reads until `size` bytes or end of input; returns how many were read, so a
    // result below `size` means the input is exhausted.
    virtual std::size_t read_up_to(std::uint8_t* buffer, std::size_t size) = 0;

    // Random access, for sources that have it (a regular file, memory): the
    // size of the whole input, or nothing for a stream.
    virtual std::optional<std::uint64_t> size() const { return std::nullopt; }

    // Reads on from `offset` bytes into the input; only when size() has a value.
    virtual void seek(std::uint64_t /*offset*/) { fail("internal error: seek in a stream"); }
};

class ByteSink {
public:
    virtual ~ByteSink() = default;
    virtual void write(const std::uint8_t* data, std::size_t size) = 0;
    // Pushes buffered bytes out; data not flushed is lost, which is what the
    // driver wants when it stops on an error.
    virtual void flush() = 0;
};

// The message of an errno value. Not std::strerror: the read-ahead thread may
// fail beside the main one, and only some C libraries (glibc from 2.32) make
// strerror safe for that; the standard category returns a string of its own.
inline std::string errno_text(int error_number) {
    return std::generic_category().message(error_number);
}

class InputFile final : public ByteSource {
public:
    explicit InputFile(int descriptor = STDIN_FILENO) : descriptor_(descriptor) {}

    std::size_t read_up_to(std::uint8_t* buffer, std::size_t size) override {
        std::size_t total = 0;
        while (total < size && !at_eof_) {
            const ssize_t result = ::read(descriptor_, buffer + total, size - total);
            if (result < 0) {
                if (errno == EINTR) {
                    continue;
                }
                fail("read error: " + errno_text(errno));
            }
            if (result == 0) {
                // Remember end of file: a terminal would otherwise need a second ^D.
                at_eof_ = true;
                break;
            }
            total += static_cast<std::size_t>(result);
        }
        return total;
    }

    std::optional<std::uint64_t> size() const override {
        struct stat status {};
        if (::fstat(descriptor_, &status) != 0 || !S_ISREG(status.st_mode)) {
            return std::nullopt;
        }
        return static_cast<std::uint64_t>(status.st_size);
    }

    void seek(std::uint64_t offset) override {
        if (::lseek(descriptor_, static_cast<off_t>(offset), SEEK_SET) < 0) {
            fail("read error: " + errno_text(errno));
        }
        at_eof_ = false;
    }

private:
    int descriptor_;
    bool at_eof_ = false;
};

class OutputFile final : public ByteSink {
public:
    static constexpr std::size_t buffer_capacity = std::size_t{1} << 20;

    explicit OutputFile(int descriptor = STDOUT_FILENO, std::size_t capacity = buffer_capacity)
        : descriptor_(descriptor), capacity_(capacity) {
        buffer_.reserve(capacity_);
    }

    void write(const std::uint8_t* data, std::size_t size) override {
        if (buffer_.size() + size <= capacity_) {
            buffer_.insert(buffer_.end(), data, data + size);
            return;
        }
        flush();
        if (size >= capacity_) {
            write_all(data, size);
            return;
        }
        buffer_.insert(buffer_.end(), data, data + size);
    }

    void flush() override {
        if (buffer_.empty()) {
            return;
        }
        write_all(buffer_.data(), buffer_.size());
        buffer_.clear();
    }

private:
    void write_all(const std::uint8_t* data, std::size_t size) {
        std::size_t done = 0;
        while (done < size) {
            const ssize_t result = ::write(descriptor_, data + done, size - done);
            if (result < 0) {
                if (errno == EINTR) {
                    continue;
                }
                fail("write error: " + errno_text(errno));
            }
            done += static_cast<std::size_t>(result);
        }
    }

    int descriptor_;
    std::size_t capacity_;
    std::vector<std::uint8_t> buffer_;
};

class MemorySource final : public ByteSource {
public:
    MemorySource(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    explicit MemorySource(const std::vector<std::uint8_t>& bytes) : data_(bytes.data()), size_(bytes.size()) {}
    // It reads the bytes where they are: a temporary would be gone.
    explicit MemorySource(std::vector<std::uint8_t>&& bytes) = delete;

    std::size_t read_up_to(std::uint8_t* buffer, std::size_t size) override {
        const std::size_t available = size_ - position_;
        const std::size_t count = size < available ? size : available;
        if (count > 0) {
            std::memcpy(buffer, data_ + position_, count);
        }
        position_ += count;
        return count;
    }

    std::optional<std::uint64_t> size() const override { return size_; }

    void seek(std::uint64_t offset) override { position_ = offset < size_ ? static_cast<std::size_t>(offset) : size_; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t position_ = 0;
};

// A source whose first bytes are read ahead on construction, for a look at
// them (ahead()), and then read again as if they had not been: what a
// reader learns from the start of a file before choosing how to read it.
// Read in order only: it has no size and no seek.
class LookAheadSource final : public ByteSource {
public:
    LookAheadSource(ByteSource& source, std::size_t bytes) : source_(source), ahead_(bytes) {
        ahead_.resize(source_.read_up_to(ahead_.data(), bytes));
    }

    // The first bytes (fewer where the input is shorter).
    const std::vector<std::uint8_t>& ahead() const { return ahead_; }

    std::size_t read_up_to(std::uint8_t* buffer, std::size_t size) override {
        std::size_t count = 0;
        if (position_ < ahead_.size()) {
            count = std::min(size, ahead_.size() - position_);
            std::memcpy(buffer, ahead_.data() + position_, count);
            position_ += count;
        }
        if (count < size) {
            count += source_.read_up_to(buffer + count, size - count);
        }
        return count;
    }

private:
    ByteSource& source_;
    std::vector<std::uint8_t> ahead_;
    std::size_t position_ = 0;
};

class MemorySink final : public ByteSink {
public:
    void write(const std::uint8_t* data, std::size_t size) override { bytes_.insert(bytes_.end(), data, data + size); }

    void flush() override {}

    const std::vector<std::uint8_t>& bytes() const { return bytes_; }

private:
    std::vector<std::uint8_t> bytes_;
};

}  // namespace tcgen_runtime
