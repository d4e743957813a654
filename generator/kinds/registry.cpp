// The registration of every predictor kind: a built-in kind is defined in a
// file of its own and declared and listed here; a kind defined elsewhere
// registers itself through register_predictor_kind().

#include <stdexcept>

#include "generator/kinds/predictor_kind.hpp"

namespace tcgen {

const PredictorKind& dfcm_kind();        // dfcm.cpp
const PredictorKind& fcm_kind();         // fcm.cpp
const PredictorKind& last_value_kind();  // last_value.cpp
const PredictorKind& match_kind();       // match.cpp

namespace {

std::vector<const PredictorKind*>& registered_kinds() {
    static std::vector<const PredictorKind*> kinds = {&dfcm_kind(), &fcm_kind(), &last_value_kind(), &match_kind()};
    return kinds;
}

}  // namespace

const std::vector<const PredictorKind*>& predictor_kinds() {
    return registered_kinds();
}

const PredictorKind* find_predictor_kind(std::string_view keyword) {
    for (const PredictorKind* kind : predictor_kinds()) {
        if (kind->keyword() == keyword) {
            return kind;
        }
    }
    return nullptr;
}

void register_predictor_kind(const PredictorKind& kind) {
    if (find_predictor_kind(kind.keyword()) != nullptr) {
        throw std::invalid_argument("predictor kind " + std::string(kind.keyword()) + " is registered already");
    }
    registered_kinds().push_back(&kind);
}

}  // namespace tcgen
