#pragma once
// The runtime headers (embedded into tcgen) as code to paste into a
// generated file. runtime/manifest.txt gives their order and each one's role;
// a generated file takes the headers of the roles it uses. Each header's own
// include lines and include guard are removed, and the system headers it
// includes are gathered for the file's top, so that what remains is ordinary
// C++ after those includes.

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen {

struct RuntimeSource {
    std::set<std::string> system_includes;
    std::string code;
};

// A role of runtime/manifest.txt: its name ("seek") and the words a banner
// uses for it ("seeking by the block index").
struct RuntimeRole {
    std::string name;
    std::string description;
};

// A runtime header ("runtime/block_index.hpp") and its role's name.
struct RuntimeHeader {
    std::string path;
    std::string role;
};

struct RuntimeManifest {
    std::vector<RuntimeRole> roles;
    std::vector<RuntimeHeader> headers;  // in dependency order
};

// The manifest's text as read: "role NAME DESCRIPTION" lines, then "PATH
// ROLE" lines; '#' starts a comment line. Throws std::logic_error (an
// internal error) on a line of neither form, a role declared twice or a
// header of an undeclared role.
RuntimeManifest parse_runtime_manifest(std::string_view text);

// The manifest embedded into tcgen.
const RuntimeManifest& runtime_manifest();

// The headers of `roles` in the manifest's order, after the banner
// "// ===== tcgen runtime VERSION<part>: <what the roles are> =====" (part:
// ", part 1 of 2", say, or empty). Throws std::logic_error for a role the
// manifest does not declare.
RuntimeSource runtime_of_roles(const std::vector<std::string_view>& roles, std::string_view part);

// What a program that embeds the runtime links for its stream back-ends:
// the libraries of runtime/backends.txt, in its order ("-lbz2",
// "-llzma", "-lzstd").
std::vector<std::string> backend_link_flags();

// "#include <a>\n#include <b>": the gathered system includes, sorted.
std::string include_lines(const std::set<std::string>& system_includes);

}  // namespace tcgen
