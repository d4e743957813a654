// FCMx[n] (paper §3, Figure 2): the n values that followed the last times
// the same x values preceded, found through a hash of those x values.

#include "generator/kinds/lines_kind.hpp"

namespace tcgen {
namespace {

class FcmKind : public LinesKind {
public:
    FcmKind() : LinesKind(Index::context) {}

    std::string_view keyword() const override { return "FCM"; }
    std::string_view bidirectional_kind() const override { return "fcm"; }
    Sequence sequence() const override { return Sequence::values; }

    // First among the PC field's context kinds, after the DFCMs elsewhere;
    // in the wide start as in the paper's TCgen(B) (FCM3[4], FCM1[4] on the
    // PC field, FCM3[2], FCM1[4] elsewhere); FCM1[2] where a field lacks it.
    const KindTuning& tuning() const override {
        static const KindTuning tuning{1, 2, false, {{3, 4}, {1, 4}}, {{3, 2}, {1, 4}}, KindTuning::Use{1, 2}};
        return tuning;
    }
};

}  // namespace

const PredictorKind& fcm_kind() {
    static const FcmKind kind;
    return kind;
}

}  // namespace tcgen
