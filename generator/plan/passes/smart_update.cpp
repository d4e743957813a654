// Smart update (paper §5.3): a line is updated only when the new value
// differs from its first entry, so its first two entries are always
// distinct; predictions improve, which changes the .tcz.

#include "generator/plan/passes/pass.hpp"

namespace tcgen {

bool use_smart_update(CodePlan& plan) {
    bool changed = false;
    for (PlanField& field : plan.fields) {
        changed = changed || !field.smart_update;
        field.smart_update = true;
    }
    return changed;
}

}  // namespace tcgen
