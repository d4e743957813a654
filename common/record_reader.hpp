#pragma once
// A file of fixed-size records read a buffer at a time: whole records, in
// order, and a FileError naming how far into a record a file ends that ends
// inside one. Memory is the buffer's, never the file's.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/file_error.hpp>

namespace tcgen {

class RecordReader {
public:
    // `what` names a record in messages ("branch record").
    RecordReader(std::FILE* file, std::string path, std::size_t size, const char* what)
        : file_(file), path_(std::move(path)), size_(size), what_(what), buffer_(size * 65536) {}

    // The next record, or nullptr at the end of the file.
    const std::uint8_t* next() {
        if (at_ + size_ > have_) {
            refill();
            if (have_ == 0) {
                return nullptr;
            }
        }
        const std::uint8_t* record = buffer_.data() + at_;
        at_ += size_;
        return record;
    }

private:
    void refill() {
        const std::size_t left = have_ - at_;
        std::memmove(buffer_.data(), buffer_.data() + at_, left);
        have_ = left;
        at_ = 0;
        while (have_ < buffer_.size()) {
            const std::size_t got = std::fread(buffer_.data() + have_, 1, buffer_.size() - have_, file_);
            if (got == 0) {
                break;
            }
            have_ += got;
        }
        if (std::ferror(file_)) {
            throw FileError(path_, std::string("cannot read: ") + std::strerror(errno));
        }
        if (have_ % size_ != 0 && std::feof(file_)) {
            throw FileError(path_, "truncated: ends " + std::to_string(have_ % size_) + " bytes into a " +
                                       std::to_string(size_) + "-byte " + what_);
        }
    }

    std::FILE* file_;
    std::string path_;
    std::size_t size_;
    const char* what_;
    std::vector<std::uint8_t> buffer_;
    std::size_t have_ = 0;
    std::size_t at_ = 0;
};

}  // namespace tcgen
