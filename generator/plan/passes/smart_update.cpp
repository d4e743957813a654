// Smart update (paper §5.3): a line is updated only when the new value
// differs from its first entry, so its first two entries are always
// distinct; predictions improve, which changes the .tcz.

#include "generator/plan/passes/pass.hpp"

namespace tcgen {

void use_smart_update(CodePlan& plan) {
    for (PlanField& field : plan.fields) {
        field.update = UpdatePolicy::smart;
    }
}

}  // namespace tcgen
