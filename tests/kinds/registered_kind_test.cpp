// A kind registered from outside generator/ (stride_kind.cpp, linked in) is
// a kind like the built-in ones: the registry lists and finds it and refuses
// a second kind of the same keyword, the planner gives it the tables its
// meaning asks for, and the tuner reads and writes it, places it by its
// tuning and never adds it, as that tuning says.

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "generator/kinds/predictor_kind.hpp"
#include "generator/plan/planner.hpp"
#include "generator/tune/candidate.hpp"
#include "generator/tune/layout.hpp"
#include "generator/tune/moves.hpp"

namespace tcgen {
namespace {

const std::string stride_spec =
    "TCgen Trace Specification;\n32-Bit Header;\n"
    "32-Bit Field 1 = {L1 = 1, L2 = 4096: FCM1[1]};\n"
    "64-Bit Field 2 = {L1 = 1024, L2 = 4096: DFCM1[1], STRIDE[2], LV[1]};\n"
    "PC = Field 1;\n";

TEST(RegisteredKind, IsListedAfterTheBuiltInKindsAndFound) {
    const PredictorKind* stride = find_predictor_kind("STRIDE");
    ASSERT_NE(stride, nullptr);
    EXPECT_EQ(predictor_kinds().back(), stride);
    EXPECT_EQ(predictor_kinds().size(), 5u);
}

TEST(RegisteredKind, ASecondKindOfTheSameKeywordIsRefused) {
    EXPECT_THROW(register_predictor_kind(*find_predictor_kind("LV")), std::invalid_argument);
    EXPECT_EQ(predictor_kinds().size(), 5u);
}

TEST(RegisteredKind, ThePlannerGivesItTheTablesItsMeaningAsksFor) {
    SourceFile file("stride.tcg", stride_spec);
    DiagnosticSink sink(file);
    std::optional<CodePlan> plan = compile_to_plan(file, sink, {"table-sharing", "dead-code"});
    ASSERT_TRUE(plan);
    const PlanField& field = plan->fields[1];
    const PlanPredictor& stride = field.predictors[1];
    const PlanTable& lines = field.tables[stride.table];
    EXPECT_EQ(lines.role, TableRole::lines);
    EXPECT_EQ(lines.owner, 1u);
    EXPECT_TRUE(lines.first_level);
    EXPECT_EQ(lines.sequence, Sequence::strides);
    EXPECT_EQ(lines.lines, 1024u);
    EXPECT_EQ(lines.entries, 2u);
    // Its own stride, from a last value of its own: no history.
    ASSERT_NE(stride.stride, no_index);
    EXPECT_EQ(field.strides[stride.stride].owner, 1u);
    EXPECT_EQ(stride.history, no_index);
}

TEST(RegisteredKind, TheTunerReadsPlacesAndWritesItButNeverAddsIt) {
    SourceFile file("stride.tcg", stride_spec);
    std::ostringstream diagnostics;
    std::optional<tune::Candidate> candidate = tune::spec_candidate(file, diagnostics);
    ASSERT_TRUE(candidate) << diagnostics.str();
    EXPECT_EQ(tune::spec_text(*candidate), stride_spec);

    tune::FieldChoice field = candidate->fields[1];
    std::reverse(field.predictors.begin(), field.predictors.end());
    tune::sort_predictors(field, false);
    EXPECT_EQ(tune::predictor_text(field.predictors[0]), "DFCM1[1]");  // places 1, 3, 3: STRIDE beside LV
    EXPECT_EQ(tune::predictor_text(field.predictors[2]), "STRIDE[2]");  // a stable sort kept LV first

    std::string error;
    tune::Candidate wide = tune::wide_candidate(*tune::parse_record_layout("h32,pc32,64", error));
    EXPECT_EQ(tune::spec_text(wide).find("STRIDE"), std::string::npos);
    for (const tune::Move& move : tune::neighbour_moves(wide, tune::UsageCounts{}, wide)) {
        EXPECT_EQ(move.change.find("STRIDE"), std::string::npos) << move.change;
    }
}

}  // namespace
}  // namespace tcgen
