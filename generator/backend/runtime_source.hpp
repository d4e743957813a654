#pragma once
// The runtime headers (embedded into tcgen) as code to paste into a
// generated file: each header's own include lines and include guard are
// removed, and the system headers it includes are gathered for the file's
// top, so that what remains is ordinary C++ after those includes.

#include <set>
#include <string>
#include <string_view>

namespace tcgen {

struct RuntimeSource {
    std::set<std::string> system_includes;
    std::string code;
};

// Appends the embedded runtime header at `path` ("runtime/checksum.hpp").
void append_runtime_header(std::string_view path, RuntimeSource& runtime);

// "#include <a>\n#include <b>": the gathered system includes, sorted.
std::string include_lines(const std::set<std::string>& system_includes);

}  // namespace tcgen
