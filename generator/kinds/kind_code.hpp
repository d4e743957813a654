#pragma once
// Code that several predictor kinds share: how a line is found through a
// context, and how a prediction is read from values or from strides.

#include <string>

#include "generator/backend/field_names.hpp"
#include "generator/plan/code_plan.hpp"

namespace tcgen {

// The index of a context predictor's line: read from a history of hashes,
// or hashed now from a history of raw values.
std::string context_line_index(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names);

// Entry `entry` of the predictor's line, as it is (a value) or added to the
// last value (a stride).
std::string value_prediction(const PlanPredictor& predictor, const FieldNames& names, unsigned entry);
std::string stride_prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                              unsigned entry);

}  // namespace tcgen
