#pragma once
// The search's neighbourhood: the starting configurations, and from one
// measured candidate the changes worth trying next, ordered by what its
// usage report says (the least used predictors and slots first).

#include <string>
#include <vector>

#include "generator/tune/candidate.hpp"
#include "generator/tune/usage_report.hpp"

namespace tcgen::tune {

// The groups of changes, in the order neighbour_moves lists them.
enum class Phase { prune, sizes, grow, reorder };
constexpr unsigned phase_count = 4;

struct Move {
    std::string change;  // "field 2: drop LV[4]"
    Candidate candidate;
    Phase phase = Phase::prune;
};

// The wide configuration, in the spirit of the paper's TCgen(B): what each
// kind brings to it (KindTuning), today the PC field {L1 = 1: MATCH4[1],
// FCM3[4], FCM1[4]}, every other field {L1 = 65536 (1 when the record has no
// other field): MATCH4[1], DFCM3[4], DFCM1[2], FCM3[2], FCM1[4], LV[4]},
// L2 = 131072 (4096 for 8-bit fields).
Candidate wide_candidate(const Candidate& layout);

// The same with every L2, then every L1, halved: for shrinking a candidate
// whose tables are too large. Returns false when nothing can shrink.
bool shrink_tables(Candidate& candidate);

// The changes of `current` in the order the search tries them:
//  1. drop a predictor (least used first), or its last slot when that slot
//     is rarely written;
//  2. halve or double L2, divide or multiply L1 by 4, never below the sizes
//     of `floor` (the start): a sample of a few MB of one program cannot
//     tell what a longer trace of a larger program needs;
//  3. one more slot for a predictor whose last slot is well used, a
//     neighbouring order (x - 1, x + 1) of a predictor with an order, a
//     kind the field lacks (KindTuning::added);
//  4. the order of a predictor with one, one lower or higher.
// Without usage counts, every predictor counts as equally used. The list
// starts at group `first` and wraps around, so that a search that resumes
// after the group it last moved in tries every kind of change in turn.
std::vector<Move> neighbour_moves(const Candidate& current, const UsageCounts& usage, const Candidate& floor,
                                  Phase first = Phase::prune);

}  // namespace tcgen::tune
