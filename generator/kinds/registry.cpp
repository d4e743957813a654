// The registration of every predictor kind: to add one, define it in a file
// of its own and list it here.

#include "generator/kinds/predictor_kind.hpp"

namespace tcgen {

const PredictorKind& last_value_kind();  // last_value.cpp
const PredictorKind& fcm_kind();         // fcm.cpp
const PredictorKind& dfcm_kind();        // dfcm.cpp
const PredictorKind& match_kind();       // match.cpp

const std::vector<const PredictorKind*>& predictor_kinds() {
    static const std::vector<const PredictorKind*> kinds = {&dfcm_kind(), &fcm_kind(), &last_value_kind(), &match_kind()};
    return kinds;
}

const PredictorKind* find_predictor_kind(std::string_view keyword) {
    for (const PredictorKind* kind : predictor_kinds()) {
        if (kind->keyword() == keyword) {
            return kind;
        }
    }
    return nullptr;
}

}  // namespace tcgen
