#include "test_support.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "generator/text/field_names.hpp"
#include "generator/plan/planner.hpp"

namespace tcgen::testing {

std::string source_path(const std::string& relative) {
    return std::string(TCGEN_SOURCE_DIR) + "/" + relative;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> files_with_extension(const std::string& directory, const std::string& extension) {
    std::vector<std::string> paths;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        if (entry.path().extension() == extension) {
            paths.push_back(entry.path().string());
        }
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

CompileResult compile_text(const std::string& text, const std::string& name) {
    SourceFile file(name, text);
    DiagnosticSink sink(file);
    CompileResult result;
    result.plan = compile_to_plan(file, sink);
    if (result.plan) {
        result.spec = result.plan->spec;
    }
    for (const Diagnostic& diagnostic : sink.diagnostics()) {
        std::string headline = format_headline(file, diagnostic);
        result.headlines.push_back(headline.substr(name.size() + 1));
    }
    std::ostringstream rendered;
    sink.print(rendered);
    result.rendered = rendered.str();
    return result;
}

std::size_t table_index(const PlanField& field, const std::string& name) {
    FieldNames names(field);
    for (std::size_t i = 0; i < field.tables.size(); ++i) {
        if (names.name(i) == name) {
            return i;
        }
    }
    return no_index;
}

bool has_table(const PlanField& field, const std::string& name) {
    return table_index(field, name) != no_index;
}

}  // namespace tcgen::testing
