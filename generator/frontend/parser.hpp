#pragma once
// Parses spec text into the AST. This is the only interface to the parser:
// ANTLR's types never appear outside parser.cpp.

#include <optional>

#include "generator/frontend/ast.hpp"
#include "generator/frontend/diagnostics.hpp"
#include "generator/frontend/source_file.hpp"

namespace tcgen {

// Returns the AST, or nothing after reporting the first syntax error to the
// sink (later syntax errors are follow-on noise and are suppressed).
std::optional<ast::Spec> parse_spec(const SourceFile& file, DiagnosticSink& sink);

}  // namespace tcgen
