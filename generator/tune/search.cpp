#include "generator/tune/search.hpp"

#include <chrono>
#include <cstdio>
#include <ostream>
#include <set>

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

void print_step(std::ostream& log, const Step& step, const SearchSettings& settings) {
    const Measurement& m = step.measurement;
    const double ratio = m.compressed_bytes == 0 ? 0.0
                                                 : static_cast<double>(settings.sample_bytes) /
                                                       static_cast<double>(m.compressed_bytes);
    const double speed = megabytes(settings.sample_bytes) / std::max(m.cpu_seconds, 1e-6);
    char line[160];
    std::snprintf(line, sizeof line, "tcgen tune: %3u  ratio %8.3f  %7.1f MB/s  tables %7.1f MB  %-5s  ", step.number,
                  ratio, speed, megabytes(m.table_bytes), step.taken ? "taken" : "");
    log << line << step.change << "\n" << std::flush;
}

}  // namespace

bool takes_neighbour(const std::vector<std::uint64_t>& neighbour, const std::vector<std::uint64_t>& current,
                     std::uint64_t smallest_total, bool larger, bool simpler, double tolerance) {
    double size = 0;
    double current_size = 0;
    for (std::size_t sample = 0; sample < neighbour.size() && sample < current.size(); ++sample) {
        if (static_cast<double>(neighbour[sample]) > static_cast<double>(current[sample]) * (1.0 + tolerance)) {
            return false;
        }
        size += static_cast<double>(neighbour[sample]);
        current_size += static_cast<double>(current[sample]);
    }
    // A larger spec must pay for itself by more than the tolerance; a
    // simpler one may cost up to the tolerance.
    const bool better = larger ? size < current_size * (1.0 - tolerance) : size < current_size;
    const bool close = size <= static_cast<double>(smallest_total) * (1.0 + tolerance);
    return better || (close && simpler);
}

std::optional<SearchResult> run_search(const Candidate& layout, const std::optional<Candidate>& user_spec,
                                       Trials& trials, const SearchSettings& settings, std::ostream& log,
                                       TrialError& error) {
    const Clock::time_point start = Clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    SearchResult result;
    std::optional<Candidate> current;
    Measurement current_measured;
    std::uint64_t smallest = 0;
    double trial_seconds = 0;  // of the fresh trials so far
    std::set<std::uint64_t> seen;

    // Measures a candidate unless the limits forbid; fills `measured`.
    // Returns false when it was not measured (seen before, too large,
    // refused); a fatal error also sets `stop`.
    std::string stop;
    auto try_candidate = [&](const Candidate& candidate, const std::string& change, Measurement& measured,
                             bool starting) {
        TrialError planned_error;
        std::optional<Measurement> planned = trials.plan(candidate, planned_error);
        if (!planned || planned->table_bytes > settings.max_table_bytes || seen.count(planned->fingerprint) != 0) {
            return false;
        }
        const unsigned fresh_count = static_cast<unsigned>(result.steps.size());
        if (!starting || fresh_count > 0) {
            if (settings.max_candidates != 0 && fresh_count >= settings.max_candidates) {
                stop = "candidate limit reached";
                return false;
            }
            const double average = fresh_count == 0 ? 0.0 : trial_seconds / fresh_count;
            if (elapsed() + average > settings.budget_seconds) {
                stop = "budget spent";
                return false;
            }
        }
        seen.insert(planned->fingerprint);
        const double before = elapsed();
        bool fresh = false;
        TrialError trial_error;
        std::optional<Measurement> got = trials.measure(candidate, fresh, trial_error);
        trial_seconds += elapsed() - before;
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
    if (user_spec) {
        starts.push_back({"the given spec", *user_spec});
    }
    for (const auto& [change, candidate] : starts) {
        Measurement measured;
        if (!try_candidate(candidate, change, measured, true)) {
            if (!stop.empty() && stop == "error") {
                return std::nullopt;
            }
            continue;
        }
        if (!current || measured.compressed_bytes < current_measured.compressed_bytes) {
            if (current) {
                result.steps[result.steps.size() - 2].taken = false;
            }
            current = candidate;
            current_measured = measured;
            smallest = measured.compressed_bytes;
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

    const Candidate floor = *current;
    bool moved = true;
    Phase first = Phase::prune;
    while (moved && stop.empty()) {
        moved = false;
        for (const Move& move : neighbour_moves(*current, current_measured.usage, floor, first)) {
            Measurement measured;
            if (!try_candidate(move.candidate, move.change, measured, false)) {
                if (!stop.empty()) {
                    break;
                }
                continue;
            }
            const bool take = takes_neighbour(measured.sample_compressed_bytes,
                                              current_measured.sample_compressed_bytes, smallest,
                                              larger(move.candidate, measured, *current, current_measured),
                                              simpler(move.candidate, measured, *current, current_measured),
                                              settings.tolerance);
            result.steps.back().taken = take;
            print_step(log, result.steps.back(), settings);
            if (take) {
                current = move.candidate;
                current_measured = measured;
                smallest = std::min(smallest, measured.compressed_bytes);
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
    result.best = *current;
    result.best_measurement = current_measured;
    result.seconds = elapsed();
    return result;
}

}  // namespace tcgen::tune
