#pragma once
// Renders the templates in templates/ (embedded into the binary) with
// mustache: {{name}} holes, {{#list}}...{{/list}} repetition and
// {{#flag}}/{{^flag}} conditions, {{> partial}} for another template file.
//
// Strict where mustache is lenient, because a typo in a template must not
// silently produce wrong code: every name a template uses must be present in
// the data (flags as explicit true/false), otherwise rendering throws
// std::logic_error, which tcgen reports as an internal error. Nothing is
// HTML-escaped. User text (the spec) is only ever a value, never a template.

#include <string>
#include <string_view>

#include <kainjow/mustache.hpp>

namespace tcgen {

using TemplateData = kainjow::mustache::data;

// A list value to fill with push_back.
TemplateData template_list();

// Renders templates/<name>.mustache.
std::string render_template(std::string_view name, const TemplateData& data);

}  // namespace tcgen
