#pragma once
// What the search optimises (--objective) and the decode speed it must keep
// to (--max-decode-ns): how two measured candidates compare.
//
// - ratio: the smallest output (the bytes alone; the search as it was).
// - speed: the fastest decoding (decode CPU time alone).
// - balanced: the smallest bytes x (decode ns/record)^balanced_time_weight:
//   a decoder 10 % faster pays for an output up to about 5 % larger.
//
// A target (--max-decode-ns) comes before the objective, under any of them:
// a candidate that decodes within it beats one that does not; of two that do
// not, the faster is better, and a simpler one (fewer predictions: faster in
// expectation) is taken unless it is measurably slower, so that a search
// that starts above the target walks towards it; of two that meet it, the
// objective decides.
//
// Decode times vary from run to run by up to a few percent even as the median
// of a few runs: where they count, a move must win by decode_time_noise
// times their weight in the score (plus --tolerance for a larger spec), so
// that noise alone takes no move.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tcgen::tune {

enum class Objective { ratio, balanced, speed };

// "ratio", "balanced", "speed" or nothing.
std::optional<Objective> parse_objective(const std::string& text);
const char* objective_name(Objective objective);

// The exponent of the decode time in the balanced score (see the design
// log, "A speed term in the tuner").
constexpr double balanced_time_weight = 0.5;
// The spread of the median of decode_repetitions decode times on a quiet
// machine (more on a busy one).
constexpr double decode_time_noise = 0.03;
// Each sample is decoded this many times; the median counts.
constexpr unsigned decode_repetitions = 5;

struct Goal {
    Objective objective = Objective::ratio;
    double max_decode_ns = 0;  // ns per record; 0: no target
    double tolerance = 0.001;  // --tolerance, a fraction
};

// What the comparisons read of a measured candidate, per sample.
struct Figures {
    std::vector<std::uint64_t> bytes;    // compressed bytes
    std::vector<double> decode_ns;       // decode CPU ns per record
    std::vector<std::uint64_t> records;  // records of the sample
};

// Decode ns per record over all samples (total time / total records).
double decode_ns_per_record(const Figures& figures);

// Whether the candidate decodes within the target (always, without one).
bool meets_target(const Goal& goal, const Figures& figures);

// The median of a few times (of decode_repetitions runs).
double median(std::vector<double> values);

// The score of one sample under the objective: smaller is better.
double sample_score(Objective objective, std::uint64_t bytes, double decode_ns, std::uint64_t records);
double total_score(Objective objective, const Figures& figures);

// The tolerance a move is judged with: --tolerance, plus the time noise
// where the objective weighs time.
double effective_tolerance(const Goal& goal);

// The rule of the search on scores per sample (smaller is better): no
// sample's may grow by more than `tolerance`; a larger spec must shrink the
// total by more than it, one neither larger nor simpler by more than
// `noise` (0 for bytes alone: any gain), a simpler one may stay within
// `tolerance` of `smallest_total`, the smallest total seen (search.hpp).
bool takes_by_scores(const std::vector<double>& neighbour, const std::vector<double>& current, double smallest_total,
                     bool larger, bool simpler, double tolerance, double noise = 0);

// The search's rule for one neighbour of the current spec (search.hpp), for
// any goal. `smallest_score` is the smallest total score seen; `larger` and
// `simpler` say how the neighbour's spec compares with the current one's.
// Under the ratio objective without a target it is takes_neighbour on bytes.
bool takes_neighbour(const Goal& goal, const Figures& neighbour, const Figures& current, double smallest_score,
                     bool larger, bool simpler);

// Whether `a` is a better result than `b`: the target first, then the
// objective's total score (for ratio: fewer bytes).
bool better_result(const Goal& goal, const Figures& a, const Figures& b);

}  // namespace tcgen::tune
