#pragma once
// The record layout the tuner starts from: header width, field widths and
// which field is the PC, given as --record=TEXT or taken from a spec.
//
// --record is a comma-separated list: an optional first item hN (an N-bit
// header, N a multiple of 8), then one item per field in record order, N (an
// N-bit field, N = 8, 16, 32 or 64) or pcN (the N-bit PC field, exactly
// one). The paper's VPC format is "h32,pc32,64".

#include <iosfwd>
#include <optional>
#include <string>

#include "generator/frontend/source_file.hpp"
#include "generator/tune/candidate.hpp"

namespace tcgen::tune {

// A candidate without predictors (every field's list empty), or nothing with
// `error` set to a one-line reason.
std::optional<Candidate> parse_record_layout(const std::string& text, std::string& error);

// The layout and predictors of a spec: a candidate of its own. On a bad
// spec, prints its diagnostics to `diagnostics` and returns nothing.
std::optional<Candidate> spec_candidate(const SourceFile& file, std::ostream& diagnostics);

// "h32,pc32,64": the --record text of a candidate's layout.
std::string layout_text(const Candidate& candidate);

}  // namespace tcgen::tune
