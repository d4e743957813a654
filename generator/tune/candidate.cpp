#include "generator/tune/candidate.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace tcgen::tune {

bool operator==(const PredictorChoice& a, const PredictorChoice& b) {
    return a.kind == b.kind && a.order == b.order && a.entries == b.entries;
}

bool operator==(const FieldChoice& a, const FieldChoice& b) {
    return a.bits == b.bits && a.l1 == b.l1 && a.l2 == b.l2 && a.predictors == b.predictors &&
           a.movable_last == b.movable_last;
}

unsigned FieldChoice::prediction_count() const {
    unsigned count = 0;
    for (const PredictorChoice& predictor : predictors) {
        count += predictor.entries;
    }
    return count;
}

unsigned Candidate::record_bytes() const {
    unsigned bytes = 0;
    for (const FieldChoice& field : fields) {
        bytes += field.bits / 8;
    }
    return bytes;
}

std::string predictor_text(const PredictorChoice& predictor) {
    std::string name(predictor.kind->keyword());
    if (predictor.kind->has_order()) {
        name += std::to_string(predictor.order);
    }
    return name + "[" + std::to_string(predictor.entries) + "]";
}

std::string spec_text(const Candidate& candidate) {
    std::string text = "TCgen Trace Specification;\n";
    text += std::to_string(candidate.header_bits) + "-Bit Header;\n";
    if (candidate.record_ids) {
        text += "32-Bit Ids;\n";
    }
    for (std::size_t index = 0; index < candidate.fields.size(); ++index) {
        const FieldChoice& field = candidate.fields[index];
        text += std::to_string(field.bits) + "-Bit Field " + std::to_string(index + 1) +
                " = {L1 = " + std::to_string(field.l1) + ", L2 = " + std::to_string(field.l2) + ":";
        for (std::size_t slot = 0; slot < field.predictors.size(); ++slot) {
            text += (slot == 0 ? " " : ", ") + predictor_text(field.predictors[slot]);
        }
        text += "};\n";
    }
    text += "PC = Field " + std::to_string(candidate.pc_field) + ";\n";
    return text;
}

void sort_predictors(FieldChoice& field, bool is_pc) {
    auto rank = [is_pc, &field](const PredictorKind* kind) {
        const KindTuning& tuning = kind->tuning();
        if (tuning.may_go_last && field.movable_last) {
            return std::numeric_limits<int>::max();
        }
        return is_pc ? tuning.place_on_pc_field : tuning.place_on_other_fields;
    };
    std::vector<PredictorChoice>& predictors = field.predictors;
    std::stable_sort(predictors.begin(), predictors.end(), [&](const PredictorChoice& a, const PredictorChoice& b) {
        return std::make_tuple(rank(a.kind), -static_cast<int>(a.order)) <
               std::make_tuple(rank(b.kind), -static_cast<int>(b.order));
    });
    std::vector<PredictorChoice> merged;
    for (const PredictorChoice& predictor : predictors) {
        if (!merged.empty() && merged.back().kind == predictor.kind && merged.back().order == predictor.order) {
            merged.back().entries = std::max(merged.back().entries, predictor.entries);
        } else {
            merged.push_back(predictor);
        }
    }
    predictors = merged;
    field.movable_last = field.movable_last && find_movable(field) != nullptr;
}

const PredictorChoice* find_kind(const FieldChoice& field, const PredictorKind* kind) {
    for (const PredictorChoice& predictor : field.predictors) {
        if (predictor.kind == kind) {
            return &predictor;
        }
    }
    return nullptr;
}

const PredictorChoice* find_movable(const FieldChoice& field) {
    for (const PredictorChoice& predictor : field.predictors) {
        if (predictor.kind->tuning().may_go_last) {
            return &predictor;
        }
    }
    return nullptr;
}

}  // namespace tcgen::tune
