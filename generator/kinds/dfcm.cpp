// DFCMx[n] (paper §3, Figure 3): an FCM over strides, value − last value;
// its predictions are strides added to the last value, so it also predicts
// values never seen before.

#include "generator/kinds/kind_code.hpp"
#include "generator/kinds/predictor_kind.hpp"

namespace tcgen {
namespace {

class DfcmKind : public PredictorKind {
public:
    std::string_view keyword() const override { return "DFCM"; }
    bool has_order() const override { return true; }
    Sequence sequence() const override { return Sequence::strides; }
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

    std::string prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                           unsigned entry) const override {
        return stride_prediction(field, predictor, names, entry);
    }

    std::string update_operand(const PlanField&, const PlanPredictor& predictor,
                               const FieldNames& names) const override {
        return names.stride(predictor.stride);
    }
};

}  // namespace

const PredictorKind& dfcm_kind() {
    static const DfcmKind kind;
    return kind;
}

}  // namespace tcgen
