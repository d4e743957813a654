#pragma once
// Turns the AST into the checked model, reporting every independent problem.

#include <optional>

#include "generator/frontend/ast.hpp"
#include "generator/frontend/diagnostics.hpp"
#include "generator/frontend/model.hpp"
#include "runtime/format_limits.hpp"

namespace tcgen {

// The largest accepted values, beyond which a spec is surely a mistake.
constexpr std::uint64_t max_level_size = std::uint64_t{1} << 32;
constexpr unsigned max_predictor_order = 32;
constexpr unsigned max_predictions_per_field = 255;                // the miss code must fit a byte
// The .tcz container's own limits (runtime/format_limits.hpp), so that every
// accepted spec yields a compressor that compiles and a file it can write.
constexpr std::uint64_t max_header_bits = tcgen_runtime::tcz_max_header_bytes * 8;
constexpr std::size_t max_fields = 4096;  // keeps records, streams and spec text within the format
// The generated code grows with the predictions of all fields together (a
// few lines each): 4096 of them make about 14 MB of C++ in a few seconds,
// while the 4096 × 255 the two limits above allow would make gigabytes.
constexpr std::size_t max_predictions_in_all = 4096;

// Returns the model, or nothing when any error was reported.
std::optional<Spec> check_spec(const ast::Spec& syntax, DiagnosticSink& sink);

}  // namespace tcgen
