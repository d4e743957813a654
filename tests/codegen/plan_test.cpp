// The plan's table sizes against the paper's own statements about Figure 5
// (TCgen(A)) and Figure 9 (TCgen(B)); the memory check after the passes.

#include <gtest/gtest.h>

#include <algorithm>

#include "generator/plan/number_text.hpp"
#include "generator/plan/passes/pass.hpp"
#include "generator/plan/sizes.hpp"
#include "generator/frontend/frontend.hpp"
#include "generator/plan/planner.hpp"
#include "test_support.hpp"

namespace tcgen::testing {
namespace {

Spec load_example(const std::string& name) {
    CompileResult result = compile_text(read_text(source_path("examples/" + name)));
    EXPECT_TRUE(result.spec) << result.rendered;
    return result.spec.value_or(Spec{});
}

const PlanTable& find_table(const PlanField& field, const std::string& name) {
    std::size_t index = table_index(field, name);
    if (index == no_index) {
        ADD_FAILURE() << "no table " << name;
        static const PlanTable none;
        return none;
    }
    return field.tables[index];
}

TEST(TableLayout, Figure5HashTablesHaveThePapersLineCounts) {
    CodePlan plan = plan_code(load_example("vpc3.tcg"));
    ASSERT_EQ(plan.fields.size(), 2u);
    // "the FCM1's hash table has 131,072 lines and the FCM3's hash table has 524,288 lines"
    EXPECT_EQ(find_table(plan.fields[0], "fcm1").lines, 131072u);
    EXPECT_EQ(find_table(plan.fields[0], "fcm3").lines, 524288u);
    // "the DFCM3's level-two size is four times the specified L2 value"
    EXPECT_EQ(find_table(plan.fields[1], "dfcm3").lines, 4u * 131072u);
    EXPECT_EQ(find_table(plan.fields[1], "lv").lines, 65536u);
}

TEST(TableLayout, Figure5PredictionCounts) {
    Spec spec = load_example("vpc3.tcg");
    // "FCM3[2] and FCM1[2] predictors provide four predictions for Field 1";
    // Field 2's four predictors provide "a total of ten predictions".
    EXPECT_EQ(spec.fields[0].prediction_count(), 4u);
    EXPECT_EQ(spec.fields[1].prediction_count(), 10u);
    EXPECT_EQ(plan_code(spec).fields[1].miss_code, 10u);
}

TEST(TableLayout, TotalsMatchThePapersTableSpace) {
    // "TCgen(A) employs 14 predictors with a total table size of 20MB";
    // "TCgen(B) ... requires a total of 35MB of table space".
    constexpr double mib = 1024.0 * 1024.0;
    EXPECT_NEAR(static_cast<double>(estimate_memory(plan_code(load_example("vpc3.tcg"))).tables) / mib, 20.0, 0.5);
    EXPECT_NEAR(static_cast<double>(estimate_memory(plan_code(load_example("tcgen_b.tcg"))).tables) / mib, 35.0, 0.5);
}

TEST(TableLayout, SharedLastValueAndPrefixHistories) {
    PlanField field2 = plan_code(load_example("vpc3.tcg")).fields[1];
    // DFCMs share the LV's lines for their last value: no separate table.
    EXPECT_FALSE(has_table(field2, "last_value"));
    ASSERT_EQ(field2.strides.size(), 1u);
    EXPECT_EQ(field2.strides[0].last_value_table, table_index(field2, "lv"));
    // One history per sequence, as deep as the highest order.
    EXPECT_EQ(find_table(field2, "stride_history").entries, 3u);
    EXPECT_EQ(find_table(field2, "value_history").entries, 1u);
    // log2(131072) + 3 - 1 = 19 index bits fit in 32-bit history entries.
    EXPECT_EQ(find_table(field2, "stride_history").element_bits, 32u);
}

TEST(TableLayout, DfcmWithoutLvGetsItsOwnLastValueTable) {
    CompileResult result = compile_text("TCgen Trace Specification; 16-Bit Field 1 = {L2 = 256: DFCM2[1]}; PC = Field 1;");
    ASSERT_TRUE(result.spec) << result.rendered;
    PlanField field = plan_code(*result.spec).fields[0];
    EXPECT_EQ(find_table(field, "last_value").bytes(), 2u);
    EXPECT_EQ(find_table(field, "dfcm2").lines, 512u);
    EXPECT_EQ(find_table(field, "stride_history").element_bits, 16u);  // 9-bit indices
}

// The 16 GiB cap applies to the tables of the build being made: the
// optimised plan of a spec may fit where the unoptimised one does not.
TEST(TableLayout, MemoryCapIsCheckedOnThePlanOfThisBuild) {
    std::string text = "TCgen Trace Specification;\n8-Bit Field 1 = {L2 = 1073741824: FCM1[1], FCM2[1]};\nPC = Field 1;\n";
    CompileResult optimised = compile_text(text);
    ASSERT_TRUE(optimised.plan) << optimised.rendered;
    SourceFile file("spec.tcg", text);
    DiagnosticSink sink(file);
    std::optional<Spec> spec = compile_spec(file, sink);
    ASSERT_TRUE(spec);
    EXPECT_FALSE(plan_spec(*spec, {"type-minimisation"}, sink));
    ASSERT_EQ(sink.diagnostics().size(), 1u);
    EXPECT_EQ(format_headline(file, sink.diagnostics()[0]),
              "spec.tcg:2:1: error: the predictor tables need more than the 16.0 GiB tcgen allows (field 1 alone "
              "needs 24.0 GiB); reduce L1, L2 or the orders");
}

TEST(TableLayout, HumanReadableSizes) {
    EXPECT_EQ(with_thousands_separators(0), "0");
    EXPECT_EQ(with_thousands_separators(524288), "524,288");
    EXPECT_EQ(with_thousands_separators(1000000), "1,000,000");
    EXPECT_EQ(human_bytes(1), "1 byte");
    EXPECT_EQ(human_bytes(1023), "1023 bytes");
    EXPECT_EQ(human_bytes(5u << 20), "5.0 MiB");
}

}  // namespace
}  // namespace tcgen::testing
