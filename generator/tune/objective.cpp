#include "generator/tune/objective.hpp"

#include <algorithm>
#include <cmath>

namespace tcgen::tune {

namespace {

std::vector<double> sample_scores(Objective objective, const Figures& figures) {
    std::vector<double> scores;
    for (std::size_t sample = 0; sample < figures.bytes.size(); ++sample) {
        const double decode_ns = sample < figures.decode_ns.size() ? figures.decode_ns[sample] : 0.0;
        const std::uint64_t records = sample < figures.records.size() ? figures.records[sample] : 0;
        scores.push_back(sample_score(objective, figures.bytes[sample], decode_ns, records));
    }
    return scores;
}

}  // namespace

std::optional<Objective> parse_objective(const std::string& text) {
    for (Objective objective : {Objective::ratio, Objective::balanced, Objective::speed}) {
        if (text == objective_name(objective)) {
            return objective;
        }
    }
    return std::nullopt;
}

const char* objective_name(Objective objective) {
    switch (objective) {
        case Objective::ratio:
            return "ratio";
        case Objective::balanced:
            return "balanced";
        case Objective::speed:
            return "speed";
    }
    return "ratio";
}

double decode_ns_per_record(const Figures& figures) {
    double nanoseconds = 0;
    double records = 0;
    for (std::size_t sample = 0; sample < figures.decode_ns.size() && sample < figures.records.size(); ++sample) {
        nanoseconds += figures.decode_ns[sample] * static_cast<double>(figures.records[sample]);
        records += static_cast<double>(figures.records[sample]);
    }
    return records == 0 ? 0.0 : nanoseconds / records;
}

bool meets_target(const Goal& goal, const Figures& figures) {
    return goal.max_decode_ns <= 0 || decode_ns_per_record(figures) <= goal.max_decode_ns;
}

double median(std::vector<double> values) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

double sample_score(Objective objective, std::uint64_t bytes, double decode_ns, std::uint64_t records) {
    switch (objective) {
        case Objective::ratio:
            return static_cast<double>(bytes);
        case Objective::balanced:
            return static_cast<double>(bytes) * std::pow(decode_ns, balanced_time_weight);
        case Objective::speed:
            // The sample's decode time: with several samples, their total.
            return decode_ns * static_cast<double>(records);
    }
    return static_cast<double>(bytes);
}

double total_score(Objective objective, const Figures& figures) {
    double total = 0;
    for (double score : sample_scores(objective, figures)) {
        total += score;
    }
    return total;
}

double effective_tolerance(const Goal& goal) {
    switch (goal.objective) {
        case Objective::ratio:
            return goal.tolerance;
        case Objective::balanced:
            return goal.tolerance + balanced_time_weight * decode_time_noise;
        case Objective::speed:
            return goal.tolerance + decode_time_noise;
    }
    return goal.tolerance;
}

bool takes_by_scores(const std::vector<double>& neighbour, const std::vector<double>& current, double smallest_total,
                     bool larger, bool simpler, double tolerance, double noise) {
    double size = 0;
    double current_size = 0;
    for (std::size_t sample = 0; sample < neighbour.size() && sample < current.size(); ++sample) {
        if (neighbour[sample] > current[sample] * (1.0 + tolerance)) {
            return false;
        }
        size += neighbour[sample];
        current_size += current[sample];
    }
    // A larger spec must pay for itself by more than the tolerance; a
    // simpler one may cost up to the tolerance.
    const bool better = larger ? size < current_size * (1.0 - tolerance) : size < current_size * (1.0 - noise);
    const bool close = size <= smallest_total * (1.0 + tolerance);
    return better || (close && simpler);
}

bool takes_neighbour(const Goal& goal, const Figures& neighbour, const Figures& current, double smallest_score,
                     bool larger, bool simpler) {
    if (goal.max_decode_ns > 0) {
        const bool neighbour_meets = meets_target(goal, neighbour);
        const bool current_meets = meets_target(goal, current);
        if (neighbour_meets != current_meets) {
            return neighbour_meets;
        }
        if (!current_meets) {
            // Towards the target: faster beyond the noise, or simpler and
            // not measurably slower.
            const double neighbour_ns = decode_ns_per_record(neighbour);
            const double current_ns = decode_ns_per_record(current);
            return neighbour_ns < current_ns * (1.0 - decode_time_noise) ||
                   (simpler && neighbour_ns <= current_ns * (1.0 + decode_time_noise));
        }
    }
    // Where time counts, its noise alone must not take a move (a reordering
    // that costs ratio, say): any change must win by more than the noise.
    return takes_by_scores(sample_scores(goal.objective, neighbour), sample_scores(goal.objective, current),
                           smallest_score, larger, simpler, effective_tolerance(goal),
                           effective_tolerance(goal) - goal.tolerance);
}

bool better_result(const Goal& goal, const Figures& a, const Figures& b) {
    if (goal.max_decode_ns > 0) {
        const bool a_meets = meets_target(goal, a);
        const bool b_meets = meets_target(goal, b);
        if (a_meets != b_meets) {
            return a_meets;
        }
        if (!a_meets) {
            return decode_ns_per_record(a) < decode_ns_per_record(b);
        }
    }
    return total_score(goal.objective, a) < total_score(goal.objective, b);
}

}  // namespace tcgen::tune
