#include "generator/backend/bidirectional_codegen.hpp"

#include <cctype>
#include <sstream>

#include "generator/backend/canonical_printer.hpp"
#include "generator/backend/encoding.hpp"
#include "generator/text/code_text.hpp"
#include "generator/backend/runtime_source.hpp"
#include "generator/text/template_renderer.hpp"
#include "generator/version.hpp"
#include "runtime/checksum.hpp"

namespace tcgen {
namespace {

// The version of the saved form (runtime/bidirectional/saved_stream.hpp),
// part of every fingerprint.
constexpr unsigned format_version = 1;

// The roles (runtime/manifest.txt) of the runtime of bidirectional streams.
const std::vector<std::string_view> bidirectional_runtime = {"core", "checksum", "bidirectional"};

// Standard headers the generated source itself uses.
const char* const generated_source_includes[] = {"cstddef", "cstdint", "memory", "string", "utility", "vector"};

unsigned log2_of(std::uint64_t power_of_two) {
    unsigned bits = 0;
    while ((std::uint64_t{1} << bits) < power_of_two) {
        ++bits;
    }
    return bits;
}

TemplateData field_data(const PlanField& field, bool first) {
    TemplateData data;
    data.set("number", std::to_string(field.number));
    data.set("first", first);
    data.set("bits", std::to_string(field.bits));
    data.set("offset", std::to_string(field.offset));
    data.set("l2", std::to_string(field.l2));
    data.set("table_bits", std::to_string(log2_of(field.l2)));
    data.set("value_type", unsigned_type(field.bits));
    TemplateData candidates = template_list();
    std::string summary;
    for (std::size_t i = 0; i < field.predictors.size(); ++i) {
        const Predictor& predictor = field.predictors[i].spec;
        TemplateData candidate;
        candidate.set("kind", std::string(predictor.kind->bidirectional_kind()));
        candidate.set("order", std::to_string(predictor.order));
        candidate.set("entries", std::to_string(predictor.entries));
        candidate.set("last", i + 1 == field.predictors.size());
        candidates.push_back(candidate);
        summary += (summary.empty() ? "" : ", ") + predictor_name(predictor);
    }
    data.set("candidates", candidates);
    data.set("candidate_summary", summary);
    return data;
}

TemplateData stream_data(const CodePlan& plan, const BidirectionalNames& names) {
    TemplateData data;
    data.set("tcgen_version", std::string(version));
    data.set("format_version", std::to_string(format_version));
    data.set("fingerprint", fingerprint_text(bidirectional_fingerprint(plan)));
    // The statements, as fingerprinted; without the "0-Bit Header;" that
    // spec_text() writes for a spec without one, which is every spec here.
    std::string statements = spec_text(plan.spec);
    const std::string no_header = "0-Bit Header;\n";
    if (std::size_t at = statements.find(no_header); at != std::string::npos) {
        statements.erase(at, no_header.size());
    }
    data.set("spec_lines", text_lines(statements));
    data.set("spec_name", names.stem);
    data.set("class_name", names.class_name);
    data.set("namespace", names.cpp_namespace);
    data.set("header_file", names.stem + ".hpp");
    data.set("source_file", names.stem + ".cpp");
    data.set("record_bytes", std::to_string(plan.record_bytes));
    data.set("field_count", std::to_string(plan.fields.size()));
    TemplateData fields = template_list();
    for (const PlanField& field : plan.fields) {
        fields.push_back(field_data(field, &field == &plan.fields.front()));
    }
    data.set("fields", fields);
    return data;
}

}  // namespace

BidirectionalNames bidirectional_names(const std::string& stem, const std::string& cpp_namespace) {
    BidirectionalNames names;
    names.stem = stem;
    names.cpp_namespace = cpp_namespace;
    bool upper = true;
    for (char c : stem) {
        if (c == '_') {
            upper = true;
            continue;
        }
        names.class_name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    if (names.class_name.empty() || std::isdigit(static_cast<unsigned char>(names.class_name[0]))) {
        names.class_name = "Stream" + names.class_name;
    }
    return names;
}

std::uint64_t bidirectional_fingerprint(const CodePlan& plan) {
    return tcgen_runtime::fingerprint64("bidirectional stream format " + std::to_string(format_version) + "\n" +
                                        spec_text(plan.spec));
}

std::string generate_bidirectional_header(const CodePlan& plan, const BidirectionalNames& names) {
    return render_template("bidirectional.hpp", stream_data(plan, names));
}

std::string generate_bidirectional_source(const CodePlan& plan, const BidirectionalNames& names) {
    TemplateData data = stream_data(plan, names);
    RuntimeSource runtime = runtime_of_roles(bidirectional_runtime, "");
    runtime.system_includes.insert(std::begin(generated_source_includes), std::end(generated_source_includes));
    data.set("system_includes", include_lines(runtime.system_includes));
    data.set("runtime", runtime.code);
    // Render once to learn where the spec's code starts, then with it.
    data.set("spec_code_line", "0");
    std::string code = render_template("bidirectional.cpp", data);
    data.set("spec_code_line", std::to_string(line_of(code, "// ===== the stream of this spec")));
    return render_template("bidirectional.cpp", data);
}

}  // namespace tcgen
