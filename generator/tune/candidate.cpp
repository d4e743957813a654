#include "generator/tune/candidate.hpp"

#include <algorithm>
#include <tuple>

namespace tcgen::tune {

bool operator==(const PredictorChoice& a, const PredictorChoice& b) {
    return a.kind == b.kind && a.order == b.order && a.entries == b.entries;
}

bool operator==(const FieldChoice& a, const FieldChoice& b) {
    return a.bits == b.bits && a.l1 == b.l1 && a.l2 == b.l2 && a.predictors == b.predictors &&
           a.match_last == b.match_last;
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
    std::string name = predictor.kind == Kind::fcm     ? "FCM" + std::to_string(predictor.order)
                       : predictor.kind == Kind::dfcm  ? "DFCM" + std::to_string(predictor.order)
                       : predictor.kind == Kind::match ? "MATCH" + std::to_string(predictor.order)
                                                       : std::string("LV");
    return name + "[" + std::to_string(predictor.entries) + "]";
}

std::string spec_text(const Candidate& candidate) {
    std::string text = "TCgen Trace Specification;\n";
    text += std::to_string(candidate.header_bits) + "-Bit Header;\n";
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
    auto rank = [is_pc, &field](Kind kind) {
        if (kind == Kind::match) {
            return field.match_last ? 4 : 0;
        }
        if (kind == Kind::lv) {
            return 3;
        }
        return (kind == Kind::fcm) == is_pc ? 1 : 2;
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
    field.match_last = field.match_last && find_kind(field, Kind::match) != nullptr;
}

const PredictorChoice* find_kind(const FieldChoice& field, Kind kind) {
    for (const PredictorChoice& predictor : field.predictors) {
        if (predictor.kind == kind) {
            return &predictor;
        }
    }
    return nullptr;
}

}  // namespace tcgen::tune
