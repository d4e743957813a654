// The tuner's objectives (--objective, --max-decode-ns) on injected
// measurements, never on timed runs: the scores, the rule for a neighbour
// under each goal, which of two results is better, and the whole search
// driven by a measurer whose sizes and decode times are formulas of the
// candidate: the ratio search does not depend on the decode times, a
// reachable target is met, an unreachable one is reported, and the search
// towards speed measures no larger spec but may shrink tables below the
// start's.

#include <cmath>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "generator/tune/candidate.hpp"
#include "generator/tune/layout.hpp"
#include "generator/tune/objective.hpp"
#include "generator/tune/search.hpp"
#include "generator/tune/shipped_specs.hpp"
#include "generator/tune/trial.hpp"

namespace tcgen::tune {
namespace {

// One sample of 1000 records.
Figures one_sample(std::uint64_t bytes, double decode_ns) {
    return {{bytes}, {decode_ns}, {1000}};
}

Goal goal(Objective objective, double max_decode_ns = 0, double tolerance = 0) {
    return {objective, max_decode_ns, tolerance};
}

TEST(Objective, NamesAreTheOptionsValues) {
    EXPECT_EQ(parse_objective("ratio"), Objective::ratio);
    EXPECT_EQ(parse_objective("balanced"), Objective::balanced);
    EXPECT_EQ(parse_objective("speed"), Objective::speed);
    EXPECT_EQ(parse_objective("Speed"), std::nullopt);
    EXPECT_EQ(parse_objective(""), std::nullopt);
    EXPECT_STREQ(objective_name(Objective::balanced), "balanced");
}

TEST(Objective, MedianIgnoresOneOutlierEitherWay) {
    EXPECT_DOUBLE_EQ(median({0.05, 0.04, 0.9, 0.041, 0.042}), 0.042);
    EXPECT_DOUBLE_EQ(median({0.001, 0.04, 0.041}), 0.04);
    EXPECT_DOUBLE_EQ(median({1, 3}), 2);
    EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(Objective, DecodeNsPerRecordWeighsTheSamplesByTheirRecords) {
    const Figures figures{{100, 100}, {10, 40}, {3000, 1000}};
    EXPECT_DOUBLE_EQ(decode_ns_per_record(figures), (10.0 * 3000 + 40.0 * 1000) / 4000);
    EXPECT_TRUE(meets_target(goal(Objective::ratio), figures));  // no target
    EXPECT_TRUE(meets_target(goal(Objective::ratio, 17.5), figures));
    EXPECT_FALSE(meets_target(goal(Objective::ratio, 17.4), figures));
}

TEST(Objective, ScoresWeighBytesAndTimeAsDocumented) {
    EXPECT_DOUBLE_EQ(sample_score(Objective::ratio, 1000, 50, 10), 1000);
    EXPECT_DOUBLE_EQ(sample_score(Objective::balanced, 1000, 49, 10), 1000 * 7.0);
    EXPECT_DOUBLE_EQ(sample_score(Objective::speed, 1000, 50, 10), 500);  // the sample's decode ns
    // The time counts only where it weighs in the score.
    EXPECT_DOUBLE_EQ(effective_tolerance(goal(Objective::ratio, 0, 0.001)), 0.001);
    EXPECT_DOUBLE_EQ(effective_tolerance(goal(Objective::balanced, 0, 0.001)),
                     0.001 + balanced_time_weight * decode_time_noise);
    EXPECT_DOUBLE_EQ(effective_tolerance(goal(Objective::speed, 0, 0.001)), 0.001 + decode_time_noise);
}

TEST(Objective, RatioIgnoresDecodeTimesAndIsTheBytesRule) {
    const Goal ratio = goal(Objective::ratio, 0, 0.01);
    // The cases of the bytes rule (search.hpp), with decode times that would
    // decide otherwise under any other objective.
    struct Case {
        std::uint64_t neighbour, current, smallest;
        bool larger, simpler;
    };
    for (const Case& c : {Case{980, 1000, 1000, true, false}, Case{995, 1000, 1000, true, false},
                          Case{999, 1000, 1000, false, false}, Case{1001, 1000, 1000, false, false},
                          Case{1009, 1000, 1000, false, true}, Case{1009, 1000, 990, false, true}}) {
        const bool by_bytes = takes_neighbour({c.neighbour}, {c.current}, c.smallest, c.larger, c.simpler, 0.01);
        for (double neighbour_ns : {1.0, 100.0, 1e6}) {
            EXPECT_EQ(takes_neighbour(ratio, one_sample(c.neighbour, neighbour_ns), one_sample(c.current, 100),
                                      static_cast<double>(c.smallest), c.larger, c.simpler),
                      by_bytes)
                << c.neighbour << " bytes at " << neighbour_ns << " ns";
        }
    }
    EXPECT_TRUE(better_result(ratio, one_sample(999, 1e6), one_sample(1000, 1)));
    EXPECT_FALSE(better_result(ratio, one_sample(1000, 1), one_sample(1000, 1e6)));
}

TEST(Objective, BalancedTradesAboutHalfAPercentOfSizePerPercentOfSpeed) {
    const Goal balanced = goal(Objective::balanced);
    const Figures current = one_sample(1000, 100);  // score 1000 x 10
    // As results, 10 % faster beats 4 % larger (1040 x sqrt(90) = 9866), not
    // 6 % (1060 x sqrt(90) = 10056).
    EXPECT_TRUE(better_result(balanced, one_sample(1040, 90), current));
    EXPECT_FALSE(better_result(balanced, one_sample(1060, 90), current));
    // A move must also win by more than the noise (1.5 % of the score):
    // 20 % faster pays for 9 % larger (1090 x sqrt(80) = 9749), not 4 % at
    // 10 % faster (9866) or 11 % at 20 % (1110 x sqrt(80) = 9928).
    EXPECT_TRUE(takes_neighbour(balanced, one_sample(1090, 80), current, 10000, false, false));
    EXPECT_FALSE(takes_neighbour(balanced, one_sample(1040, 90), current, 10000, false, false));
    EXPECT_FALSE(takes_neighbour(balanced, one_sample(1110, 80), current, 10000, false, false));
    // A larger spec must gain more than the timing noise: 1 % smaller
    // output at the same speed does not pay for it, 3 % does.
    EXPECT_FALSE(takes_neighbour(balanced, one_sample(990, 100), current, 10000, true, false));
    EXPECT_TRUE(takes_neighbour(balanced, one_sample(970, 100), current, 10000, true, false));
}

TEST(Objective, SpeedTakesTheFasterWhateverItsSize) {
    const Goal speed = goal(Objective::speed);
    const Figures current = one_sample(1000, 100);
    EXPECT_TRUE(takes_neighbour(speed, one_sample(5000, 80), current, 100000, false, false));
    EXPECT_FALSE(takes_neighbour(speed, one_sample(500, 120), current, 100000, false, false));
    // Within the noise, a larger spec is not taken for being 2 % faster,
    // nor is a reordering (neither larger nor simpler) that costs ratio.
    EXPECT_FALSE(takes_neighbour(speed, one_sample(500, 98), current, 100000, true, false));
    EXPECT_FALSE(takes_neighbour(speed, one_sample(1110, 98), current, 100000, false, false));
    EXPECT_TRUE(takes_neighbour(speed, one_sample(1110, 96), current, 100000, false, false));
    EXPECT_TRUE(better_result(speed, one_sample(5000, 80), current));
}

TEST(Objective, ATargetComesFirstAndTheSearchWalksTowardsIt) {
    const Goal target = goal(Objective::ratio, 100);
    const Figures slow = one_sample(1000, 120);
    // Above the target: simpler and not measurably slower, or faster beyond
    // the noise, whatever the size.
    EXPECT_TRUE(takes_neighbour(target, one_sample(2000, 119), slow, 0, false, true));
    EXPECT_FALSE(takes_neighbour(target, one_sample(900, 119), slow, 0, false, false));
    EXPECT_TRUE(takes_neighbour(target, one_sample(2000, 110), slow, 0, true, false));
    EXPECT_FALSE(takes_neighbour(target, one_sample(900, 125), slow, 0, false, true));
    // Reaching it beats any size.
    EXPECT_TRUE(takes_neighbour(target, one_sample(9000, 100), slow, 0, true, false));
    // Within it: never above it again, and the objective decides.
    const Figures fast = one_sample(1000, 90);
    EXPECT_FALSE(takes_neighbour(target, one_sample(500, 101), fast, 1000, false, false));
    EXPECT_TRUE(takes_neighbour(target, one_sample(990, 99), fast, 1000, false, false));
    EXPECT_FALSE(takes_neighbour(target, one_sample(1010, 50), fast, 1000, false, false));
    // Results: within the target first, then the smaller; of two above it,
    // the faster.
    EXPECT_TRUE(better_result(target, one_sample(9000, 100), slow));
    EXPECT_TRUE(better_result(target, one_sample(900, 99), one_sample(1000, 50)));
    EXPECT_TRUE(better_result(target, one_sample(9000, 110), slow));
    EXPECT_FALSE(better_result(target, one_sample(900, 130), slow));
}

// Measurements without a compiler: tcgen's own plan of the candidate, with
// bytes and decode times from formulas of its predictions and tables.
class ModelMeasurer : public Measurer {
public:
    using Model =
        std::function<void(const Candidate&, const Measurement& planned, std::uint64_t& bytes, double& decode_ns)>;
    explicit ModelMeasurer(Model model) : model_(std::move(model)) {}

    std::optional<Measurement> plan(const Candidate& candidate, TrialError& error) const override {
        return planner_.plan(candidate, error);
    }
    std::optional<Measurement> measure(const Candidate& candidate, bool& fresh, TrialError& error) override {
        std::optional<Measurement> measurement = planner_.plan(candidate, error);
        fresh = measurement.has_value();
        if (measurement) {
            std::uint64_t bytes = 0;
            double decode_ns = 0;
            model_(candidate, *measurement, bytes, decode_ns);
            measurement->compressed_bytes = bytes;
            measurement->sample_compressed_bytes = {bytes};
            measurement->sample_decode_ns = {decode_ns};
            measurement->sample_records = {records};
            measurement->decode_ns = decode_ns;
            measurement->cpu_seconds = 0.01;
        }
        return measurement;
    }

    static constexpr std::uint64_t records = 100000;

private:
    Trials planner_{TrialSettings{}};
    Model model_;
};

unsigned predictions(const Candidate& candidate) {
    unsigned count = 0;
    for (const FieldChoice& field : candidate.fields) {
        count += field.prediction_count();
    }
    return count;
}

// More predictions and tables: a smaller output, a slower decoder.
std::uint64_t modelled_bytes(const Candidate& candidate, const Measurement& planned) {
    return 200000 + 2000000 / (1 + predictions(candidate)) + 5000000 / (1 + (planned.table_bytes >> 20));
}
double modelled_decode_ns(const Candidate& candidate, const Measurement& planned) {
    return 20.0 + 3.0 * predictions(candidate) + static_cast<double>(planned.table_bytes >> 20) / 2;
}

struct SearchRun {
    std::optional<SearchResult> result;
    std::string log;
};

SearchRun search(ModelMeasurer::Model model, Objective objective, double max_decode_ns, unsigned max_candidates) {
    std::string error_text;
    std::optional<Candidate> layout = parse_record_layout("h32,pc32,64", error_text);
    EXPECT_TRUE(layout) << error_text;
    std::optional<ShippedSpec> shipped = shipped_spec_for(*layout);
    EXPECT_TRUE(shipped);
    ModelMeasurer measurer(std::move(model));
    SearchSettings settings;
    settings.max_candidates = max_candidates;
    settings.budget_seconds = 1e6;  // the candidate limit ends the search
    settings.objective = objective;
    settings.max_decode_ns = max_decode_ns;
    settings.sample_bytes = 4 + 12 * ModelMeasurer::records;
    std::ostringstream log;
    TrialError error;
    SearchRun run;
    run.result =
        run_search(*layout, {StartSpec{shipped->name, shipped->candidate}}, measurer, settings, log, false, error);
    EXPECT_TRUE(run.result) << error.message;
    run.log = log.str();
    return run;
}

// What a search did, whatever its timings: each step's change, whether
// taken, its bytes; and the spec it returns.
std::string trail(const SearchResult& result) {
    std::string text;
    for (const Step& step : result.steps) {
        text += step.change + (step.taken ? " taken " : " ") + std::to_string(step.measurement.compressed_bytes) + "\n";
    }
    return text + result.best_measurement.spec;
}

TEST(ObjectiveSearch, TheRatioSearchDoesNotDependOnDecodeTimes) {
    auto slow_when_large = [](const Candidate& candidate, const Measurement& planned, std::uint64_t& bytes,
                              double& decode_ns) {
        bytes = modelled_bytes(candidate, planned);
        decode_ns = modelled_decode_ns(candidate, planned);
    };
    auto fast_when_large = [](const Candidate& candidate, const Measurement& planned, std::uint64_t& bytes,
                              double& decode_ns) {
        bytes = modelled_bytes(candidate, planned);
        decode_ns = 1000.0 / modelled_decode_ns(candidate, planned);
    };
    SearchRun first = search(slow_when_large, Objective::ratio, 0, 25);
    SearchRun second = search(fast_when_large, Objective::ratio, 0, 25);
    ASSERT_TRUE(first.result && second.result);
    EXPECT_EQ(first.result->steps.size(), 25u);
    EXPECT_EQ(trail(*first.result), trail(*second.result));
    EXPECT_LE(first.result->best_measurement.compressed_bytes, first.result->start_measurement.compressed_bytes);
    // Every candidate line shows its decode time.
    EXPECT_NE(first.log.find("  decode   "), std::string::npos) << first.log;
}

void model(const Candidate& candidate, const Measurement& planned, std::uint64_t& bytes, double& decode_ns) {
    bytes = modelled_bytes(candidate, planned);
    decode_ns = modelled_decode_ns(candidate, planned);
}

TEST(ObjectiveSearch, AReachableTargetIsMetAndNeverLeftOnceReached) {
    SearchRun start_only = search(model, Objective::ratio, 0, 1);
    ASSERT_TRUE(start_only.result);
    const double start_ns = start_only.result->start_measurement.decode_ns;
    for (Objective objective : {Objective::ratio, Objective::balanced, Objective::speed}) {
        const double target = start_ns * 0.8;
        SearchRun run = search(model, objective, target, 40);
        ASSERT_TRUE(run.result);
        EXPECT_TRUE(run.result->meets_target) << objective_name(objective) << "\n" << run.log;
        EXPECT_LE(run.result->best_measurement.decode_ns, target);
        bool reached = false;
        for (const Step& step : run.result->steps) {
            if (step.taken) {
                EXPECT_FALSE(reached && step.measurement.decode_ns > target) << step.change;
                reached = reached || step.measurement.decode_ns <= target;
            }
        }
    }
}

TEST(ObjectiveSearch, AnUnreachableTargetIsReportedNotMet) {
    SearchRun run = search(model, Objective::speed, 1.0, 30);
    ASSERT_TRUE(run.result);
    EXPECT_FALSE(run.result->meets_target);
    // The search still walked towards it.
    EXPECT_LT(run.result->best_measurement.decode_ns, run.result->start_measurement.decode_ns);
}

// The candidates measured after the two starts whose tables are larger than
// those of the spec they were a neighbour of.
unsigned larger_neighbours(const SearchResult& result) {
    unsigned count = 0;
    const Measurement* current = nullptr;
    for (const Step& step : result.steps) {
        if (step.number > 2 && current != nullptr && step.measurement.table_bytes > current->table_bytes) {
            ++count;
        }
        if (step.taken) {
            current = &step.measurement;
        }
    }
    return count;
}

TEST(ObjectiveSearch, TowardsSpeedNoLargerSpecIsMeasured) {
    SearchRun speed = search(model, Objective::speed, 0, 30);
    SearchRun unmet = search(model, Objective::ratio, 1.0, 30);
    SearchRun ratio = search(model, Objective::ratio, 0, 30);
    ASSERT_TRUE(speed.result && unmet.result && ratio.result);
    EXPECT_GT(speed.result->steps.size(), 10u);
    EXPECT_GT(unmet.result->steps.size(), 10u);
    EXPECT_EQ(larger_neighbours(*speed.result), 0u) << speed.log;
    EXPECT_EQ(larger_neighbours(*unmet.result), 0u) << unmet.log;
    // Under ratio, larger specs are tried as before.
    EXPECT_GT(larger_neighbours(*ratio.result), 0u) << ratio.log;
    // Tables may shrink below the start's (L2 = 131072 in examples/vpc3.tcg)
    // only where speed counts.
    EXPECT_NE(speed.log.find(": L2 = 65536"), std::string::npos) << speed.log;
    EXPECT_EQ(ratio.log.find(": L2 = 65536"), std::string::npos) << ratio.log;
}

TEST(ObjectiveSearch, SpeedAndBalancedEndFasterAndNoWorseByTheirScore) {
    SearchRun ratio = search(model, Objective::ratio, 0, 30);
    SearchRun balanced = search(model, Objective::balanced, 0, 30);
    SearchRun speed = search(model, Objective::speed, 0, 30);
    ASSERT_TRUE(ratio.result && balanced.result && speed.result);
    auto score = [](Objective objective, const SearchResult& result, bool best) {
        return total_score(objective, figures_of(best ? result.best_measurement : result.start_measurement));
    };
    EXPECT_LE(score(Objective::balanced, *balanced.result, true), score(Objective::balanced, *balanced.result, false));
    EXPECT_LE(score(Objective::speed, *speed.result, true), score(Objective::speed, *speed.result, false));
    EXPECT_LT(speed.result->best_measurement.decode_ns, ratio.result->best_measurement.decode_ns);
    EXPECT_LE(ratio.result->best_measurement.compressed_bytes, speed.result->best_measurement.compressed_bytes);
}

// Every shipped spec of the layout is a start: when one other than the
// first (vpc3.tcg) compresses best, the search starts from it, names it, and
// returns a spec at least as small, where a search from vpc3.tcg alone, with
// the same number of candidates, ends larger.
TEST(ObjectiveSearch, StartsFromEveryShippedSpecOfTheLayoutAndKeepsTheBest) {
    std::string error_text;
    std::optional<Candidate> layout = parse_record_layout("h32,pc32,64", error_text);
    ASSERT_TRUE(layout) << error_text;
    std::vector<StartSpec> starts;
    for (const ShippedSpec& shipped : shipped_specs_for(*layout)) {
        starts.push_back(StartSpec{shipped.name, shipped.candidate});
    }
    ASSERT_EQ(starts.size(), 5u);
    EXPECT_EQ(starts.front().name, "examples/vpc3.tcg");
    Trials planner{TrialSettings{}};
    TrialError plan_error;
    std::optional<Measurement> stores = std::nullopt;
    for (const StartSpec& start : starts) {
        if (start.name == "examples/x86_store_addresses.tcg") {
            stores = planner.plan(start.candidate, plan_error);
        }
    }
    ASSERT_TRUE(stores) << plan_error.message;
    // The store-address spec is the smallest of all the specs the search can
    // reach; any other costs more, the more predictions it makes the more.
    constexpr std::uint64_t best_bytes = 100000;
    const std::uint64_t fingerprint = stores->fingerprint;
    ModelMeasurer::Model model = [fingerprint](const Candidate& candidate, const Measurement& planned,
                                               std::uint64_t& bytes, double& decode_ns) {
        bytes = planned.fingerprint == fingerprint ? best_bytes : best_bytes + 1000 + 10 * predictions(candidate);
        decode_ns = 50;
    };
    SearchSettings settings;
    settings.max_candidates = 12;
    settings.budget_seconds = 1e6;
    // Room for every shipped spec's tables (x86_cache_misses.tcg's exceed
    // the default 64 MiB and would be skipped, and said so).
    settings.max_table_bytes = std::uint64_t{256} << 20;
    settings.sample_bytes = 4 + 12 * ModelMeasurer::records;
    auto run = [&](const std::vector<StartSpec>& from) {
        ModelMeasurer measurer(model);
        std::ostringstream log;
        TrialError error;
        std::optional<SearchResult> result = run_search(*layout, from, measurer, settings, log, false, error);
        EXPECT_TRUE(result) << error.message;
        return result;
    };
    std::optional<SearchResult> all = run(starts);
    std::optional<SearchResult> first_only = run({starts.front()});
    ASSERT_TRUE(all && first_only);
    EXPECT_EQ(all->start_name, "examples/x86_store_addresses.tcg");
    EXPECT_EQ(all->start_measurement.compressed_bytes, best_bytes);
    EXPECT_LE(all->best_measurement.compressed_bytes, best_bytes);
    // Every shipped spec was measured, in order, before the wide start.
    ASSERT_GE(all->steps.size(), 6u);
    for (std::size_t index = 0; index < starts.size(); ++index) {
        EXPECT_EQ(all->steps[index].change, starts[index].name);
    }
    EXPECT_EQ(all->steps[5].change, "wide start") << trail(*all);
    EXPECT_EQ(first_only->start_name, "examples/vpc3.tcg");
    EXPECT_GT(first_only->best_measurement.compressed_bytes, best_bytes);
}

}  // namespace
}  // namespace tcgen::tune
