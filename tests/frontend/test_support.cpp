#include "test_support.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "generator/frontend/frontend.hpp"

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
    result.spec = compile_spec(file, sink);
    for (const Diagnostic& diagnostic : sink.diagnostics()) {
        std::string headline = format_headline(file, diagnostic);
        result.headlines.push_back(headline.substr(name.size() + 1));
    }
    std::ostringstream rendered;
    sink.print(rendered);
    result.rendered = rendered.str();
    return result;
}

}  // namespace tcgen::testing
