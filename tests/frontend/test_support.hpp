#pragma once
// Helpers shared by the front-end tests.

#include <optional>
#include <string>
#include <vector>

#include "generator/frontend/diagnostics.hpp"
#include "generator/frontend/model.hpp"
#include "generator/frontend/source_file.hpp"
#include "generator/plan/code_plan.hpp"

namespace tcgen::testing {

std::string source_path(const std::string& relative);
std::string read_text(const std::string& path);
std::vector<std::string> files_with_extension(const std::string& directory, const std::string& extension);

// The result of running the front end and the planner on a text.
struct CompileResult {
    std::optional<Spec> spec;
    std::optional<CodePlan> plan;  // fully optimised
    std::vector<std::string> headlines;  // "LINE:COL: error: MESSAGE", file name dropped
    std::string rendered;                // everything as printed, with carets
};

CompileResult compile_text(const std::string& text, const std::string& name = "spec.tcg");

// A plan's tables by the names the generated code gives them ("lv",
// "stride_history"): the index, or no_index.
std::size_t table_index(const PlanField& field, const std::string& name);
bool has_table(const PlanField& field, const std::string& name);

}  // namespace tcgen::testing
