#pragma once
// The stable text form of a code plan that tcgen --dump-ir prints: every
// table with its role, size, element type and readers; strides, histories,
// hash parameters and streams. Golden files pin it for every example.

#include <string>

#include "generator/plan/code_plan.hpp"

namespace tcgen {

std::string dump_code_plan(const CodePlan& plan);

}  // namespace tcgen
