#include "generator/kinds/predictor_kind.hpp"

#include "generator/plan/code_plan.hpp"

namespace tcgen {

std::string sequence_name(Sequence sequence) {
    return sequence == Sequence::values ? "values" : "strides";
}

std::string PredictorKind::describe_table(const PlanTable& table) const {
    return sequence_name(table.sequence);
}

}  // namespace tcgen
