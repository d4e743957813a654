#pragma once
// The meaning that FCM and DFCM share: a kind that finds its line through a
// hashed context of the last `order` elements of its sequence, in its own
// L2·2^(order−1) lines (paper §3). Its files say which sequence, and what
// the tuner does with it.

#include "generator/kinds/kind_code.hpp"
#include "generator/kinds/predictor_kind.hpp"

namespace tcgen {

class ContextKind : public PredictorKind {
public:
    bool has_order() const override { return true; }
    bool uses_context() const override { return true; }
    // Its own lines and its own context.
    void add_tables(PlanField& field, std::size_t predictor) const override;
    const KindCode& code() const override { return context_lines_code(); }
};

}  // namespace tcgen
