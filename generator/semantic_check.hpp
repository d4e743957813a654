#pragma once
// Turns the AST into the checked model, reporting every independent problem.

#include <optional>

#include "generator/ast.hpp"
#include "generator/diagnostics.hpp"
#include "generator/model.hpp"

namespace tcgen {

// The largest accepted values, beyond which a spec is surely a mistake.
constexpr std::uint64_t max_level_size = std::uint64_t{1} << 32;
constexpr unsigned max_predictor_order = 32;
constexpr unsigned max_predictions_per_field = 255;  // the miss code must fit a byte
constexpr std::uint64_t max_header_bits = std::uint64_t{8} << 30;  // 1 GiB of header

// Returns the model, or nothing when any error was reported.
std::optional<Spec> check_spec(const ast::Spec& syntax, DiagnosticSink& sink);

}  // namespace tcgen
