#pragma once
// Helpers shared by the front-end tests.

#include <optional>
#include <string>
#include <vector>

#include "generator/frontend/diagnostics.hpp"
#include "generator/frontend/model.hpp"
#include "generator/frontend/source_file.hpp"

namespace tcgen::testing {

std::string source_path(const std::string& relative);
std::string read_text(const std::string& path);
std::vector<std::string> files_with_extension(const std::string& directory, const std::string& extension);

// The result of running the front end on a text.
struct CompileResult {
    std::optional<Spec> spec;
    std::vector<std::string> headlines;  // "LINE:COL: error: MESSAGE", file name dropped
    std::string rendered;                // everything as printed, with carets
};

CompileResult compile_text(const std::string& text, const std::string& name = "spec.tcg");

}  // namespace tcgen::testing
