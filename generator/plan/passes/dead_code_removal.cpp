// Dead-code removal (paper §5.2): nothing is emitted for what the spec does
// not use. Fields whose predictors are all global (L1 = 1) get no PC
// parameter; strides and last-value tables that no strides predictor reads
// disappear; a one-entry line is overwritten without first comparing it.

#include "generator/plan/passes/pass.hpp"

namespace tcgen {

void remove_dead_code(CodePlan& plan) {
    for (PlanField& field : plan.fields) {
        field.pc_parameter = !field.is_pc && field.l1 > 1;
        field.compare_single_entry_lines = false;
        FieldUse unused = field_use(field);
        unused.tables.flip();
        unused.strides.flip();
        remove_tables_and_strides(field, unused.tables, unused.strides);
    }
}

}  // namespace tcgen
