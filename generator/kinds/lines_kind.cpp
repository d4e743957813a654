#include "generator/kinds/lines_kind.hpp"

#include "generator/plan/code_plan.hpp"

namespace tcgen {

void LinesKind::add_tables(PlanField& field, std::size_t predictor) const {
    if (index_ == Index::pc_line) {
        add_own_lines(field, predictor, true, field.l1);
        if (sequence() == Sequence::strides) {
            add_own_stride(field, predictor);
        }
        return;
    }
    unsigned order = field.predictors[predictor].spec.order;
    add_own_lines(field, predictor, false, field.l2 << (order - 1));
    add_own_context(field, predictor);
}

const KindCode& LinesKind::code() const {
    return index_ == Index::context ? context_lines_code() : pc_line_code();
}

}  // namespace tcgen
