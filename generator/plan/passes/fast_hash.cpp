// Incremental hashing (paper §5.2): a history keeps, instead of the last x
// raw values, the indices of orders 1..x. Each new value then costs x
// shift-xor steps, entry k−1 of a line is the order-k index, and lower-order
// predictors get theirs for free. The indices equal those hashed from scratch
// (HashPlan), so the output is byte-identical.

#include "generator/plan/passes/pass.hpp"

namespace tcgen {

void use_fast_hash(CodePlan& plan) {
    for (PlanField& field : plan.fields) {
        for (PlanHistory& history : field.histories) {
            history.stores_hashes = true;
        }
    }
}

}  // namespace tcgen
