#pragma once
// The greedy search: measure the wide start (and the user's own spec when
// one was given), then move to the first neighbour that is better, until no
// neighbour is, or the budget is spent. After a move, the next neighbours
// are listed from the group of changes after the one that moved (prune,
// sizes, grow, reorder; moves.hpp), so that a long run of small prunings
// does not starve the table sizes and orders of the budget.
//
// Better means a smaller total output on the samples, by more than
// `tolerance` for a larger candidate (more predictions or larger tables); a
// simpler one (fewer predictions, no larger tables: faster) is also taken
// when its total is within `tolerance` of the smallest seen. With several
// samples, no move may make any one of them more than `tolerance` larger:
// a change that helps one program at another's expense is one that a
// program the tuner never saw may pay for. A candidate measured once is not
// measured again, so the search cannot cycle. The order of the trials
// depends only on the sample and the settings other than the budget: a
// larger budget continues the same sequence further.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generator/tune/candidate.hpp"
#include "generator/tune/trial.hpp"

namespace tcgen::tune {

struct SearchSettings {
    double budget_seconds = 300;
    unsigned max_candidates = 0;  // 0: no limit
    double tolerance = 0.001;     // 0.1%
    std::uint64_t max_table_bytes = std::uint64_t{64} << 20;
    std::uint64_t sample_bytes = 0;  // for the speeds printed
};

struct Step {
    unsigned number = 0;  // 1-based, fresh measurements only
    std::string change;   // "wide start", "field 2: drop LV[4]"
    Measurement measurement;
    bool taken = false;
};

struct SearchResult {
    Candidate best;
    Measurement best_measurement;
    std::vector<Step> steps;
    std::string stop_reason;  // "no change helps", "budget spent", ...
    double seconds = 0;
};

// The rule above for one neighbour: its and the current spec's output per
// sample, the smallest total seen, whether the neighbour is larger or
// simpler than the current spec.
bool takes_neighbour(const std::vector<std::uint64_t>& neighbour, const std::vector<std::uint64_t>& current,
                     std::uint64_t smallest_total, bool larger, bool simpler, double tolerance);

// Prints each step on `log` as it is measured. Returns nothing with `error`
// set when a fatal error ends the search (or no start could be measured).
std::optional<SearchResult> run_search(const Candidate& layout, const std::optional<Candidate>& user_spec,
                                       Trials& trials, const SearchSettings& settings, std::ostream& log,
                                       TrialError& error);

}  // namespace tcgen::tune
