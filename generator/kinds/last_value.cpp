// LV[n] (paper §3, Figure 1): the n most recent values of the PC's L1 line.

#include "generator/kinds/kind_code.hpp"

namespace tcgen {
namespace {

// Its line is the PC's own first-level line.
class LastValueCode : public LinesCode {
public:
    std::string line_index(const PlanField&, const PlanPredictor&, const FieldNames&) const override {
        return "line";
    }
};

class LastValueKind : public PredictorKind {
public:
    std::string_view keyword() const override { return "LV"; }
    bool has_order() const override { return false; }
    Sequence sequence() const override { return Sequence::values; }
    bool uses_context() const override { return false; }

    void add_tables(PlanField& field, std::size_t predictor) const override {
        add_own_lines(field, predictor, true, field.l1);
    }

    std::string_view bidirectional_kind() const override { return "last_value"; }

    // Last: a longer context that is right is the better code.
    const KindTuning& tuning() const override {
        static const KindTuning tuning{3, 3, false, {}, {{0, 4}}, KindTuning::Use{0, 2}};
        return tuning;
    }

    const KindCode& code() const override {
        static const LastValueCode code;
        return code;
    }
};

}  // namespace

const PredictorKind& last_value_kind() {
    static const LastValueKind kind;
    return kind;
}

}  // namespace tcgen
