// LV[n] (paper §3, Figure 1): the n most recent values of the PC's L1 line.

#include "generator/kinds/kind_code.hpp"

namespace tcgen {
namespace {

class LastValueKind : public SequenceKind {
public:
    std::string_view keyword() const override { return "LV"; }
    bool has_order() const override { return false; }
    std::string_view bidirectional_kind() const override { return "last_value"; }
    Sequence sequence() const override { return Sequence::values; }
    bool uses_context() const override { return false; }

    void add_tables(PlanField& field, std::size_t predictor) const override {
        add_own_lines(field, predictor, true, field.l1);
    }

    std::string line_index(const PlanField&, const PlanPredictor&, const FieldNames&) const override {
        return "line";
    }
};

}  // namespace

const PredictorKind& last_value_kind() {
    static const LastValueKind kind;
    return kind;
}

}  // namespace tcgen
