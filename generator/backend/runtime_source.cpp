#include "generator/backend/runtime_source.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "generator/backend/embedded_files.hpp"
#include "generator/version.hpp"

namespace tcgen {
namespace {

const char* const manifest_path = "runtime/manifest.txt";

bool declares(const RuntimeManifest& manifest, std::string_view role) {
    return std::any_of(manifest.roles.begin(), manifest.roles.end(),
                       [&](const RuntimeRole& declared) { return declared.name == role; });
}

[[noreturn]] void bad_manifest_line(std::size_t number, const std::string& problem) {
    throw std::logic_error(std::string(manifest_path) + ":" + std::to_string(number) + ": " + problem);
}

// Appends the embedded runtime header at `path` ("runtime/checksum.hpp").
void append_runtime_header(std::string_view path, RuntimeSource& runtime) {
    runtime.code += "// ----- " + std::string(path) + " -----\n";
    std::istringstream lines{std::string(embedded_file(path))};
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("#pragma once", 0) == 0 || line.rfind("#include \"", 0) == 0) {
            continue;
        }
        if (line.rfind("#include <", 0) == 0) {
            std::size_t end = line.find('>');
            runtime.system_includes.insert(line.substr(10, end - 10));
            continue;
        }
        runtime.code += line + "\n";
    }
}

}  // namespace

RuntimeManifest parse_runtime_manifest(std::string_view text) {
    RuntimeManifest manifest;
    std::istringstream lines{std::string(text)};
    std::string line;
    std::size_t number = 0;
    while (std::getline(lines, line)) {
        ++number;
        std::istringstream words(line);
        std::string first;
        std::string second;
        if (!(words >> first) || first[0] == '#') {
            continue;
        }
        if (!(words >> second)) {
            bad_manifest_line(number, "expected 'role NAME DESCRIPTION' or 'PATH ROLE'");
        }
        if (first == "role") {
            std::string description;
            std::getline(words >> std::ws, description);
            if (description.empty() || declares(manifest, second)) {
                bad_manifest_line(number, "role '" + second + "' without a description or declared twice");
            }
            manifest.roles.push_back({second, description});
            continue;
        }
        std::string extra;
        if (words >> extra || !declares(manifest, second)) {
            bad_manifest_line(number, "header '" + first + "' needs one declared role, not '" + second + "'");
        }
        manifest.headers.push_back({first, second});
    }
    return manifest;
}

const RuntimeManifest& runtime_manifest() {
    static const RuntimeManifest manifest = parse_runtime_manifest(embedded_file(manifest_path));
    return manifest;
}

RuntimeSource runtime_of_roles(const std::vector<std::string_view>& roles, std::string_view part) {
    const RuntimeManifest& manifest = runtime_manifest();
    for (std::string_view role : roles) {
        if (!declares(manifest, role)) {
            throw std::logic_error("the runtime manifest has no role '" + std::string(role) + "'");
        }
    }
    auto wanted = [&](const std::string& role) { return std::find(roles.begin(), roles.end(), role) != roles.end(); };
    std::string contents;
    for (const RuntimeRole& role : manifest.roles) {
        if (wanted(role.name)) {
            contents += (contents.empty() ? "" : ", ") + role.description;
        }
    }
    RuntimeSource runtime;
    runtime.code = "// ===== tcgen runtime " + std::string(version) + std::string(part) + ": " + contents + " =====\n\n";
    for (const RuntimeHeader& header : manifest.headers) {
        if (wanted(header.role)) {
            append_runtime_header(header.path, runtime);
        }
    }
    return runtime;
}

std::vector<std::string> backend_link_flags() {
    // The build's, from runtime/backends.txt (runtime/CMakeLists.txt).
    std::istringstream words{TCGEN_BACKEND_LINK_FLAGS};
    std::vector<std::string> flags;
    std::string flag;
    while (words >> flag) {
        flags.push_back(flag);
    }
    return flags;
}

std::string include_lines(const std::set<std::string>& system_includes) {
    std::string includes;
    for (const std::string& header : system_includes) {
        includes += (includes.empty() ? "" : "\n") + ("#include <" + header + ">");
    }
    return includes;
}

}  // namespace tcgen
