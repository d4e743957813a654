#include "generator/backend/runtime_source.hpp"

#include <sstream>

#include "generator/backend/embedded_files.hpp"

namespace tcgen {

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

std::string include_lines(const std::set<std::string>& system_includes) {
    std::string includes;
    for (const std::string& header : system_includes) {
        includes += (includes.empty() ? "" : "\n") + ("#include <" + header + ">");
    }
    return includes;
}

}  // namespace tcgen
