#include "generator/text/field_names.hpp"

#include <algorithm>
#include <cctype>

namespace tcgen {

FieldNames::FieldNames(const PlanField& field) : field_(field) {
    for (const PlanPredictor& predictor : field.predictors) {
        std::string stem;
        for (char c : predictor.spec.kind->keyword()) {
            stem += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        if (predictor.spec.kind->has_order()) {
            stem += std::to_string(predictor.spec.order);
        }
        // A repeated predictor gets "_2", "_3": its tables are its own.
        auto repeats = std::count_if(stems_.begin(), stems_.end(), [&](const std::string& earlier) {
            return earlier == stem || earlier.rfind(stem + "_", 0) == 0;
        });
        stems_.push_back(repeats > 0 ? stem + "_" + std::to_string(repeats + 1) : stem);
    }
}

std::string FieldNames::name(std::size_t index) const {
    const PlanTable& table = field_.tables[index];
    switch (table.role) {
        case TableRole::lines:
            return stems_[table.owner];
        case TableRole::history:
            return table.owner == shared ? (table.sequence == Sequence::values ? "value" : "stride") + std::string("_history")
                                         : stems_[table.owner] + "_history";
        case TableRole::last_value:
            return table.owner == shared ? "last_value" : stems_[table.owner] + "_last_value";
    }
    return "?";
}

std::string FieldNames::stride(std::size_t index) const {
    const PlanStride& stride = field_.strides[index];
    return stride.owner == shared ? "stride" : stems_[stride.owner] + "_stride";
}

std::string FieldNames::shift(Sequence sequence) {
    return sequence == Sequence::values ? "value_shift" : "stride_shift";
}

std::string FieldNames::predictor(std::size_t index) const {
    return predictor_name(field_.predictors[index].spec);
}

}  // namespace tcgen
