// Type minimisation (paper §5.2): every table entry and stream element gets
// the smallest type that holds it. Values, strides and misses take the
// field's width (so arithmetic wraps at the field's width, as the model says),
// codes a byte, and hashed histories the width of their largest index. The
// fold then only has the field's bits to fold, which changes some indices:
// this pass may change the .tcz.

#include "generator/plan/passes/pass.hpp"
#include "generator/plan/table_layout.hpp"

namespace tcgen {

bool minimise_types(CodePlan& plan) {
    bool changed = false;
    for (PlanField& field : plan.fields) {
        changed = changed || field.work_bits != field.bits || field.code_bits != 8;
        field.work_bits = field.bits;
        field.code_bits = 8;
        field.hash.fold_shifts = fold_chunk_shifts(field.hash.fold_bits, field.bits);
        for (PlanTable& table : field.tables) {
            unsigned bits = field.bits;
            if (table.content == TableContent::history) {
                for (const PlanHistory& history : field.histories) {
                    if (field.tables[history.table].name == table.name && history.stores_hashes) {
                        bits = 8 * bytes_for_bits(field.hash.index_bits(table.entries));
                    }
                }
            }
            changed = changed || table.element_bits != bits;
            table.element_bits = bits;
        }
    }
    return changed;
}

}  // namespace tcgen
