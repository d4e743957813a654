#include "generator/backend/canonical_printer.hpp"

#include "generator/backend/context_layout.hpp"
#include "generator/backend/encoding.hpp"
#include "generator/plan/number_text.hpp"
#include "generator/plan/sizes.hpp"

namespace tcgen {
namespace {

// "FCM3[2], LV[4]"
std::string predictor_list(const Field& field) {
    std::string text;
    for (const Predictor& predictor : field.predictors) {
        text += (text.empty() ? "" : ", ") + predictor_name(predictor);
    }
    return text;
}

// One statement per field, so that the canonical text keeps the shape of
// Figure 4 (scripts read a record's layout from it): with `named`, its name,
// and an array's element as a piece of one ("source_memory[1]"), which the
// statements of the next elements continue.
std::string field_statement(const Field& field, bool named) {
    std::string name;
    if (named && !field.name.empty()) {
        name = " " + field.name + (field.element ? "[1]" : "");
    }
    return std::to_string(field.bits) + "-Bit Field " + std::to_string(field.number) + name +
           " = {L1 = " + std::to_string(field.l1) + ", L2 = " + std::to_string(field.l2) + ": " +
           predictor_list(field) + "};";
}

std::string field_comment(const Field& field, const PlanField& plan) {
    unsigned predictions = plan.miss_code;
    std::string label = field.label();
    return "# Field " + std::to_string(field.number) + (label.empty() ? "" : " " + label) + ": " +
           std::to_string(predictions) + (predictions == 1 ? " prediction, " : " predictions, ") +
           with_thousands_separators(allocated_table_bytes(plan)) + " bytes of tables";
}

// The statements of the spec: with `named`, the names and the PC by name
// where it has one; without, no names, the form the encoding is identified
// by.
std::string statements(const Spec& spec, const CodePlan* plan, bool named) {
    std::string text = "TCgen Trace Specification;\n";
    text += std::to_string(spec.header_bits) + "-Bit Header;\n";
    if (spec.record_ids) {
        text += "32-Bit Ids;\n";
    }
    for (std::size_t i = 0; i < spec.fields.size(); ++i) {
        text += field_statement(spec.fields[i], named) + "\n";
        if (plan != nullptr) {
            text += field_comment(spec.fields[i], plan->fields[i]) + "\n";
        }
    }
    const Field& pc = spec.pc();
    bool pc_by_name = named && !pc.name.empty() && !pc.element;
    return text + "PC = Field " + (pc_by_name ? pc.name : std::to_string(spec.pc_field)) + ";\n";
}

}  // namespace

std::string spec_text(const Spec& spec) {
    return statements(spec, nullptr, false);
}

// The memory line says what the estimate is: peak RSS measured on the
// shipped specs stays below it at levels 0 to 6 and mostly exceeds it at
// -9 (at -7 on some traces), whose larger blocks and LZMA on code streams it
// does not count.
std::string canonical_text(const CodePlan& plan) {
    MemoryEstimate memory = estimate_memory(plan);
    memory.tables = allocated_table_bytes(plan);  // the contexts padded
    return statements(plan.spec, &plan, true) + encoding_line(plan) + "# Memory estimate: " + with_thousands_separators(memory.total()) +
           " bytes (" + human_bytes(memory.total()) + "): " + with_thousands_separators(memory.tables) +
           " bytes of tables + " + with_thousands_separators(memory.buffers) + " bytes of buffers\n" +
           "# (an upper estimate for compressing at levels 0 to 6; -7 to -9 may exceed it, -9 on most traces;\n"
           "# decompressing takes less: peak RSS measured in docs/benchmarks/memory.md)\n";
}

}  // namespace tcgen
