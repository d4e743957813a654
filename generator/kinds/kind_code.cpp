#include "generator/kinds/kind_code.hpp"

namespace tcgen {

std::string context_line_index(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names) {
    const PlanHistory& history = field.histories[predictor.history];
    std::string order = std::to_string(predictor.spec.order);
    if (history.stores_hashes) {
        return names.line(history.table) + "[" + std::to_string(predictor.spec.order - 1) + "]";
    }
    return "hash_context<" + order + ">(" + names.line(history.table) + ", " + names.shift(history.sequence) + ")";
}

std::string value_prediction(const PlanPredictor& predictor, const FieldNames& names, unsigned entry) {
    return names.line(predictor.table) + "[" + std::to_string(entry) + "]";
}

std::string stride_prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                              unsigned entry) {
    std::size_t last_value = field.strides[predictor.stride].last_value_table;
    return "wrapping_add(" + names.line(last_value) + "[0], " + value_prediction(predictor, names, entry) + ")";
}

}  // namespace tcgen
