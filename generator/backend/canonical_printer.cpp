#include "generator/backend/canonical_printer.hpp"

#include "generator/backend/encoding.hpp"
#include "generator/plan/number_text.hpp"
#include "generator/plan/sizes.hpp"

namespace tcgen {
namespace {

std::string field_statement(const Field& field) {
    std::string text = std::to_string(field.bits) + "-Bit Field " + std::to_string(field.number) +
                       " = {L1 = " + std::to_string(field.l1) + ", L2 = " + std::to_string(field.l2) + ":";
    const char* separator = " ";
    for (const Predictor& predictor : field.predictors) {
        text += separator;
        text += predictor_name(predictor);
        separator = ", ";
    }
    return text + "};";
}

std::string field_comment(const PlanField& field) {
    unsigned predictions = field.miss_code;
    return "# Field " + std::to_string(field.number) + ": " + std::to_string(predictions) +
           (predictions == 1 ? " prediction, " : " predictions, ") + with_thousands_separators(field.table_bytes()) +
           " bytes of tables";
}

std::string statements(const Spec& spec, const CodePlan* plan) {
    std::string text = "TCgen Trace Specification;\n";
    text += std::to_string(spec.header_bits) + "-Bit Header;\n";
    for (const Field& field : spec.fields) {
        text += field_statement(field) + "\n";
        if (plan != nullptr) {
            text += field_comment(plan->fields[field.number - 1]) + "\n";
        }
    }
    return text + "PC = Field " + std::to_string(spec.pc_field) + ";\n";
}

}  // namespace

std::string spec_text(const Spec& spec) {
    return statements(spec, nullptr);
}

std::string canonical_text(const CodePlan& plan) {
    MemoryEstimate memory = estimate_memory(plan);
    return statements(plan.spec, &plan) + encoding_line(plan) + "# Memory estimate: " + with_thousands_separators(memory.total()) +
           " bytes (" + human_bytes(memory.total()) + "): " + with_thousands_separators(memory.tables) +
           " bytes of tables + " + with_thousands_separators(memory.buffers) + " bytes of buffers\n";
}

}  // namespace tcgen
