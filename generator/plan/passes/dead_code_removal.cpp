// Dead-code removal (paper §5.2): nothing is emitted for what the spec does
// not use. Fields whose predictors are all global (L1 = 1) get no PC
// parameter; strides and last-value tables that no DFCM reads disappear; a
// one-entry line is overwritten without first comparing it.

#include <algorithm>

#include "generator/plan/passes/pass.hpp"

namespace tcgen {

bool remove_dead_code(CodePlan& plan) {
    bool changed = false;
    for (PlanField& field : plan.fields) {
        bool needs_pc = !field.is_pc && field.l1 > 1;
        changed = changed || field.pc_parameter != needs_pc || field.check_single_entry_lines;
        field.pc_parameter = needs_pc;
        field.check_single_entry_lines = false;

        FieldUse unused = field_use(field);
        unused.tables.flip();
        unused.strides.flip();
        auto any = [](const std::vector<bool>& marks) { return std::find(marks.begin(), marks.end(), true) != marks.end(); };
        changed = changed || any(unused.tables) || any(unused.strides);
        remove_tables_and_strides(field, unused.tables, unused.strides);
    }
    return changed;
}

}  // namespace tcgen
