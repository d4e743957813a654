// The tuner's parts that need no compiler: the --record syntax, reading a
// usage report, candidate spec text (accepted by tcgen), the order of the
// moves the usage report suggests, the sample cut from a large file, a
// candidate tcgen refuses ruled out before any build, the shipped spec each
// layout starts from, and when a trial still fits in the budget.

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "generator/frontend/diagnostics.hpp"
#include "generator/plan/planner.hpp"
#include "generator/tune/candidate.hpp"
#include "generator/tune/layout.hpp"
#include "generator/tune/moves.hpp"
#include "generator/tune/sample.hpp"
#include "generator/tune/search.hpp"
#include "generator/tune/shipped_specs.hpp"
#include "generator/tune/trial.hpp"
#include "generator/tune/usage_report.hpp"

namespace tcgen::tune {
namespace {

// The registry's kind spelled `keyword`: the tuner has no kinds of its own.
const PredictorKind* kind(std::string_view keyword) {
    const PredictorKind* found = find_predictor_kind(keyword);
    EXPECT_NE(found, nullptr) << keyword;
    return found;
}

TEST(RecordLayout, ReadsHeaderFieldsAndPc) {
    std::string error;
    std::optional<Candidate> layout = parse_record_layout("h32,pc32,64", error);
    ASSERT_TRUE(layout) << error;
    EXPECT_EQ(layout->header_bits, 32u);
    EXPECT_EQ(layout->pc_field, 1u);
    ASSERT_EQ(layout->fields.size(), 2u);
    EXPECT_EQ(layout->fields[1].bits, 64u);
    EXPECT_EQ(layout->record_bytes(), 12u);
    EXPECT_EQ(layout_text(*layout), "h32,pc32,64");

    layout = parse_record_layout("8,16,pc64", error);
    ASSERT_TRUE(layout) << error;
    EXPECT_EQ(layout->header_bits, 0u);
    EXPECT_EQ(layout->pc_field, 3u);
    EXPECT_EQ(layout_text(*layout), "8,16,pc64");
}

TEST(RecordLayout, RefusesWithOneLineReasons) {
    const std::pair<const char*, const char*> cases[] = {
        {"", "--record: '' is not a field: N or pcN with N = 8, 16, 32 or 64 (e.g. --record=h32,pc32,64)"},
        {"h32,32,64", "--record: no PC field; mark one field pcN (e.g. --record=h32,pc32,64)"},
        {"h12,pc32", "--record: 'h12': a header is hN with N a multiple of 8 (h32: a 4-byte header)"},
        {"pc32,h32", "--record: 'h32': the header (hN) can only be the first item"},
        {"pc32,pc64", "--record: 'pc64': only one field can be the PC"},
        {"pc32,12", "--record: '12' is not a field: N or pcN with N = 8, 16, 32 or 64 (e.g. --record=h32,pc32,64)"},
        {"pc32,,64", "--record: '' is not a field: N or pcN with N = 8, 16, 32 or 64 (e.g. --record=h32,pc32,64)"},
        {"pc99999999999999999999", "--record: 'pc99999999999999999999' is not a field: N or pcN with N = 8, 16, 32 "
                                   "or 64 (e.g. --record=h32,pc32,64)"},
        {"h32", "--record: no fields (e.g. --record=h32,pc32,64)"},
    };
    for (const auto& [text, expected] : cases) {
        std::string error;
        EXPECT_FALSE(parse_record_layout(text, error)) << text;
        EXPECT_EQ(error, expected) << text;
    }
}

TEST(UsageReport, ReadsHitsPerSlotAndIgnoresTheRest) {
    const std::string report =
        "Field 1 (32-bit PC): 5 values\n"
        "  code  predictor                  hits    share\n"
        "     0  FCM3[2] #1                    3   60.00%\n"
        "     1  FCM3[2] #2                    0    0.00%\n"
        "     2  miss                          2   40.00%\n"
        "Field 2 (64-bit): 5 values   123 bytes\n"
        "  code  predictor                  hits    share\n"
        "     0  LV[1]                         1   20.00%\n"
        "     1  miss                          4   80.00%\n"
        "comp: 64 bytes in, 40 bytes out, ratio 1.600 (5 records in 1 blocks)\n";
    UsageCounts counts = parse_usage_report(report, 2);
    ASSERT_EQ(counts.size(), 2u);
    EXPECT_EQ(counts[0], (std::vector<std::uint64_t>{3, 0, 2}));
    EXPECT_EQ(counts[1], (std::vector<std::uint64_t>{1, 4}));
    EXPECT_EQ(parse_usage_report("garbage\n   7 x 9%\n", 2), UsageCounts(2));
}

Candidate vpc_layout() {
    std::string error;
    return *parse_record_layout("h32,pc32,64", error);
}

TEST(Candidates, WideStartIsASpecTcgenAccepts) {
    Candidate wide = wide_candidate(vpc_layout());
    const std::string text = spec_text(wide);
    EXPECT_EQ(text,
              "TCgen Trace Specification;\n32-Bit Header;\n"
              "32-Bit Field 1 = {L1 = 1, L2 = 131072: MATCH4[1], FCM3[4], FCM1[4]};\n"
              "64-Bit Field 2 = {L1 = 65536, L2 = 131072: MATCH4[1], DFCM3[4], DFCM1[2], FCM3[2], FCM1[4], LV[4]};\n"
              "PC = Field 1;\n");
    SourceFile file("wide.tcg", text);
    DiagnosticSink sink(file);
    EXPECT_TRUE(compile_to_plan(file, sink));
}

TEST(Candidates, ASpecsPredictorsComeBackAsTheyWereWritten) {
    // Every kind, MATCH among them, survives the trip from a spec to a
    // candidate and back to spec text (`tcgen tune --spec` starts there).
    const std::string text =
        "TCgen Trace Specification;\n32-Bit Header;\n"
        "32-Bit Field 1 = {L1 = 1, L2 = 4096: MATCH4[1], FCM3[2], FCM1[2]};\n"
        "64-Bit Field 2 = {L1 = 256, L2 = 4096: DFCM2[2], LV[1], MATCH2[1]};\n"
        "PC = Field 1;\n";
    SourceFile file("start.tcg", text);
    std::ostringstream diagnostics;
    std::optional<Candidate> candidate = spec_candidate(file, diagnostics);
    ASSERT_TRUE(candidate) << diagnostics.str();
    EXPECT_EQ(spec_text(*candidate), text);
    // Where each MATCH stands is kept for the moves that re-sort the field.
    EXPECT_FALSE(candidate->fields[0].movable_last);
    EXPECT_TRUE(candidate->fields[1].movable_last);
}

TEST(Candidates, RecordsAsIdsAreKeptFromTheStartingSpec) {
    // The tuner chooses the fields' predictors; whether the records are
    // coded as ids is the spec's, and every candidate keeps it.
    const std::string text =
        "TCgen Trace Specification;\n32-Bit Header;\n32-Bit Ids;\n"
        "64-Bit Field 1 = {L1 = 1, L2 = 4096: FCM1[2], DFCM1[2]};\n"
        "8-Bit Field 2 = {L1 = 4096, L2 = 4096: LV[2]};\n"
        "PC = Field 1;\n";
    SourceFile file("start.tcg", text);
    std::ostringstream diagnostics;
    std::optional<Candidate> candidate = spec_candidate(file, diagnostics);
    ASSERT_TRUE(candidate) << diagnostics.str();
    EXPECT_TRUE(candidate->record_ids);
    EXPECT_EQ(spec_text(*candidate), text);
}

TEST(Candidates, ASpecWithAKindTheRegistryLacksIsAnError) {
    // Never taken for LV: the spec is refused with the front end's reason.
    SourceFile file("unknown.tcg", "TCgen Trace Specification;\n32-Bit Field 1 = {L1 = 1, L2 = 4096: ZERO[1]};\n"
                                   "PC = Field 1;\n");
    std::ostringstream diagnostics;
    EXPECT_FALSE(spec_candidate(file, diagnostics));
    EXPECT_NE(diagnostics.str().find("unknown predictor 'ZERO'"), std::string::npos) << diagnostics.str();
}

TEST(Candidates, SlotOrderPutsLongerContextsFirst) {
    FieldChoice field;
    field.predictors = {{kind("LV"), 0, 2}, {kind("FCM"), 1, 1}, {kind("DFCM"), 1, 1}, {kind("FCM"), 2, 1}, {kind("FCM"), 1, 3},
                        {kind("MATCH"), 4, 1}};
    sort_predictors(field, false);
    std::string names;
    for (const PredictorChoice& predictor : field.predictors) {
        names += predictor_text(predictor) + " ";
    }
    EXPECT_EQ(names, "MATCH4[1] DFCM1[1] FCM2[1] FCM1[3] LV[2] ");
    sort_predictors(field, true);
    EXPECT_EQ(predictor_text(field.predictors[1]), "FCM2[1]");
}

TEST(Candidates, AMatchPlacedLastStaysBehindLastValue) {
    FieldChoice field;
    field.predictors = {{kind("MATCH"), 4, 1}, {kind("LV"), 0, 2}, {kind("DFCM"), 1, 1}};
    field.movable_last = true;
    sort_predictors(field, false);
    EXPECT_EQ(predictor_text(field.predictors.front()), "DFCM1[1]");
    EXPECT_EQ(predictor_text(field.predictors.back()), "MATCH4[1]");
    field.predictors.pop_back();  // no MATCH left: nothing to place
    sort_predictors(field, false);
    EXPECT_FALSE(field.movable_last);
}

TEST(Moves, AMatchCanMoveLastAndBackFirst) {
    Candidate wide = wide_candidate(vpc_layout());
    std::vector<Move> moves = neighbour_moves(wide, UsageCounts{}, wide);
    const auto last = std::find_if(moves.begin(), moves.end(),
                                   [](const Move& move) { return move.change == "field 2: MATCH4[1] last"; });
    ASSERT_NE(last, moves.end());
    EXPECT_EQ(last->phase, Phase::reorder);
    const FieldChoice& placed = last->candidate.fields[1];
    EXPECT_TRUE(placed.movable_last);
    EXPECT_EQ(predictor_text(placed.predictors.back()), "MATCH4[1]");
    EXPECT_NE(spec_text(last->candidate).find("FCM1[4], LV[4], MATCH4[1]}"), std::string::npos);

    std::vector<Move> back = neighbour_moves(last->candidate, UsageCounts{}, wide);
    const auto first = std::find_if(back.begin(), back.end(),
                                    [](const Move& move) { return move.change == "field 2: MATCH4[1] first"; });
    ASSERT_NE(first, back.end());
    EXPECT_EQ(first->candidate.fields[1], wide.fields[1]);
}

TEST(Moves, LeastUsedPredictorIsDroppedFirstAndEveryMoveIsASpec) {
    Candidate wide = wide_candidate(vpc_layout());
    // Field 1's slots: MATCH4, FCM3 x4, FCM1 x4, miss; field 2's: MATCH4,
    // DFCM3 x4, DFCM1 x2, FCM3 x2, FCM1 x4, LV x4, miss.
    UsageCounts usage = {{70, 50, 10, 5, 1, 20, 1, 1, 1, 12},
                         {60, 40, 5, 3, 1, 20, 2, 9, 0, 10, 1, 1, 0, 0, 0, 0, 0, 8}};
    std::vector<Move> moves = neighbour_moves(wide, usage, wide);
    ASSERT_FALSE(moves.empty());
    EXPECT_EQ(moves.front().change, "field 2: drop LV[4]");
    EXPECT_EQ(moves[1].change, "field 2: FCM3[2] -> FCM3[1]");  // its last slot is never written
    EXPECT_EQ(neighbour_moves(wide, usage, wide).size(), moves.size());  // deterministic
    for (const Move& move : moves) {
        EXPECT_EQ(move.change.find("L2 = 65536"), std::string::npos) << "below the floor: " << move.change;
        SourceFile file("move.tcg", spec_text(move.candidate));
        DiagnosticSink sink(file);
        EXPECT_TRUE(compile_to_plan(file, sink)) << move.change;
    }
}

TEST(Search, LargerSpecMustPayForItselfSimplerMayCostTheTolerance) {
    const double tolerance = 0.01;  // 1 %
    // One sample: a larger spec needs more than 1 % less output.
    EXPECT_TRUE(takes_neighbour({980}, {1000}, 1000, true, false, tolerance));
    EXPECT_FALSE(takes_neighbour({995}, {1000}, 1000, true, false, tolerance));
    // Neither larger nor simpler: any gain.
    EXPECT_TRUE(takes_neighbour({999}, {1000}, 1000, false, false, tolerance));
    EXPECT_FALSE(takes_neighbour({1001}, {1000}, 1000, false, false, tolerance));
    // Simpler: up to 1 % above the smallest total seen.
    EXPECT_TRUE(takes_neighbour({1009}, {1000}, 1000, false, true, tolerance));
    EXPECT_FALSE(takes_neighbour({1009}, {1000}, 990, false, true, tolerance));
}

TEST(Search, NoSampleMayLoseMoreThanTheToleranceWhateverTheTotal) {
    const double tolerance = 0.01;
    // The total falls by 10 %, but the second program's output grows 2 %.
    EXPECT_FALSE(takes_neighbour({700, 204}, {800, 200}, 1000, false, false, tolerance));
    // Within the tolerance on each, smaller in total: taken.
    EXPECT_TRUE(takes_neighbour({700, 201}, {800, 200}, 1000, false, false, tolerance));
    // A simpler spec may not shift its cost onto one program either.
    EXPECT_FALSE(takes_neighbour({795, 206}, {800, 200}, 1000, false, true, tolerance));
    EXPECT_TRUE(takes_neighbour({805, 201}, {800, 200}, 1000, false, true, tolerance));
}

// The name of the shipped spec a --record layout starts from, or "none".
std::string shipped_name(const std::string& record) {
    std::string error;
    std::optional<Candidate> layout = parse_record_layout(record, error);
    EXPECT_TRUE(layout) << error;
    std::optional<ShippedSpec> shipped = layout ? shipped_spec_for(*layout) : std::nullopt;
    return shipped ? shipped->name : "none";
}

TEST(ShippedSpecs, EachShippedLayoutStartsFromItsSpec) {
    // The VPC format has five shipped specs; TCgen(A) is the one users
    // compare with.
    EXPECT_EQ(shipped_name("h32,pc32,64"), "examples/vpc3.tcg");
    EXPECT_EQ(shipped_name("pc64,8,8,8,8,8,8,8,8,64,64,64,64,64,64"), "examples/champsim.tcg");
    EXPECT_EQ(shipped_name("h32,pc64,64,8"), "examples/x86_branches.tcg");
    EXPECT_EQ(shipped_name("pc32"), "examples/branch_ids.tcg");
    EXPECT_EQ(shipped_name("pc8"), "examples/any_file.tcg");
}

TEST(ShippedSpecs, EveryShippedSpecOfALayoutIsAStartTCgenAFirst) {
    std::string error;
    std::optional<Candidate> layout = parse_record_layout("h32,pc32,64", error);
    ASSERT_TRUE(layout) << error;
    std::vector<std::string> names;
    for (const ShippedSpec& shipped : shipped_specs_for(*layout)) {
        names.push_back(shipped.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"examples/vpc3.tcg", "examples/tcgen_b.tcg",
                                               "examples/x86_cache_misses.tcg", "examples/x86_load_values.tcg",
                                               "examples/x86_store_addresses.tcg"}));
    layout = parse_record_layout("h32,pc32,32", error);
    ASSERT_TRUE(layout) << error;
    EXPECT_TRUE(shipped_specs_for(*layout).empty());
}

TEST(ShippedSpecs, OnlyAnExactLayoutMatches) {
    EXPECT_EQ(shipped_name("h32,pc32,32"), "none");
    EXPECT_EQ(shipped_name("pc32,64"), "none");      // no header
    EXPECT_EQ(shipped_name("h32,32,pc64"), "none");  // the PC elsewhere
    EXPECT_EQ(shipped_name("h64,pc32,64"), "none");
}

TEST(ShippedSpecs, TheStartIsTheShippedSpecsOwnPredictors) {
    std::string error;
    std::optional<Candidate> layout = parse_record_layout("h32,pc32,64", error);
    ASSERT_TRUE(layout) << error;
    std::optional<ShippedSpec> shipped = shipped_spec_for(*layout);
    ASSERT_TRUE(shipped);
    ASSERT_EQ(shipped->candidate.fields.size(), 2u);
    const FieldChoice& value = shipped->candidate.fields[1];
    EXPECT_EQ(value.l1, 65536u);
    EXPECT_EQ(value.l2, 131072u);
    ASSERT_EQ(value.predictors.size(), 4u);
    EXPECT_EQ(predictor_text(value.predictors[0]), "DFCM3[2]");
    EXPECT_EQ(predictor_text(value.predictors[3]), "LV[4]");
}

TEST(Search, ATrialStartsOnlyWhenItAndTheRoundTripFitTheBudget) {
    EXPECT_TRUE(trial_fits(50, 5, 2, 60));
    EXPECT_TRUE(trial_fits(53, 5, 2, 60));
    EXPECT_FALSE(trial_fits(54, 5, 2, 60));   // the trial would end at 59, the round trip at 61
    EXPECT_FALSE(trial_fits(56, 5, 0, 60));   // the trial alone would overrun
    EXPECT_TRUE(trial_fits(0, 0, 0, 60));     // the first trial: nothing known yet
}

TEST(Trials, ACandidateTcgenRefusesIsRuledOutWithoutBeingBuilt) {
    Candidate refused = wide_candidate(vpc_layout());
    refused.fields[1].l2 = 1000;  // not a power of two
    TrialSettings settings;
    settings.work_dir = testing::TempDir();
    // Building would be a fatal error: there is no such compiler.
    settings.compiler = {"/nonexistent/c++"};
    settings.sample_paths = {"/nonexistent/sample"};
    Trials trials(settings);
    bool fresh = true;
    TrialError error;
    EXPECT_FALSE(trials.measure(refused, fresh, error));
    EXPECT_FALSE(fresh);
    EXPECT_FALSE(error.fatal) << error.message;
    EXPECT_EQ(error.message, "L2 must be a power of two, not 1000");
    EXPECT_FALSE(trials.plan(refused, error));
    EXPECT_EQ(error.message, "L2 must be a power of two, not 1000");
}

TEST(Sample, LargeFileIsCutIntoWholeRecordsAfterItsHeader) {
    const std::string input = testing::TempDir() + "tune_sample_input";
    const std::string output = testing::TempDir() + "tune_sample_output";
    {
        std::ofstream out(input, std::ios::binary);
        out << "HEAD";
        for (int record = 0; record < 1000; ++record) {
            char bytes[12] = {};
            std::snprintf(bytes, sizeof bytes, "%011d", record);
            out.write(bytes, 12);
        }
    }
    std::string error;
    std::optional<SampleInfo> info = make_sample(input, 4, 12, 4 + 12 * 80, output, error);
    ASSERT_TRUE(info) << error;
    EXPECT_FALSE(info->whole_file);
    EXPECT_EQ(info->file_bytes, 4u + 12000u);
    EXPECT_EQ(info->sample_bytes, 4u + 12u * 80u);
    std::ifstream in(output, std::ios::binary);
    std::string sample((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(sample.substr(0, 4), "HEAD");
    EXPECT_EQ(sample.substr(4, 11), "00000000000");               // the first run starts at record 0
    EXPECT_EQ(sample.substr(sample.size() - 12, 11), "00000000999");  // the last ends at the last record

    info = make_sample(input, 4, 12, 1 << 20, output, error);
    ASSERT_TRUE(info) << error;
    EXPECT_TRUE(info->whole_file);
    EXPECT_EQ(info->sample_bytes, info->file_bytes);

    EXPECT_FALSE(make_sample(input, 4, 20000, 1 << 20, output, error));
    EXPECT_EQ(error, "the sample '" + input + "' has 12004 bytes, fewer than the header and one record (20004)");
    std::remove(input.c_str());
    std::remove(output.c_str());
}

}  // namespace
}  // namespace tcgen::tune
