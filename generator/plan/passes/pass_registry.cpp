#include "generator/plan/passes/pass.hpp"

#include <algorithm>

namespace tcgen {

const std::vector<OptimisationPass>& optimisation_passes() {
    // Sharing runs before type minimisation, which sizes the merged tables,
    // and before fast hashing, which converts whatever histories remain.
    static const std::vector<OptimisationPass> passes = {
        {"dead-code", "emit nothing the spec does not use (strides, PC parameters, one-entry update checks)",
         remove_dead_code, false},
        {"table-sharing", "one history per sequence (values, strides), one stride and last value per field",
         share_tables, false},
        {"fast-hash", "incremental hashing: n steps give the indices of every order", use_fast_hash, false},
        {"type-minimisation", "smallest element type for every table and stream", minimise_types, true},
        {"smart-update", "update a line only when the value differs from its first entry", use_smart_update, true},
    };
    return passes;
}

bool run_pass(const OptimisationPass& pass, CodePlan& plan) {
    CodePlan before = plan;
    pass.run(plan);
    return !(plan == before);
}

std::vector<std::string> encoding_passes_disabled(const CodePlan& plan) {
    std::vector<std::string> names;
    for (const OptimisationPass& pass : optimisation_passes()) {
        bool applied = std::find(plan.applied_passes.begin(), plan.applied_passes.end(), pass.name) !=
                       plan.applied_passes.end();
        if (pass.changes_encoding && !applied) {
            names.emplace_back(pass.name);
        }
    }
    return names;
}

CodePlan plan_code(const Spec& spec, const std::set<std::string>& disabled) {
    std::set<std::string> off = disabled;
    if (spec.encoding) {
        off.insert(spec.encoding->disabled_passes.begin(), spec.encoding->disabled_passes.end());
    }
    CodePlan plan = build_code_plan(spec);
    for (const OptimisationPass& pass : optimisation_passes()) {
        if (off.count(std::string(pass.name)) == 0) {
            pass.run(plan);
            plan.applied_passes.emplace_back(pass.name);
        }
    }
    return plan;
}

}  // namespace tcgen
