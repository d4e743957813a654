#include "generator/backend/plan_dump.hpp"

#include "generator/text/field_names.hpp"
#include "generator/plan/number_text.hpp"

namespace tcgen {
namespace {

std::string type_name(unsigned bits) {
    return "u" + std::to_string(bits);
}

// A predictor's own table is described by its kind.
std::string role_name(const PlanField& field, const PlanTable& table) {
    switch (table.role) {
        case TableRole::lines:
            return field.predictors[table.owner].spec.kind->describe_table(table);
        case TableRole::history:
            return "history";
        case TableRole::last_value:
            return "last value";
    }
    return "?";
}

std::string slot_range(unsigned first, unsigned count) {
    unsigned last = first + count - 1;
    return last == first ? "code " + std::to_string(first)
                         : "codes " + std::to_string(first) + "-" + std::to_string(last);
}

std::string readers_of_table(const PlanField& field, const FieldNames& names, std::size_t table) {
    std::string readers;
    auto add = [&](const std::string& reader) { readers += (readers.empty() ? "" : ", ") + reader; };
    for (std::size_t i = 0; i < field.predictors.size(); ++i) {
        const PlanPredictor& predictor = field.predictors[i];
        std::string name = names.predictor(i);
        if (predictor.table == table) {
            add(name);
        }
        if (predictor.history != no_index && field.histories[predictor.history].table == table) {
            add(name + " (order " + std::to_string(predictor.spec.order) + ")");
        }
        if (predictor.stride != no_index && field.strides[predictor.stride].last_value_table == table) {
            add(name + " (last value)");
        }
    }
    return readers.empty() ? "nothing" : readers;
}

const char* update_name(LineUpdate update) {
    switch (update) {
        case LineUpdate::shift:
            return "shift";
        case LineUpdate::smart:
            return "smart";
        case LineUpdate::overwrite:
            return "overwrite";
    }
    return "?";
}

std::string describe_field(const CodePlan& plan, const PlanField& field) {
    FieldNames names(field);
    std::string text;
    text += "field " + std::to_string(field.number) + ": " + std::to_string(field.bits) + " bits at byte " +
            std::to_string(field.offset) + (field.is_pc ? ", the PC" : "") + "; L1 = " + std::to_string(field.l1) +
            ", L2 = " + std::to_string(field.l2) + "\n";
    text += "  types: values and misses " + type_name(field.work_bits) + "\n";
    for (std::size_t stream : {field.codes_stream, field.misses_stream}) {
        const PlanStream& planned = plan.streams[stream];
        text += "  stream " + std::to_string(stream) + ": " +
                (planned.role == StreamRole::codes ? "codes" : "misses") + ", " + type_name(planned.element_bits) +
                " elements\n";
    }
    text += std::string("  update: ") +
            (field.update == UpdatePolicy::smart ? "smart (only when the first entry differs)" : "always shift") +
            "; one-entry lines " + (field.compare_single_entry_lines ? "compared first" : "overwritten") + "\n";
    text += std::string("  pc parameter: ") + (field.pc_parameter ? "yes" : "no") + "\n";
    for (std::size_t i = 0; i < field.predictors.size(); ++i) {
        const PlanPredictor& predictor = field.predictors[i];
        text += "  " + slot_range(predictor.first_slot, predictor.spec.entries) + ": " + names.predictor(i) +
                " reads " + names.name(predictor.table) + "\n";
    }
    text += "  code " + std::to_string(field.miss_code) + ": miss\n";
    for (std::size_t i = 0; i < field.tables.size(); ++i) {
        const PlanTable& table = field.tables[i];
        text += "  table " + names.name(i) + ": " + role_name(field, table) + ", " +
                (table.first_level ? "first level" : "second level") + ", " + with_thousands_separators(table.lines) +
                (table.lines == 1 ? " line x " : " lines x ") + std::to_string(table.entries) + " " +
                type_name(table.element_bits) + " = " + with_thousands_separators(table.bytes()) + " bytes";
        if (table.role != TableRole::history) {
            text += std::string(", update ") + update_name(field.line_update(table));
        }
        text += "; read by " + readers_of_table(field, names, i) + "\n";
    }
    for (std::size_t i = 0; i < field.strides.size(); ++i) {
        text += "  stride " + names.stride(i) + " = value - " + names.name(field.strides[i].last_value_table) +
                "[0]\n";
    }
    for (const PlanHistory& history : field.histories) {
        const PlanTable& table = field.tables[history.table];
        text += "  history " + names.name(history.table) + ": " + sequence_name(history.sequence) +
                (history.stride != no_index ? " (" + names.stride(history.stride) + ")" : "") + ", " +
                (history.stores_hashes ? "incremental hashes" : "raw, hashed from scratch") + ", orders 1-" +
                std::to_string(table.entries) + "\n";
    }
    if (!field.histories.empty()) {
        text += "  hash: fold to " + std::to_string(field.hash.fold_bits) + " bits";
        for (unsigned shift : field.hash.fold_shifts) {
            text += " ^ (v >> " + std::to_string(shift) + ")";
        }
        text += "; shift " + std::to_string(field.hash.shift(Sequence::values)) + " (values), " +
                std::to_string(field.hash.shift(Sequence::strides)) + " (strides); order-k index has " +
                std::to_string(field.hash.fold_bits) + " + k - 1 bits\n";
    }
    text += "  tables: " + with_thousands_separators(field.table_bytes()) + " bytes\n";
    return text;
}

}  // namespace

std::string dump_code_plan(const CodePlan& plan) {
    std::string text = "passes:";
    for (const std::string& pass : plan.applied_passes) {
        text += " " + pass;
    }
    text += plan.applied_passes.empty() ? " none\n" : "\n";
    text += "record: " + std::to_string(plan.record_bytes) + " bytes, header " + std::to_string(plan.header_bytes) +
            " bytes, " + std::to_string(plan.records_per_block) + " records per block, PC = field " +
            std::to_string(plan.pc_field) + "\n";
    text += "coding order: fields";
    for (std::size_t index : plan.coding_order) {
        text += " " + std::to_string(plan.fields[index].number);
    }
    text += "\n";
    for (const PlanField& field : plan.fields) {
        text += "\n" + describe_field(plan, field);
    }
    text += "\ntotal tables: " + with_thousands_separators(plan.table_bytes()) + " bytes\n";
    return text;
}

}  // namespace tcgen
