#include "generator/tune/search.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <limits>
#include <ostream>
#include <set>
#include <string>

#include "generator/tune/moves.hpp"

namespace tcgen::tune {

namespace {

using Clock = std::chrono::steady_clock;

double megabytes(std::uint64_t bytes) {
    return static_cast<double>(bytes) / 1e6;
}

unsigned total_predictions(const Candidate& candidate) {
    unsigned count = 0;
    for (const FieldChoice& field : candidate.fields) {
        count += field.prediction_count();
    }
    return count;
}

// Fewer predictions in no more table memory. Smaller tables alone do not
// count: on a sample of a few MB small tables cost little, on the whole
// trace they would.
bool simpler(const Candidate& a, const Measurement& a_measured, const Candidate& b, const Measurement& b_measured) {
    return total_predictions(a) < total_predictions(b) && a_measured.table_bytes <= b_measured.table_bytes;
}

// More predictions or larger tables: slower, and more to learn.
bool larger(const Candidate& a, const Measurement& a_measured, const Candidate& b, const Measurement& b_measured) {
    return total_predictions(a) > total_predictions(b) || a_measured.table_bytes > b_measured.table_bytes;
}

std::string fixed_text(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

double ratio_of(const SearchSettings& settings, const Measurement& m) {
    return m.compressed_bytes == 0 ? 0.0
                                   : static_cast<double>(settings.sample_bytes) /
                                         static_cast<double>(m.compressed_bytes);
}

// On a terminal, the trial under way: one line, rewritten, cleared before
// anything else is printed (as the generated programs' progress line).
class ProgressLine {
public:
    ProgressLine(std::ostream& log, bool enabled) : log_(log), enabled_(enabled) {}
    ~ProgressLine() { clear(); }
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void show(const std::string& text) {
        if (enabled_) {
            // Cut to a usual terminal's width so that it never wraps.
            log_ << "\r\033[Ktcgen tune: " << text.substr(0, 66) << std::flush;
            shown_ = true;
        }
    }
    void clear() {
        if (shown_) {
            log_ << "\r\033[K" << std::flush;
            shown_ = false;
        }
    }

private:
    std::ostream& log_;
    bool enabled_;
    bool shown_ = false;
};

void print_step(std::ostream& log, const Step& step, const SearchSettings& settings) {
    const Measurement& m = step.measurement;
    const double ratio = ratio_of(settings, m);
    const double speed = megabytes(settings.sample_bytes) / std::max(m.cpu_seconds, 1e-6);
    char line[200];
    std::snprintf(line, sizeof line,
                  "tcgen tune: %3u  ratio %8.3f  %7.1f MB/s  decode %6.1f ns/rec  tables %7.1f MB  %-5s  ", step.number,
                  ratio, speed, m.decode_ns, megabytes(m.table_bytes), step.taken ? "taken" : "");
    log << line << step.change << "\n" << std::flush;
}

}  // namespace

bool takes_neighbour(const std::vector<std::uint64_t>& neighbour, const std::vector<std::uint64_t>& current,
                     std::uint64_t smallest_total, bool larger, bool simpler, double tolerance) {
    return takes_by_scores(std::vector<double>(neighbour.begin(), neighbour.end()),
                           std::vector<double>(current.begin(), current.end()), static_cast<double>(smallest_total),
                           larger, simpler, tolerance);
}

Goal goal_of(const SearchSettings& settings) {
    return {settings.objective, settings.max_decode_ns, settings.tolerance};
}

bool trial_fits(double elapsed, double trial, double round_trip, double budget) {
    return elapsed + trial + round_trip <= budget;
}

std::optional<SearchResult> run_search(const Candidate& layout, const std::vector<StartSpec>& start_specs,
                                       Measurer& trials, const SearchSettings& settings, std::ostream& log,
                                       bool progress, TrialError& error) {
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - settings.started).count(); };
    const Goal goal = goal_of(settings);
    SearchResult result;
    std::optional<Candidate> current;
    Measurement current_measured;
    // The smallest score of the specs taken that meet the target (for
    // ratio: their bytes); infinite while none does.
    const double none_yet = std::numeric_limits<double>::infinity();
    double smallest = none_yet;
    auto note_taken = [&](const Measurement& taken) {
        const Figures figures = figures_of(taken);
        if (meets_target(goal, figures)) {
            smallest = std::min(smallest, total_score(goal.objective, figures));
        }
    };
    // The times of the last few fresh trials: the longest of them is what
    // the next is expected to take. Recent ones only, so that the wide
    // start's large tables do not hold the estimate up for the whole run.
    std::deque<double> recent_trials;
    auto expected_trial = [&] {
        return recent_trials.empty() ? 0.0 : *std::max_element(recent_trials.begin(), recent_trials.end());
    };
    std::set<std::uint64_t> seen;
    ProgressLine progress_line(log, progress);

    // Measures a candidate unless the limits forbid; fills `measured`.
    // Returns false when it was not measured (seen before, too large,
    // refused); a fatal error also sets `stop`.
    std::string stop;
    auto try_candidate = [&](const Candidate& candidate, const std::string& change, Measurement& measured,
                             bool starting) {
        TrialError planned_error;
        std::optional<Measurement> planned = trials.plan(candidate, planned_error);
        if (!planned || planned->table_bytes > settings.max_table_bytes || seen.count(planned->fingerprint) != 0) {
            // A start left out is said: the result is then measured
            // against another start.
            if (starting && !planned) {
                log << "tcgen tune: skipped " << change << ": " << planned_error.message << "\n";
            } else if (starting && planned->table_bytes > settings.max_table_bytes) {
                log << "tcgen tune: skipped " << change << ": its tables ("
                    << fixed_text(megabytes(planned->table_bytes), 1) << " MB) exceed --max-table-mb\n";
            }
            return false;
        }
        const unsigned fresh_count = static_cast<unsigned>(result.steps.size());
        if (!starting || fresh_count > 0) {
            if (settings.max_candidates != 0 && fresh_count >= settings.max_candidates) {
                stop = "candidate limit reached";
                return false;
            }
            // Decompressing the result costs about what compressing it did.
            const double round_trip = current ? current_measured.cpu_seconds * 1.25 : 0.0;
            if (!trial_fits(elapsed(), expected_trial(), round_trip, settings.budget_seconds)) {
                stop = "budget spent";
                return false;
            }
        }
        seen.insert(planned->fingerprint);
        progress_line.show("candidate " + std::to_string(fresh_count + 1) + ", " + fixed_text(elapsed(), 0) +
                           " of " + fixed_text(settings.budget_seconds, 0) + " s" +
                           (current ? ", best ratio " + fixed_text(ratio_of(settings, current_measured), 3) + " " +
                                          fixed_text(current_measured.decode_ns, 0) + " ns"
                                    : "") +
                           ": " + change);
        const double before = elapsed();
        bool fresh = false;
        TrialError trial_error;
        std::optional<Measurement> got = trials.measure(candidate, fresh, trial_error);
        recent_trials.push_back(elapsed() - before);
        if (recent_trials.size() > 3) {
            recent_trials.pop_front();
        }
        progress_line.clear();
        if (!got) {
            log << "tcgen tune: skipped " << change << ": " << trial_error.message << "\n";
            if (trial_error.fatal) {
                error = trial_error;
                stop = "error";
            }
            return false;
        }
        measured = *got;
        Step step{static_cast<unsigned>(result.steps.size() + 1), change, measured, false};
        result.steps.push_back(step);
        return true;
    };

    std::vector<std::pair<std::string, Candidate>> starts;
    for (const StartSpec& spec : start_specs) {
        starts.push_back({spec.name, spec.candidate});
    }
    Candidate wide = wide_candidate(layout);
    TrialError plan_error;
    for (;;) {
        std::optional<Measurement> planned = trials.plan(wide, plan_error);
        if (planned && planned->table_bytes <= settings.max_table_bytes) {
            break;
        }
        if (!shrink_tables(wide)) {
            break;
        }
    }
    starts.push_back({"wide start", wide});
    // The start the result is measured against and never falls below: the
    // best of the specs (the user's, or every shipped one of the layout),
    // the wide start only when none of them could be measured. The search
    // itself goes on from the best of all the starts.
    std::optional<Step> start_step;
    std::optional<std::size_t> start_index;
    std::optional<Step> wide_step;
    for (std::size_t index = 0; index < starts.size(); ++index) {
        const auto& [change, candidate] = starts[index];
        const bool is_spec = index + 1 < starts.size();
        Measurement measured;
        if (!try_candidate(candidate, change, measured, true)) {
            if (stop == "error") {
                return std::nullopt;
            }
            continue;
        }
        if (!is_spec) {
            wide_step = result.steps.back();
        } else if (!start_step || better_result(goal, figures_of(measured), figures_of(start_step->measurement))) {
            start_step = result.steps.back();
            start_index = index;
        }
        if (!current || better_result(goal, figures_of(measured), figures_of(current_measured))) {
            for (Step& step : result.steps) {
                step.taken = false;
            }
            current = candidate;
            current_measured = measured;
            smallest = none_yet;
            note_taken(measured);
            result.steps.back().taken = true;
        }
    }
    for (const Step& step : result.steps) {
        print_step(log, step, settings);
    }
    if (!current) {
        if (error.message.empty()) {
            error = {true, "no starting candidate could be measured (see above)"};
        }
        return std::nullopt;
    }
    const bool from_start_spec = start_index.has_value();
    if (!from_start_spec) {
        start_step = wide_step;
    }
    const Candidate start_candidate = from_start_spec ? starts[*start_index].second : wide;
    result.start_name = from_start_spec ? starts[*start_index].first : "the wide start";
    result.start_measurement = start_step->measurement;

    // The sizes the moves may not go below: the start's, for the ratio (a
    // sample cannot tell what a whole trace needs); none where speed counts,
    // for which smaller tables are a way.
    Candidate floor = *current;
    if (goal.objective != Objective::ratio || goal.max_decode_ns > 0) {
        for (FieldChoice& field : floor.fields) {
            field.l1 = 1;
            field.l2 = 1;
        }
    }
    bool moved = true;
    Phase first = Phase::prune;
    while (moved && stop.empty()) {
        moved = false;
        // Towards speed (the objective, or a target not met yet) a larger
        // spec is slower in all but noise: such moves are not measured, so
        // that the budget goes to the prunings and smaller tables.
        const bool speed_first = goal.objective == Objective::speed ||
                                 !meets_target(goal, figures_of(current_measured));
        for (const Move& move : neighbour_moves(*current, current_measured.usage, floor, first)) {
            if (speed_first) {
                TrialError ignored;
                std::optional<Measurement> planned = trials.plan(move.candidate, ignored);
                if (planned && larger(move.candidate, *planned, *current, current_measured)) {
                    continue;
                }
            }
            Measurement measured;
            if (!try_candidate(move.candidate, move.change, measured, false)) {
                if (!stop.empty()) {
                    break;
                }
                continue;
            }
            const bool take = takes_neighbour(goal, figures_of(measured), figures_of(current_measured),
                                              smallest,
                                              larger(move.candidate, measured, *current, current_measured),
                                              simpler(move.candidate, measured, *current, current_measured));
            result.steps.back().taken = take;
            print_step(log, result.steps.back(), settings);
            if (take) {
                current = move.candidate;
                current_measured = measured;
                note_taken(measured);
                first = static_cast<Phase>((static_cast<unsigned>(move.phase) + 1) % phase_count);
                moved = true;
                break;
            }
        }
    }
    if (stop == "error") {
        return std::nullopt;
    }
    result.stop_reason = stop.empty() ? "no change helps" : stop;
    // A simpler candidate may have been taken at a cost within the
    // tolerance: the result is never allowed to fall below the start.
    result.start_kept = !better_result(goal, figures_of(current_measured), figures_of(result.start_measurement));
    result.best = result.start_kept ? start_candidate : *current;
    result.best_measurement = result.start_kept ? result.start_measurement : current_measured;
    result.meets_target = meets_target(goal, figures_of(result.best_measurement));
    result.seconds = elapsed();
    return result;
}

}  // namespace tcgen::tune
