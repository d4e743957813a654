#pragma once
// The greedy search: measure the starts (the user's spec, or every shipped
// spec of the layout) and the wide start, then from the best of them move to
// the first neighbour that is better, until no neighbour is, or the budget is
// spent. After a move, the next neighbours
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
//
// Under --objective=balanced or speed, and with a decode target, the same
// rule compares scores that weigh the decode time too (objective.hpp).
// Under speed, and while a target is not met, moves to a larger spec are
// not tried: they would be slower. Where speed counts, tables may shrink
// below the start's sizes (moves.hpp's floor).
//
// The result is never worse than the start, the best of the specs it
// started from: when no candidate measured has a smaller total output than
// that start's, the start itself is the result.
// The budget counts from `started` (the command's start, so that cutting
// the samples counts too) and includes the final round trip of the result:
// a trial starts only when one as long as the longest of the last three,
// and then the round trip, still end within it (so it ends up to one trial early, never
// more than a trial's variation late).

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generator/tune/candidate.hpp"
#include "generator/tune/objective.hpp"
#include "generator/tune/trial.hpp"

namespace tcgen::tune {

struct SearchSettings {
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
    double budget_seconds = 300;
    unsigned max_candidates = 0;  // 0: no limit
    double tolerance = 0.001;     // 0.1%
    std::uint64_t max_table_bytes = std::uint64_t{64} << 20;
    std::uint64_t sample_bytes = 0;  // for the speeds printed
    Objective objective = Objective::ratio;
    double max_decode_ns = 0;  // 0: no target
};

// The goal (objective.hpp) of these settings.
Goal goal_of(const SearchSettings& settings);

struct Step {
    unsigned number = 0;  // 1-based, fresh measurements only
    std::string change;   // "wide start", "field 2: drop LV[4]"
    Measurement measurement;
    bool taken = false;
};

// Where the search starts: a spec of the user's or the shipped ones.
struct StartSpec {
    std::string name;  // "examples/vpc3.tcg", or the --spec path as given
    Candidate candidate;
};

struct SearchResult {
    Candidate best;
    Measurement best_measurement;
    std::string start_name;  // the best spec start's name, or "the wide start"
    Measurement start_measurement;
    bool start_kept = false;  // no candidate beat the start
    bool meets_target = true;  // the best decodes within --max-decode-ns
    std::vector<Step> steps;
    std::string stop_reason;  // "no change helps", "budget spent", ...
    double seconds = 0;
};

// The rule above for one neighbour: its and the current spec's output per
// sample, the smallest total seen, whether the neighbour is larger or
// simpler than the current spec.
bool takes_neighbour(const std::vector<std::uint64_t>& neighbour, const std::vector<std::uint64_t>& current,
                     std::uint64_t smallest_total, bool larger, bool simpler, double tolerance);

// Whether a trial may start `elapsed` seconds into a budget, when it is
// expected to take `trial` seconds and the round trip of the result
// `round_trip`.
bool trial_fits(double elapsed, double trial, double round_trip, double budget);

// Prints each step on `log` as it is measured, and on a terminal
// (`progress`) a line rewritten before each trial. Returns nothing with
// `error` set when a fatal error ends the search (or no start could be
// measured).
std::optional<SearchResult> run_search(const Candidate& layout, const std::vector<StartSpec>& start_specs,
                                       Measurer& trials, const SearchSettings& settings, std::ostream& log,
                                       bool progress, TrialError& error);

}  // namespace tcgen::tune
