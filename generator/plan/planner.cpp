#include "generator/plan/planner.hpp"

#include <algorithm>

#include "generator/frontend/frontend.hpp"
#include "generator/plan/number_text.hpp"
#include "generator/plan/passes/pass.hpp"
#include "generator/plan/sizes.hpp"

namespace tcgen {

namespace {

// The passes a spec's encoding line turns off, checked: only those that
// change the encoding may be named there.
bool add_encoding_line(const Spec& spec, std::set<std::string>& disabled, DiagnosticSink& sink) {
    if (!spec.encoding) {
        return true;
    }
    std::string allowed;
    for (const OptimisationPass& pass : optimisation_passes()) {
        if (pass.changes_encoding) {
            allowed += (allowed.empty() ? "" : ", ") + std::string(pass.name);
        }
    }
    bool ok = true;
    for (const std::string& name : spec.encoding->disabled_passes) {
        auto pass = std::find_if(optimisation_passes().begin(), optimisation_passes().end(),
                                 [&](const OptimisationPass& p) { return p.name == name; });
        if (pass == optimisation_passes().end() || !pass->changes_encoding) {
            sink.error(spec.encoding->span, "'" + name + "' in the encoding line is not an optimisation that changes " +
                                                "the encoding (" + allowed + ")");
            ok = false;
        }
        disabled.insert(name);
    }
    return ok;
}

}  // namespace

std::optional<CodePlan> plan_spec(const Spec& spec, const std::set<std::string>& disabled_passes,
                                  DiagnosticSink& sink) {
    std::set<std::string> disabled = disabled_passes;
    if (!add_encoding_line(spec, disabled, sink)) {
        return std::nullopt;
    }
    CodePlan plan = plan_code(spec, disabled);
    if (plan.table_bytes() > max_table_bytes) {
        auto largest =
            std::max_element(plan.fields.begin(), plan.fields.end(),
                             [](const PlanField& a, const PlanField& b) { return a.table_bytes() < b.table_bytes(); });
        sink.error(spec.fields[largest->number - 1].span,
                   "the predictor tables need more than the " + human_bytes(max_table_bytes) + " tcgen allows (field " +
                       std::to_string(largest->number) + " alone needs " + human_bytes(largest->table_bytes()) +
                       "); reduce L1, L2 or the orders");
        return std::nullopt;
    }
    return plan;
}

std::optional<CodePlan> compile_to_plan(const SourceFile& file, DiagnosticSink& sink,
                                        const std::set<std::string>& disabled_passes) {
    std::optional<Spec> spec = compile_spec(file, sink);
    if (!spec) {
        return std::nullopt;
    }
    return plan_spec(*spec, disabled_passes, sink);
}

}  // namespace tcgen
