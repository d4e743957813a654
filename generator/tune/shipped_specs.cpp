#include "generator/tune/shipped_specs.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "generator/backend/embedded_files.hpp"
#include "generator/tune/layout.hpp"

namespace tcgen::tune {

namespace {

constexpr std::string_view preferred = "examples/vpc3.tcg";

bool is_example_spec(std::string_view path) {
    const std::string_view folder = "examples/";
    const std::string_view extension = ".tcg";
    return path.size() > folder.size() + extension.size() && path.substr(0, folder.size()) == folder &&
           path.substr(path.size() - extension.size()) == extension &&
           path.find('/', folder.size()) == std::string_view::npos;
}

}  // namespace

bool same_layout(const Candidate& a, const Candidate& b) {
    if (a.header_bits != b.header_bits || a.pc_field != b.pc_field || a.fields.size() != b.fields.size()) {
        return false;
    }
    for (std::size_t index = 0; index < a.fields.size(); ++index) {
        if (a.fields[index].bits != b.fields[index].bits) {
            return false;
        }
    }
    return true;
}

std::vector<ShippedSpec> shipped_specs_for(const Candidate& layout) {
    std::vector<EmbeddedFile> examples;
    for (const EmbeddedFile& file : embedded_files()) {
        if (is_example_spec(file.path)) {
            examples.push_back(file);
        }
    }
    std::stable_sort(examples.begin(), examples.end(), [](const EmbeddedFile& a, const EmbeddedFile& b) {
        const bool a_first = a.path == preferred;
        const bool b_first = b.path == preferred;
        return a_first != b_first ? a_first : a.path < b.path;
    });
    std::vector<ShippedSpec> specs;
    for (const EmbeddedFile& file : examples) {
        // A shipped spec that does not compile is a build bug the example
        // tests catch; here it is only not a start.
        std::ostringstream ignored;
        std::optional<Candidate> candidate =
            spec_candidate(SourceFile(std::string(file.path), std::string(file.content)), ignored);
        if (candidate && same_layout(*candidate, layout)) {
            specs.push_back(ShippedSpec{std::string(file.path), *candidate});
        }
    }
    return specs;
}

std::optional<ShippedSpec> shipped_spec_for(const Candidate& layout) {
    std::vector<ShippedSpec> specs = shipped_specs_for(layout);
    if (specs.empty()) {
        return std::nullopt;
    }
    return specs.front();
}

}  // namespace tcgen::tune
