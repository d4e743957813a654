#include "generator/kinds/kind_code.hpp"

#include "generator/text/code_text.hpp"
#include "generator/plan/number_text.hpp"

namespace tcgen {

TableMember zeroed_table_member(const PlanTable& table) {
    return {"ZeroedTable<" + unsigned_type(table.element_bits) + ">",
            "{" + std::to_string(table.lines * table.entries) + "}",
            with_thousands_separators(table.lines) + (table.lines == 1 ? " line" : " lines") + " of " +
                std::to_string(table.entries)};
}

std::string zeroed_table_line(const std::string& member, const PlanTable& table, const std::string& index,
                              LineUse use) {
    const std::string line = use == LineUse::selected ? ".line<marks>(" : ".line(";
    return member + line + index + ", " + std::to_string(table.entries) + ")";
}

std::string line_update_statement(const PlanField& field, const PlanTable& table, const std::string& line,
                                  const std::string& operand) {
    std::string entries = std::to_string(table.entries);
    switch (field.line_update(table)) {
        case LineUpdate::overwrite:
            return line + "[0] = " + operand + ";";
        case LineUpdate::smart:
            return "smart_update<" + entries + ">(" + line + ", " + operand + ");";
        case LineUpdate::shift:
            break;
    }
    return "push_front<" + entries + ">(" + line + ", " + operand + ");";
}

TableMember LinesCode::table_member(const PlanField&, const PlanTable& table) const {
    return zeroed_table_member(table);
}

std::string LinesCode::line_at(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                               const std::string& index, LineUse use) const {
    return zeroed_table_line(names.table(predictor.table), field.tables[predictor.table], index, use);
}

std::string LinesCode::prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                                  unsigned entry) const {
    std::string entry_value = names.line(predictor.table) + "[" + std::to_string(entry) + "]";
    if (predictor.spec.kind->sequence() == Sequence::values) {
        return entry_value;
    }
    std::size_t last_value = field.strides[predictor.stride].last_value_table;
    return "wrapping_add(" + names.line(last_value) + "[0], " + entry_value + ")";
}

std::string LinesCode::update(const PlanField& field, const PlanPredictor& predictor,
                              const FieldNames& names) const {
    std::string operand =
        predictor.spec.kind->sequence() == Sequence::values ? std::string("value") : names.stride(predictor.stride);
    return line_update_statement(field, field.tables[predictor.table], names.line(predictor.table), operand);
}

std::string PcLineCode::line_index(const PlanField&, const PlanPredictor&, const FieldNames&) const {
    return "line";
}

std::string ContextLinesCode::line_index(const PlanField& field, const PlanPredictor& predictor,
                                         const FieldNames& names) const {
    const PlanHistory& history = field.histories[predictor.history];
    if (history.stores_hashes) {
        return names.line(history.table) + "[" + std::to_string(predictor.spec.order - 1) + "]";
    }
    return "hash_context<" + std::to_string(predictor.spec.order) + ">(" + names.line(history.table) + ", " +
           names.shift(history.sequence) + ")";
}

const KindCode& pc_line_code() {
    static const PcLineCode code;
    return code;
}

const KindCode& context_lines_code() {
    static const ContextLinesCode code;
    return code;
}

}  // namespace tcgen
