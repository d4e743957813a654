// A raw file read a piece at a time (pieces_file.hpp).

#include "wet/format/pieces_file.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include <sys/stat.h>
#include <unistd.h>

#include <tcgen/wet/raw_trace.hpp>

namespace tcgen::wet {

std::size_t check_records(const std::string& name, const std::uint8_t* head, std::size_t size, const char* magic,
                          std::size_t record_bytes) {
    if (size < 4 || std::memcmp(head, magic, 4) != 0) {
        throw WetError(name, std::string("not a WET ") + (name.substr(name.rfind('.') + 1)) +
                                 " file of format v2 (magic " + magic + " expected)");
    }
    if ((size - 4) % record_bytes != 0) {
        throw WetError(name, "truncated or corrupt: " + std::to_string(size) + " bytes is not 4 + a multiple of " +
                                 std::to_string(record_bytes));
    }
    const std::size_t count = (size - 4) / record_bytes;
    if (count >= std::numeric_limits<std::uint32_t>::max()) {
        throw WetError(name, "more than 2^32 - 2 records");
    }
    return count;
}

PiecesFile::PiecesFile(const std::string& name, const char* magic, std::size_t record_bytes)
    : name_(name), record_bytes_(record_bytes), file_(open_input(name)) {
    struct stat status {};
    if (::fstat(::fileno(file_.get()), &status) != 0 || !S_ISREG(status.st_mode)) {
        bytes_ = read_whole_file(name);
        count_ = check_records(name, bytes_.data(), bytes_.size(), magic, record_bytes);
        file_.reset();
        return;
    }
    const std::size_t size = static_cast<std::size_t>(status.st_size);
    std::uint8_t head[4] = {};
    const std::size_t head_bytes = std::fread(head, 1, std::min<std::size_t>(size, 4), file_.get());
    if (starts_zstd_frames(head, head_bytes)) {
        frames_ = std::make_unique<ZstdFramesReader>(name, tcgen_runtime::Descriptor(::dup(::fileno(file_.get()))));
        file_.reset();
        const std::uint64_t raw_size = frames_->size();
        const std::size_t raw_head_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(raw_size, 4));
        frames_->read(0, raw_head_bytes, head);
        count_ = check_records(name, head, raw_head_bytes < 4 ? raw_head_bytes : raw_size, magic, record_bytes);
        return;
    }
    count_ = check_records(name, head, head_bytes < 4 ? head_bytes : size, magic, record_bytes);
}

void PiecesFile::read(std::size_t first, std::size_t count, std::uint8_t* bytes) const {
    const std::size_t offset = 4 + first * record_bytes_;
    if (frames_) {
        frames_->read(offset, count * record_bytes_, bytes);
        return;
    }
    if (!file_) {
        std::memcpy(bytes, bytes_.data() + offset, count * record_bytes_);
        return;
    }
    if (std::fseek(file_.get(), static_cast<long>(offset), SEEK_SET) != 0) {
        throw WetError(name_, "cannot read: cannot seek to record " + std::to_string(first));
    }
    if (std::fread(bytes, record_bytes_, count, file_.get()) != count) {
        throw WetError(name_, "cannot read: the file shrank while it was read");
    }
}

}  // namespace tcgen::wet
