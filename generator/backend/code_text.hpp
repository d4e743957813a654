#pragma once
// Small pieces of text that every code generator of tcgen spells the same
// way.

#include <cstddef>
#include <string>

#include "generator/backend/template_renderer.hpp"

namespace tcgen {

// "std::uint32_t"
std::string unsigned_type(unsigned bits);

// A template list of {text: line}, one per line of `text`.
TemplateData text_lines(const std::string& text);

// The 1-based number of the first line of `text` that starts with `prefix`.
std::size_t line_of(const std::string& text, const std::string& prefix);

}  // namespace tcgen
