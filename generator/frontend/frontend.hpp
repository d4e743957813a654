#pragma once
// The front end as one call: spec text in, checked model or diagnostics out.

#include <optional>
#include <string>

#include "generator/frontend/diagnostics.hpp"
#include "generator/frontend/model.hpp"
#include "generator/frontend/source_file.hpp"

namespace tcgen {

// Parses and checks. Never throws on any input; on failure the sink holds at
// least one error.
std::optional<Spec> compile_spec(const SourceFile& file, DiagnosticSink& sink);

}  // namespace tcgen
