// LV[n] (paper §3, Figure 1): the n most recent values of the PC's L1 line.

#include "generator/kinds/lines_kind.hpp"

namespace tcgen {
namespace {

class LastValueKind : public LinesKind {
public:
    LastValueKind() : LinesKind(Index::pc_line) {}

    std::string_view keyword() const override { return "LV"; }
    Sequence sequence() const override { return Sequence::values; }
    std::string_view bidirectional_kind() const override { return "last_value"; }

    // Last: a longer context that is right is the better code. LV[4] in the
    // wide start but on the PC field, LV[2] where a field lacks it.
    const KindTuning& tuning() const override {
        static const KindTuning tuning{3, 3, false, {}, {{0, 4}}, KindTuning::Use{0, 2}};
        return tuning;
    }
};

}  // namespace

const PredictorKind& last_value_kind() {
    static const LastValueKind kind;
    return kind;
}

}  // namespace tcgen
