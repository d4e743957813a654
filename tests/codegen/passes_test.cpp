// The optimisation passes, one by one, on the code plan; and the plan's text
// form (--dump-ir) pinned for every example.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "generator/backend/codegen.hpp"
#include "generator/backend/plan_dump.hpp"
#include "generator/plan/passes/pass.hpp"
#include "test_support.hpp"

namespace tcgen::testing {
namespace {

Spec spec_of(const std::string& text) {
    CompileResult result = compile_text(text);
    EXPECT_TRUE(result.spec) << result.rendered;
    return result.spec.value_or(Spec{});
}

Spec vpc3() {
    return spec_of(read_text(source_path("examples/vpc3.tcg")));
}

// Every pass changes the naive plan and is idempotent.
TEST(Passes, EachChangesTheNaivePlanOnceOnly) {
    for (const OptimisationPass& pass : optimisation_passes()) {
        CodePlan plan = build_code_plan(vpc3());
        EXPECT_TRUE(run_pass(pass, plan)) << pass.name;
        EXPECT_FALSE(run_pass(pass, plan)) << pass.name << " changed the plan a second time";
    }
}

TEST(Passes, NamesAreTheDocumentedOnes) {
    std::vector<std::string> names;
    for (const OptimisationPass& pass : optimisation_passes()) {
        names.emplace_back(pass.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{"dead-code", "table-sharing", "fast-hash", "type-minimisation",
                                               "smart-update"}));
}

TEST(Passes, DeadCodeDropsUnusedLastValuesAndPcParameters) {
    CodePlan plan =
        build_code_plan(spec_of("TCgen Trace Specification; 32-Bit Field 1 = {: FCM1[1]}; 16-Bit Field 2 = {: LV[1]};"
                                " 16-Bit Field 3 = {L1 = 4: LV[2]}; PC = Field 1;"));
    EXPECT_TRUE(has_table(plan.fields[1], "last_value"));
    EXPECT_TRUE(plan.fields[1].pc_parameter);
    EXPECT_EQ(plan.fields[1].line_update(plan.fields[1].tables[0]), LineUpdate::overwrite);
    use_smart_update(plan);
    EXPECT_EQ(plan.fields[1].line_update(plan.fields[1].tables[0]), LineUpdate::smart);
    remove_dead_code(plan);
    EXPECT_FALSE(has_table(plan.fields[0], "last_value"));
    EXPECT_FALSE(has_table(plan.fields[1], "last_value"));
    EXPECT_FALSE(plan.fields[1].pc_parameter);  // L1 = 1: its predictors are global
    EXPECT_TRUE(plan.fields[2].pc_parameter);
    // A one-entry line is overwritten without the comparison; two entries still compare.
    EXPECT_EQ(plan.fields[1].line_update(plan.fields[1].tables[table_index(plan.fields[1], "lv")]),
              LineUpdate::overwrite);
    EXPECT_EQ(plan.fields[2].line_update(plan.fields[2].tables[table_index(plan.fields[2], "lv")]),
              LineUpdate::smart);
}

TEST(Passes, TableSharingMergesHistoriesAndLastValues) {
    CodePlan plan = build_code_plan(vpc3());
    std::uint64_t before = plan.table_bytes();
    EXPECT_TRUE(has_table(plan.fields[1], "dfcm3_history"));
    EXPECT_TRUE(has_table(plan.fields[1], "dfcm3_last_value"));
    share_tables(plan);
    const PlanField& field2 = plan.fields[1];
    ASSERT_EQ(field2.histories.size(), 2u);  // one over values, one over strides
    EXPECT_TRUE(has_table(field2, "value_history"));
    EXPECT_TRUE(has_table(field2, "stride_history"));
    EXPECT_FALSE(has_table(field2, "dfcm3_history"));
    EXPECT_FALSE(has_table(field2, "dfcm3_last_value"));
    ASSERT_EQ(field2.strides.size(), 1u);
    EXPECT_EQ(field2.strides[0].last_value_table, table_index(field2, "lv"));
    for (const PlanPredictor& predictor : field2.predictors) {
        if (predictor.spec.kind->sequence() == Sequence::strides) {
            EXPECT_EQ(predictor.stride, 0u);
        }
    }
    EXPECT_LT(plan.table_bytes(), before);
}

// With incremental hashing the histories hold indices, which type
// minimisation then sizes by their width (19 bits: 32-bit entries) instead
// of the field's (64 bits), and the code reads indices instead of hashing.
TEST(Passes, FastHashMakesHistoriesHoldIndices) {
    for (bool fast : {false, true}) {
        std::set<std::string> disabled;
        if (!fast) {
            disabled.insert("fast-hash");
        }
        CodePlan plan = plan_code(vpc3(), disabled);
        const PlanField& field2 = plan.fields[1];
        EXPECT_EQ(field2.tables[table_index(field2, "stride_history")].element_bits, fast ? 32u : 64u);
        std::string code = generate_compressor(plan);
        EXPECT_EQ(code.find("hash_context<3>(lines.stride_history, stride_shift)") != std::string::npos, !fast);
        EXPECT_EQ(code.find("stride_history[2], 2)") != std::string::npos, fast);
    }
}

TEST(Passes, TypeMinimisationUsesTheSmallestTypes) {
    CodePlan plan = build_code_plan(
        spec_of("TCgen Trace Specification; 8-Bit Field 1 = {L2 = 1024: FCM2[1], DFCM1[1]}; PC = Field 1;"));
    use_fast_hash(plan);
    minimise_types(plan);
    const PlanField& field = plan.fields[0];
    EXPECT_EQ(field.work_bits, 8u);
    EXPECT_EQ(plan.streams[field.codes_stream].element_bits, 8u);
    EXPECT_EQ(plan.streams[field.misses_stream].element_bits, 8u);
    for (const PlanTable& table : field.tables) {
        // 10 + 2 - 1 = 11-bit indices need 16-bit history entries; all else 8 bits.
        EXPECT_EQ(table.element_bits, table.role == TableRole::history ? 16u : 8u);
    }
}

// Smart update turns every multi-entry line's update into the compare-first
// form; without it every line shifts.
TEST(Passes, SmartUpdateChangesHowLinesUpdate) {
    for (bool smart : {false, true}) {
        CodePlan plan = plan_code(vpc3(), smart ? std::set<std::string>{} : std::set<std::string>{"smart-update"});
        for (const PlanField& field : plan.fields) {
            for (const PlanTable& table : field.tables) {
                if (table.role != TableRole::history && table.entries > 1) {
                    EXPECT_EQ(field.line_update(table), smart ? LineUpdate::smart : LineUpdate::shift);
                }
            }
        }
        std::string code = generate_compressor(plan);
        EXPECT_EQ(code.find("smart_update<4>(lines.lv, value);") != std::string::npos, smart);
        EXPECT_EQ(code.find("push_front<4>(lines.lv, value);") != std::string::npos, !smart);
    }
}

TEST(Passes, DisabledPassesDoNotRun) {
    CodePlan plan = plan_code(vpc3(), {"fast-hash", "smart-update"});
    EXPECT_EQ(plan.applied_passes, (std::vector<std::string>{"dead-code", "table-sharing", "type-minimisation"}));
    EXPECT_EQ(plan.fields[0].update, UpdatePolicy::always_shift);
}

// A spec's encoding line turns its passes off as --disable does.
TEST(Passes, TheEncodingLineDisablesItsPasses) {
    CodePlan plan = plan_code(spec_of(read_text(source_path("examples/vpc3.tcg")) +
                                      "# Encoding: tcgen --disable=smart-update\n"));
    EXPECT_EQ(plan.applied_passes, (std::vector<std::string>{"dead-code", "table-sharing", "fast-hash",
                                                             "type-minimisation"}));
}

// The fully optimised plan is the layout the canonical comments report.
TEST(Passes, OptimisedPlanMatchesThePapersTableSpace) {
    EXPECT_EQ(plan_code(vpc3()).table_bytes(), 20971532u);
}

// Every table, stride and history a plan refers to exists.
void expect_consistent(const PlanField& field, const std::string& context) {
    for (const PlanPredictor& predictor : field.predictors) {
        EXPECT_LT(predictor.table, field.tables.size()) << context;
        EXPECT_TRUE(predictor.history == no_index || predictor.history < field.histories.size()) << context;
        EXPECT_TRUE(predictor.stride == no_index || predictor.stride < field.strides.size()) << context;
        EXPECT_EQ(predictor.history == no_index, !predictor.spec.kind->uses_context()) << context;
        EXPECT_EQ(predictor.stride == no_index, predictor.spec.kind->sequence() != Sequence::strides) << context;
    }
    for (const PlanHistory& history : field.histories) {
        EXPECT_LT(history.table, field.tables.size()) << context;
        EXPECT_EQ(history.stride == no_index, history.sequence == Sequence::values) << context;
        EXPECT_TRUE(history.stride == no_index || history.stride < field.strides.size()) << context;
    }
    for (const PlanStride& stride : field.strides) {
        EXPECT_LT(stride.last_value_table, field.tables.size()) << context;
    }
}

// Any subset of passes, on every example and variant spec, gives a
// consistent plan on which running an applied pass again changes nothing.
TEST(Passes, EverySubsetGivesAConsistentFixedPoint) {
    std::vector<std::string> specs = files_with_extension(source_path("examples"), ".tcg");
    for (const std::string& path : files_with_extension(source_path("tests/variants"), ".tcg")) {
        specs.push_back(path);
    }
    const std::vector<OptimisationPass>& passes = optimisation_passes();
    for (const std::string& path : specs) {
        Spec spec = spec_of(read_text(path));
        for (unsigned mask = 0; mask < (1u << passes.size()); ++mask) {
            std::set<std::string> disabled;
            for (std::size_t i = 0; i < passes.size(); ++i) {
                if ((mask >> i) & 1) {
                    disabled.insert(std::string(passes[i].name));
                }
            }
            CodePlan plan = plan_code(spec, disabled);
            std::string context = path + ", mask " + std::to_string(mask);
            for (const PlanField& field : plan.fields) {
                expect_consistent(field, context);
            }
            std::string text = dump_code_plan(plan);
            for (const OptimisationPass& pass : passes) {
                if (disabled.count(std::string(pass.name)) == 0) {
                    EXPECT_FALSE(run_pass(pass, plan)) << pass.name << " not idempotent: " << context;
                }
            }
            EXPECT_EQ(dump_code_plan(plan), text) << context;
        }
    }
}

class ExampleIr : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleIr, DumpMatchesGolden) {
    Spec spec = spec_of(read_text(source_path("examples/" + GetParam() + ".tcg")));
    EXPECT_EQ(dump_code_plan(plan_code(spec)), read_text(source_path("tests/golden/ir/" + GetParam() + ".txt")))
        << "the plan changed; if intended, run tests/update-goldens";
}

std::vector<std::string> example_stems() {
    std::vector<std::string> stems;
    for (const std::string& path : files_with_extension(source_path("examples"), ".tcg")) {
        stems.push_back(std::filesystem::path(path).stem().string());
    }
    return stems;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleIr, ::testing::ValuesIn(example_stems()));

}  // namespace
}  // namespace tcgen::testing
