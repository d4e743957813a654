#include "generator/kinds/kind_code.hpp"

namespace tcgen {

std::string SequenceKind::prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                                     unsigned entry) const {
    std::string entry_value = names.line(predictor.table) + "[" + std::to_string(entry) + "]";
    if (sequence() == Sequence::values) {
        return entry_value;
    }
    std::size_t last_value = field.strides[predictor.stride].last_value_table;
    return "wrapping_add(" + names.line(last_value) + "[0], " + entry_value + ")";
}

std::string SequenceKind::update_operand(const PlanField&, const PlanPredictor& predictor,
                                         const FieldNames& names) const {
    return sequence() == Sequence::values ? std::string("value") : names.stride(predictor.stride);
}

void ContextKind::add_tables(PlanField& field, std::size_t predictor) const {
    unsigned order = field.predictors[predictor].spec.order;
    add_own_lines(field, predictor, false, field.l2 << (order - 1));
    add_own_context(field, predictor);
}

std::string ContextKind::line_index(const PlanField& field, const PlanPredictor& predictor,
                                    const FieldNames& names) const {
    const PlanHistory& history = field.histories[predictor.history];
    if (history.stores_hashes) {
        return names.line(history.table) + "[" + std::to_string(predictor.spec.order - 1) + "]";
    }
    return "hash_context<" + std::to_string(predictor.spec.order) + ">(" + names.line(history.table) + ", " +
           names.shift(history.sequence) + ")";
}

}  // namespace tcgen
