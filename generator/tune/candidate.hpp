#pragma once
// A point of the tuner's search space: the record layout the user gave,
// with predictors and table sizes chosen for every field, and its spec text.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tcgen::tune {

enum class Kind { dfcm, fcm, lv, match };

struct PredictorChoice {
    Kind kind = Kind::fcm;
    unsigned order = 1;    // 0 for LV
    unsigned entries = 1;  // the [n] of the spec: predictions it makes (1 for MATCH)
};

bool operator==(const PredictorChoice& a, const PredictorChoice& b);

struct FieldChoice {
    unsigned bits = 64;
    std::uint64_t l1 = 1;
    std::uint64_t l2 = 65536;
    std::vector<PredictorChoice> predictors;  // slot order: see sort_predictors
    // Where a MATCH goes: first, where traces repeat (its hits take code 0),
    // or last, where one FCM or DFCM slot is right nearly always and a MATCH
    // ahead of it would push that slot's code to 1 (docs/benchmarks.md, "The
    // match predictor": stores want it last, load values first).
    bool match_last = false;

    unsigned prediction_count() const;
};

bool operator==(const FieldChoice& a, const FieldChoice& b);

struct Candidate {
    unsigned header_bits = 0;
    unsigned pc_field = 1;  // 1-based
    std::vector<FieldChoice> fields;

    unsigned record_bytes() const;
};

// "FCM3[2]", "LV[4]".
std::string predictor_text(const PredictorChoice& predictor);

// The spec of a candidate, in the spec language (not yet canonical: tcgen
// parses it and prints its canonical form).
std::string spec_text(const Candidate& candidate);

// Puts a field's predictors in the tuner's slot order, the one the paper's
// specs use: for the PC field FCMs before DFCMs, for other fields DFCMs
// before FCMs, higher orders first, LV last; so that the longest context
// that is right is the one written. MATCH, whose context is the longest of
// all, comes first, or last when the field says so (match_last). Merges
// duplicates of one kind and order.
void sort_predictors(FieldChoice& field, bool is_pc);

// The field's first predictor of `kind`, or null when it has none.
const PredictorChoice* find_kind(const FieldChoice& field, Kind kind);

}  // namespace tcgen::tune
