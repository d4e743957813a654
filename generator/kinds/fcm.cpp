// FCMx[n] (paper §3, Figure 2): the n values that followed the last times
// the same x values preceded, found through a hash of those x values.

#include "generator/kinds/kind_code.hpp"

namespace tcgen {
namespace {

class FcmKind : public ContextKind {
public:
    std::string_view keyword() const override { return "FCM"; }
    std::string_view bidirectional_kind() const override { return "fcm"; }
    Sequence sequence() const override { return Sequence::values; }
};

}  // namespace

const PredictorKind& fcm_kind() {
    static const FcmKind kind;
    return kind;
}

}  // namespace tcgen
