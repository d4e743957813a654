// Incremental hashing (paper §5.2): a history keeps, instead of the last x
// raw values, the indices of orders 1..x. Each new value then costs x
// shift-xor steps, entry k−1 of a line is the order-k index, and lower-order
// predictors get theirs for free. The indices equal those hashed from scratch
// (HashPlan), so the output is byte-identical.

#include "generator/plan/passes/pass.hpp"

namespace tcgen {

bool use_fast_hash(CodePlan& plan) {
    bool changed = false;
    for (PlanField& field : plan.fields) {
        for (PlanHistory& history : field.histories) {
            changed = changed || !history.stores_hashes;
            history.stores_hashes = true;
        }
    }
    return changed;
}

}  // namespace tcgen
