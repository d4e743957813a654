#include "generator/frontend/model.hpp"

#include <algorithm>

namespace tcgen {

bool operator==(const Predictor& a, const Predictor& b) {
    return a.kind == b.kind && a.order == b.order && a.entries == b.entries;
}

unsigned Field::prediction_count() const {
    unsigned count = 0;
    for (const Predictor& predictor : predictors) {
        count += predictor.entries;
    }
    return count;
}

unsigned Field::max_context_order(Sequence sequence) const {
    unsigned order = 0;
    for (const Predictor& predictor : predictors) {
        if (predictor.kind->uses_context() && predictor.kind->sequence() == sequence) {
            order = std::max(order, predictor.order);
        }
    }
    return order;
}

std::string Field::label() const {
    return element ? name + "[" + std::to_string(*element) + "]" : name;
}

std::string Field::member() const {
    return name.empty() ? "field" + std::to_string(number) : label();
}

unsigned Spec::record_bytes() const {
    unsigned total = 0;
    for (const Field& field : fields) {
        total += field.bytes();
    }
    return total;
}

std::string predictor_name(const Predictor& predictor) {
    std::string name(predictor.kind->keyword());
    if (predictor.kind->has_order()) {
        name += std::to_string(predictor.order);
    }
    return name + "[" + std::to_string(predictor.entries) + "]";
}

}  // namespace tcgen
