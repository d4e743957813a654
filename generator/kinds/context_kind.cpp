#include "generator/kinds/context_kind.hpp"

#include "generator/plan/code_plan.hpp"

namespace tcgen {

void ContextKind::add_tables(PlanField& field, std::size_t predictor) const {
    unsigned order = field.predictors[predictor].spec.order;
    add_own_lines(field, predictor, false, field.l2 << (order - 1));
    add_own_context(field, predictor);
}

}  // namespace tcgen
