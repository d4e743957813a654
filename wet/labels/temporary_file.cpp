// A temporary file of `wet build` (temporary_file.hpp).

#include "wet/labels/temporary_file.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <tcgen/wet/raw_trace.hpp>
#include "runtime/files.hpp"

namespace tcgen::wet {
namespace {

std::string failure(const std::string& what) {
    return what + ": " + std::strerror(errno);
}

}  // namespace

TemporaryFile::TemporaryFile(const std::string& beside, const std::string& kind, std::string holds)
    : holds_(std::move(holds)) {
    // A name of this process's, taken exclusively; on the signals' list
    // until it is unlinked, a moment later.
    tcgen_runtime::PendingTemporary pending;
    for (unsigned attempt = 0;; ++attempt) {
        pending.path = beside + "." + kind + "." + std::to_string(::getpid()) + "." + std::to_string(attempt) + ".tmp";
        tcgen_runtime::add_pending_temporary(pending);
        descriptor_ = ::open(pending.path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        const int error = errno;
        if (descriptor_ >= 0) {
            ::unlink(pending.path.c_str());
        }
        tcgen_runtime::remove_pending_temporary(pending);
        errno = error;
        if (descriptor_ >= 0) {
            break;
        }
        if (errno != EEXIST || attempt == 99) {
            throw WetError(pending.path, failure("cannot create the temporary file of " + holds_));
        }
    }
    name_ = pending.path;
}

TemporaryFile::~TemporaryFile() {
    ::close(descriptor_);
}

void TemporaryFile::write(std::uint64_t offset, const void* data, std::size_t size) const {
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    while (size > 0) {
        const ssize_t written = ::pwrite(descriptor_, bytes, size, static_cast<off_t>(offset));
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            throw WetError(name_, failure("cannot write " + holds_));
        }
        bytes += written;
        size -= static_cast<std::size_t>(written);
        offset += static_cast<std::uint64_t>(written);
    }
}

void TemporaryFile::read(std::uint64_t offset, void* data, std::size_t size) const {
    auto* bytes = static_cast<std::uint8_t*>(data);
    while (size > 0) {
        const ssize_t got = ::pread(descriptor_, bytes, size, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            throw WetError(name_, got == 0 ? std::string("read error: the file is shorter than was written")
                                           : failure("read error"));
        }
        bytes += got;
        size -= static_cast<std::size_t>(got);
        offset += static_cast<std::uint64_t>(got);
    }
}

}  // namespace tcgen::wet
