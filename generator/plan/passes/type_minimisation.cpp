// Type minimisation (paper §5.2): every table entry and stream element gets
// the smallest type that holds it. Values, strides and misses take the
// field's width (so arithmetic wraps at the field's width, as the model says),
// codes a byte, and hashed histories the width of their largest index. The
// fold then only has the field's bits to fold, which changes some indices:
// this pass may change the .tcz.

#include "generator/plan/passes/pass.hpp"

namespace tcgen {
namespace {

// The smallest of 8, 16, 32, 64 bits holding an unsigned value of `bits` bits.
unsigned type_bits(unsigned bits) {
    unsigned type = 8;
    while (type < bits) {
        type *= 2;
    }
    return type;
}

}  // namespace

void minimise_types(CodePlan& plan) {
    for (PlanField& field : plan.fields) {
        field.work_bits = field.bits;
        plan.streams[field.codes_stream].element_bits = 8;  // a code is below 256 (semantic check)
        plan.streams[field.misses_stream].element_bits = field.bits;
        field.hash.fold_shifts = fold_chunk_shifts(field.hash.fold_bits, field.bits);
        for (PlanTable& table : field.tables) {
            table.element_bits = field.bits;
        }
        for (const PlanHistory& history : field.histories) {
            PlanTable& table = field.tables[history.table];
            if (history.stores_hashes) {
                table.element_bits = type_bits(field.hash.index_bits(table.entries));
            }
        }
    }
}

}  // namespace tcgen
