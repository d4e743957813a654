#pragma once
// A point of the tuner's search space: the record layout the user gave,
// with predictors and table sizes chosen for every field, and its spec text.
// Predictor kinds are the registry's (generator/kinds/): what the tuner does
// with one, its kind says (KindTuning).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generator/kinds/predictor_kind.hpp"

namespace tcgen::tune {

struct PredictorChoice {
    const PredictorKind* kind = nullptr;
    unsigned order = 1;    // 0 for a kind without an order (LV)
    unsigned entries = 1;  // the [n] of the spec: predictions it makes (1 for MATCH)
};

bool operator==(const PredictorChoice& a, const PredictorChoice& b);

struct FieldChoice {
    unsigned bits = 64;
    std::uint64_t l1 = 1;
    std::uint64_t l2 = 65536;
    std::vector<PredictorChoice> predictors;  // slot order: see sort_predictors
    // Where a kind that may go last (KindTuning::may_go_last: MATCH) goes:
    // in its place, or after every other kind.
    bool movable_last = false;

    unsigned prediction_count() const;
};

bool operator==(const FieldChoice& a, const FieldChoice& b);

struct Candidate {
    unsigned header_bits = 0;
    unsigned pc_field = 1;  // 1-based
    // "32-Bit Ids;", kept from the spec tuning starts from: the tuner
    // chooses the fields' predictors, which then code first appearances.
    bool record_ids = false;
    std::vector<FieldChoice> fields;

    unsigned record_bytes() const;
};

// "FCM3[2]", "LV[4]".
std::string predictor_text(const PredictorChoice& predictor);

// The spec of a candidate, in the spec language (not yet canonical: tcgen
// parses it and prints its canonical form).
std::string spec_text(const Candidate& candidate);

// Puts a field's predictors in the tuner's slot order, the one the paper's
// specs use: by their kinds' places (KindTuning: for the PC field FCMs
// before DFCMs, for other fields DFCMs before FCMs, LV last), higher orders
// first; so that the longest context that is right is the one written.
// MATCH, whose context is the longest of all, comes first, or last when the
// field says so (movable_last). Merges duplicates of one kind and order.
void sort_predictors(FieldChoice& field, bool is_pc);

// The field's first predictor of `kind`, or null when it has none.
const PredictorChoice* find_kind(const FieldChoice& field, const PredictorKind* kind);

// The field's first predictor whose kind may go last, or null.
const PredictorChoice* find_movable(const FieldChoice& field);

}  // namespace tcgen::tune
