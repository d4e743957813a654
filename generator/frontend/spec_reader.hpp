#pragma once
// Reads a spec file (or standard input for "-") into a SourceFile.

#include <optional>
#include <string>

#include "generator/frontend/source_file.hpp"

namespace tcgen {

// On failure returns nothing and sets `error` to a one-line reason such as
// "cannot read 'x.tcg': No such file or directory".
std::optional<SourceFile> read_spec_file(const std::string& path, std::string& error);

}  // namespace tcgen
