#pragma once
// The one error type of tcgen's libraries and tools: a failure about one
// file. what() is the line the tools print, "FILE: error: WHAT"; file() and
// message() give its parts, so that a caller may name another file ("FILE"
// is sometimes a stage, "input" or "hot", that the caller knows the file of).
// libtcgen_wet calls it WetError and libtcgen_wpp WppError.

#include <stdexcept>
#include <string>

namespace tcgen {

class FileError : public std::runtime_error {
public:
    FileError(const std::string& file, const std::string& message)
        : std::runtime_error(file + ": error: " + message), file_(file), message_(message) {}
    const std::string& file() const { return file_; }
    const std::string& message() const { return message_; }

private:
    std::string file_;
    std::string message_;
};

}  // namespace tcgen
