#pragma once
// The one exception type of the runtime. Every failure a user can cause
// (bad input, I/O error, wrong decompressor) becomes an Error whose message is
// one lower-case line; the driver prints it as "NAME: error: MESSAGE".

#include <stdexcept>
#include <string>

namespace tcgen_runtime {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

[[noreturn]] inline void fail(const std::string& message) {
    throw Error(message);
}

}  // namespace tcgen_runtime
