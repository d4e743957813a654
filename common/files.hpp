#pragma once
// Files as the tools read and write them, failures as a FileError naming the
// file: a whole file read into memory, a whole file written so that it
// appears only once complete, and an input opened to be read piece by piece.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tcgen/file_error.hpp>

#include "common/output.hpp"

namespace tcgen {

// Where a failure to read a file names it: before the error, as a
// FileError, "PATH: error: cannot open: REASON"; or in the message of a
// std::runtime_error, "cannot open 'PATH': REASON", for a program whose
// error lines name no file before the message (wet-walk, wet-bench).
enum class FileNamed { before_error, in_message };

// The whole of file `path`: a regular file in one allocation of its size
// and one read, anything else (a pipe) read to its end. A directory is
// refused by name: a stream would take its size for 2^63 bytes, and the
// allocation's failure would be all the user saw.
inline std::vector<std::uint8_t> read_whole_file(const std::string& path, FileNamed named = FileNamed::before_error) {
    const auto fail = [&](const std::string& step, const std::string& reason) {
        const std::string because = reason.empty() ? "" : ": " + reason;
        if (named == FileNamed::in_message) {
            throw std::runtime_error(step + " '" + path + "'" + because);
        }
        throw FileError(path, step + because);
    };
    const tcgen_runtime::Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (file.get() < 0) {
        fail("cannot open", std::strerror(errno));
    }
    struct stat status {};
    if (::fstat(file.get(), &status) != 0) {
        fail("cannot read", std::strerror(errno));
    }
    if (S_ISDIR(status.st_mode)) {
        fail("cannot read", "is a directory");
    }
    std::vector<std::uint8_t> bytes(S_ISREG(status.st_mode) ? static_cast<std::size_t>(status.st_size) : 0);
    std::size_t have = 0;
    for (;;) {
        if (have == bytes.size()) {
            if (S_ISREG(status.st_mode)) {
                break;  // a file that grows while read is read as it was
            }
            bytes.resize(bytes.empty() ? 65536 : 2 * bytes.size());
        }
        const ssize_t got = ::read(file.get(), bytes.data() + have, bytes.size() - have);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            fail("cannot read", std::strerror(errno));
        }
        if (got == 0) {
            break;
        }
        have += static_cast<std::size_t>(got);
    }
    bytes.resize(have);
    return bytes;
}

// Writes file `path`, which appears only once complete (common/output.hpp):
// a full disk or a kill never leaves a partial file under the name.
inline void write_whole_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    Output file(path);
    file.write(bytes.data(), bytes.size());
    file.commit();
}

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// File `path` opened to be read piece by piece; a FileError naming it when
// it cannot be opened or is a directory.
inline FilePtr open_input(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        throw FileError(path, std::string("cannot open: ") + std::strerror(errno));
    }
    FilePtr opened(file, std::fclose);
    struct stat status {};
    if (::fstat(::fileno(file), &status) == 0 && S_ISDIR(status.st_mode)) {
        throw FileError(path, "cannot read: is a directory");
    }
    return opened;
}

}  // namespace tcgen
