// FCMx[n] (paper §3, Figure 2): the n values that followed the last times
// the same x values preceded, found through a hash of those x values.

#include "generator/kinds/kind_code.hpp"
#include "generator/kinds/predictor_kind.hpp"

namespace tcgen {
namespace {

class FcmKind : public PredictorKind {
public:
    std::string_view keyword() const override { return "FCM"; }
    bool has_order() const override { return true; }
    Sequence sequence() const override { return Sequence::values; }
    bool uses_context() const override { return true; }

    void add_tables(PlanField& field, std::size_t predictor) const override {
        unsigned order = field.predictors[predictor].spec.order;
        add_own_lines(field, predictor, false, field.l2 << (order - 1));
        add_own_context(field, predictor);
    }

    std::string line_index(const PlanField& field, const PlanPredictor& predictor,
                           const FieldNames& names) const override {
        return context_line_index(field, predictor, names);
    }

    std::string prediction(const PlanField&, const PlanPredictor& predictor, const FieldNames& names,
                           unsigned entry) const override {
        return value_prediction(predictor, names, entry);
    }

    std::string update_operand(const PlanField&, const PlanPredictor&, const FieldNames&) const override {
        return "value";
    }
};

}  // namespace

const PredictorKind& fcm_kind() {
    static const FcmKind kind;
    return kind;
}

}  // namespace tcgen
