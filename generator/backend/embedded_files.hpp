#pragma once
// Files built into the tcgen binary: the templates of the generated code,
// the runtime headers and the shipped example specs (the tuner's starts),
// each under its path in the source tree ("templates/compressor.cpp.mustache",
// "runtime/driver.hpp", "examples/vpc3.tcg").

#include <string_view>
#include <vector>

namespace tcgen {

struct EmbeddedFile {
    std::string_view path;
    std::string_view content;
};

// In the order the build listed them: the runtime headers in dependency order.
const std::vector<EmbeddedFile>& embedded_files();

// The content of one embedded file; throws std::logic_error (an internal
// error) when no file has that path.
std::string_view embedded_file(std::string_view path);

}  // namespace tcgen
