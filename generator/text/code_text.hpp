#pragma once
// Small pieces of text that every code generator of tcgen spells the same
// way.

#include <cstddef>
#include <string>
#include <string_view>

#include "generator/text/template_renderer.hpp"

namespace tcgen {

// "std::uint32_t"
std::string unsigned_type(unsigned bits);

// A template list of {text: line}, one per line of `text`.
TemplateData text_lines(const std::string& text);

// `text` (a file name, say) as it may stand in a comment of generated code,
// within double quotes: backslash and double quote escaped, and every byte
// outside printable ASCII written as \xNN, so that nothing a user names can
// end the comment, splice the next line into it or smuggle code in. Every
// name that reaches generated code goes through this or is refused.
std::string comment_safe(std::string_view text);

// The 1-based number of the first line of `text` that starts with `prefix`.
std::size_t line_of(const std::string& text, const std::string& prefix);

}  // namespace tcgen
