#pragma once
// The meaning that the paper's kinds share, for their files to build on: a
// kind whose own table is plain lines of its sequence, found at the PC's L1
// line in L1 lines (LV), or through a hashed context of the last `order`
// elements of its sequence in L2·2^(order−1) lines (FCM, DFCM; paper §3).
// Over strides it has a stride of its own. Each kind's file says which
// sequence, and what the tuner does with it.

#include "generator/kinds/kind_code.hpp"
#include "generator/kinds/predictor_kind.hpp"

namespace tcgen {

class LinesKind : public PredictorKind {
public:
    enum class Index { pc_line, context };
    explicit LinesKind(Index index) : index_(index) {}

    bool has_order() const override { return index_ == Index::context; }
    bool uses_context() const override { return index_ == Index::context; }
    // Its own lines and, found through a context, its own context.
    void add_tables(PlanField& field, std::size_t predictor) const override;
    const KindCode& code() const override;

private:
    Index index_;
};

}  // namespace tcgen
