#pragma once
// What predictor kinds have in common, for their files to build on:
// SequenceKind predicts its line's entries as values, or as strides added to
// the last value, and updates its lines with the value or the stride;
// ContextKind, on top of that, finds its line through a hashed context of
// the last `order` elements of its sequence (FCM, DFCM).

#include <string>

#include "generator/backend/field_names.hpp"
#include "generator/kinds/predictor_kind.hpp"
#include "generator/plan/code_plan.hpp"

namespace tcgen {

class SequenceKind : public PredictorKind {
public:
    std::string prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                           unsigned entry) const override;
    std::string update_operand(const PlanField& field, const PlanPredictor& predictor,
                               const FieldNames& names) const override;
};

class ContextKind : public SequenceKind {
public:
    bool has_order() const override { return true; }
    bool uses_context() const override { return true; }
    // Its own L2·2^(order−1) lines and its own context.
    void add_tables(PlanField& field, std::size_t predictor) const override;
    // Read from a history of hashes, or hashed now from a history of raw values.
    std::string line_index(const PlanField& field, const PlanPredictor& predictor,
                           const FieldNames& names) const override;
};

}  // namespace tcgen
