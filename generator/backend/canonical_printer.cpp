#include "generator/backend/canonical_printer.hpp"

#include "generator/plan/passes/pass.hpp"
#include "generator/plan/table_layout.hpp"

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
    unsigned predictions = field.prediction_count();
    return "# Field " + std::to_string(field.number) + ": " + std::to_string(predictions) +
           (predictions == 1 ? " prediction, " : " predictions, ") + with_thousands_separators(field.table_bytes()) +
           " bytes of tables";
}

}  // namespace

std::string canonical_text(const Spec& spec, CanonicalComments comments) {
    bool with_costs = comments == CanonicalComments::costs;
    CodePlan plan = with_costs ? plan_code(spec) : CodePlan{};
    std::string text = "TCgen Trace Specification;\n";
    text += std::to_string(spec.header_bits) + "-Bit Header;\n";
    for (const Field& field : spec.fields) {
        text += field_statement(field) + "\n";
        if (with_costs) {
            text += field_comment(plan.fields[field.number - 1]) + "\n";
        }
    }
    text += "PC = Field " + std::to_string(spec.pc_field) + ";\n";
    if (with_costs) {
        MemoryEstimate memory = estimate_memory(spec);
        text += "# Memory estimate: " + with_thousands_separators(memory.total()) + " bytes (" +
                human_bytes(memory.total()) + "): " + with_thousands_separators(memory.tables) + " bytes of tables + " +
                with_thousands_separators(memory.buffers) + " bytes of buffers\n";
    }
    return text;
}

}  // namespace tcgen
