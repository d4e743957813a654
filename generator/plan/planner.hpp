#pragma once
// The planning stage as one call, after the front end: the checked model in,
// the optimised plan out, checked for what only the finished plan can tell
// (the table memory of this build), or diagnostics at the spec's places.
// The passes turned off are those given and those the spec's encoding line
// names.

#include <optional>
#include <set>
#include <string>

#include "generator/frontend/diagnostics.hpp"
#include "generator/frontend/model.hpp"
#include "generator/plan/code_plan.hpp"

namespace tcgen {

std::optional<CodePlan> plan_spec(const Spec& spec, const std::set<std::string>& disabled_passes,
                                  DiagnosticSink& sink);

// Front end and planning: spec text in, plan or diagnostics out.
std::optional<CodePlan> compile_to_plan(const SourceFile& file, DiagnosticSink& sink,
                                        const std::set<std::string>& disabled_passes = {});

}  // namespace tcgen
