// DFCMx[n] (paper §3, Figure 3): an FCM over strides, value − last value;
// its predictions are strides added to the last value, so it also predicts
// values never seen before.

#include "generator/kinds/lines_kind.hpp"

namespace tcgen {
namespace {

class DfcmKind : public LinesKind {
public:
    DfcmKind() : LinesKind(Index::context) {}

    std::string_view keyword() const override { return "DFCM"; }
    std::string_view bidirectional_kind() const override { return "dfcm"; }
    Sequence sequence() const override { return Sequence::strides; }

    // First among the context kinds of a field other than the PC, after the
    // FCMs on the PC field, whose values repeat more than they stride; in the
    // wide start as in the paper's TCgen(B) (DFCM3[4], DFCM1[2], not on the
    // PC field); DFCM1[2] where a field lacks it.
    const KindTuning& tuning() const override {
        static const KindTuning tuning{2, 1, false, {}, {{3, 4}, {1, 2}}, KindTuning::Use{1, 2}};
        return tuning;
    }
};

}  // namespace

const PredictorKind& dfcm_kind() {
    static const DfcmKind kind;
    return kind;
}

}  // namespace tcgen
