#include "generator/frontend/model.hpp"

#include <algorithm>

namespace tcgen {

unsigned Spec::record_bytes() const {
    unsigned total = 0;
    for (const Field& field : fields) {
        total += field.bytes();
    }
    return total;
}

std::string predictor_name(const Predictor& predictor) {
    std::string entries = "[" + std::to_string(predictor.entries) + "]";
    switch (predictor.kind) {
        case PredictorKind::last_value:
            return "LV" + entries;
        case PredictorKind::fcm:
            return "FCM" + std::to_string(predictor.order) + entries;
        case PredictorKind::dfcm:
            return "DFCM" + std::to_string(predictor.order) + entries;
    }
    return "?";
}

unsigned prediction_count(const Field& field) {
    unsigned count = 0;
    for (const Predictor& predictor : field.predictors) {
        count += predictor.entries;
    }
    return count;
}

unsigned max_order(const Field& field, PredictorKind kind) {
    unsigned order = 0;
    for (const Predictor& predictor : field.predictors) {
        if (predictor.kind == kind) {
            order = std::max(order, predictor.order);
        }
    }
    return order;
}

}  // namespace tcgen
