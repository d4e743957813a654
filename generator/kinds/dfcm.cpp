// DFCMx[n] (paper §3, Figure 3): an FCM over strides, value − last value;
// its predictions are strides added to the last value, so it also predicts
// values never seen before.

#include "generator/kinds/kind_code.hpp"

namespace tcgen {
namespace {

class DfcmKind : public ContextKind {
public:
    std::string_view keyword() const override { return "DFCM"; }
    std::string_view bidirectional_kind() const override { return "dfcm"; }
    Sequence sequence() const override { return Sequence::strides; }
};

}  // namespace

const PredictorKind& dfcm_kind() {
    static const DfcmKind kind;
    return kind;
}

}  // namespace tcgen
