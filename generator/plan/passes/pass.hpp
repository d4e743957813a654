#pragma once
// The optimisation passes of the paper's §5.2–5.3, each a rewrite of the code
// plan with one uniform signature, run in a fixed order and each switchable
// by name (tcgen --disable=NAME,...). Whether a pass changed the plan is a
// comparison of plain values (run_pass). Passes never change what the
// compressor computes where the paper says they keep the rate: dead-code,
// table-sharing and fast-hash leave every .tcz byte-identical, which the
// tests check.

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "generator/plan/code_plan.hpp"
#include "generator/frontend/model.hpp"

namespace tcgen {

struct OptimisationPass {
    std::string_view name;
    std::string_view summary;
    void (*run)(CodePlan& plan);
    // Whether turning the pass off changes the .tcz a compressor writes, so
    // that compressors built with and without it cannot read each other's files.
    bool changes_encoding;
};

void remove_dead_code(CodePlan& plan);
void share_tables(CodePlan& plan);
void use_fast_hash(CodePlan& plan);
void minimise_types(CodePlan& plan);
void use_smart_update(CodePlan& plan);

// Runs one pass; returns whether the plan changed.
bool run_pass(const OptimisationPass& pass, CodePlan& plan);

// Every pass, in the order it runs.
const std::vector<OptimisationPass>& optimisation_passes();

// The names of the passes not applied to a plan that change the encoding,
// in pass order.
std::vector<std::string> encoding_passes_disabled(const CodePlan& plan);

// The naive plan of the spec with every pass applied but those in `disabled`
// and those the spec's encoding line names (planner.hpp checks those names).
CodePlan plan_code(const Spec& spec, const std::set<std::string>& disabled = {});

}  // namespace tcgen
