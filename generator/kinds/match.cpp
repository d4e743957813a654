// MATCHx[1] (tcgen's own kind, not the paper's): LZ77's match as a
// predictor. It finds where the field's last x values (and, in a field with
// L1 > 1, the PC's L1 line) last occurred in the trace, predicts the value
// that followed them there, and while it is right keeps following that
// earlier occurrence, so that a long repeat costs one lookup however far back
// it began (runtime/predictors.hpp, MatchTable). FCM and DFCM see only their
// last x values, and so cannot tell the occurrences of a short context apart;
// this is what captures the long loops of branch and address traces. Its
// window is L2·2^(x−1) values, as many as an FCMx's lines.

#include "generator/kinds/kind_code.hpp"

namespace tcgen {
namespace {

class MatchKind : public SequenceKind {
public:
    std::string_view keyword() const override { return "MATCH"; }
    bool has_order() const override { return true; }
    bool makes_one_prediction() const override { return true; }
    // Following an earlier occurrence forward has no backward form.
    std::string_view bidirectional_kind() const override { return ""; }
    Sequence sequence() const override { return Sequence::values; }
    // Its key is hashed by its window, not read from a shared history.
    bool uses_context() const override { return false; }

    void add_tables(PlanField& field, std::size_t predictor) const override {
        PlanPredictor& owner = field.predictors[predictor];
        PlanTable table;
        table.role = TableRole::match;
        table.owner = predictor;
        table.first_level = false;
        table.lines = field.l2 << (owner.spec.order - 1);
        owner.table = add_table(field, table);
    }

    // The PC's L1 line, which the window hashes into the key.
    std::string line_index(const PlanField&, const PlanPredictor&, const FieldNames&) const override {
        return "line";
    }
};

}  // namespace

const PredictorKind& match_kind() {
    static const MatchKind kind;
    return kind;
}

}  // namespace tcgen
