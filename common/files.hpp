#pragma once
// Files as the tools read and write them, failures as a FileError naming the
// file: a whole file read into memory, a whole file written so that it
// appears only once complete, and an input opened to be read piece by piece.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <tcgen/file_error.hpp>

#include "common/output.hpp"

namespace tcgen {

// Where a failure to read a file names it: before the error, as a
// FileError, "PATH: error: cannot open: REASON"; or in the message of a
// std::runtime_error, "cannot open 'PATH': REASON", for a program whose
// error lines name no file before the message (wet-walk, wet-bench).
enum class FileNamed { before_error, in_message };

// The whole of file `path`, in one allocation of its size and one read.
inline std::vector<std::uint8_t> read_whole_file(const std::string& path, FileNamed named = FileNamed::before_error) {
    const auto fail = [&](const std::string& step, const std::string& reason) {
        const std::string because = reason.empty() ? "" : ": " + reason;
        if (named == FileNamed::in_message) {
            throw std::runtime_error(step + " '" + path + "'" + because);
        }
        throw FileError(path, step + because);
    };
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) {
        fail("cannot open", std::strerror(errno));
    }
    const std::streamoff size = file.tellg();
    if (size < 0) {
        fail("cannot read", "");
    }
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
    file.seekg(0);
    if (size > 0 && !file.read(reinterpret_cast<char*>(bytes.data()), size)) {
        fail("cannot read", "");
    }
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
// it cannot be opened.
inline FilePtr open_input(const std::string& path) {
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        throw FileError(path, std::string("cannot open: ") + std::strerror(errno));
    }
    return FilePtr(file, std::fclose);
}

}  // namespace tcgen
