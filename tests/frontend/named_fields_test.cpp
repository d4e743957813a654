// Named fields and arrays of like fields: what they expand into, where the
// names appear, and that they leave the encoding's identity (the spec text
// every .tcz stores and fingerprints) exactly as the unnamed spec's.

#include <gtest/gtest.h>

#include "generator/backend/canonical_printer.hpp"
#include "generator/backend/encoding.hpp"
#include "test_support.hpp"

namespace tcgen::testing {
namespace {

const char* const named_spec =
    "TCgen Trace Specification;\n"
    "64-Bit Field 1 ip = {: FCM1[1]};\n"
    "8-Bit Field 2 registers[3] = {L1 = 16: LV[2]};\n"
    "64-Bit Field 5 memory[1] = {L1 = 16: DFCM2[2]};\n"
    "64-Bit Field 6 memory[2] = {L1 = 16: LV[1]};\n"
    "16-Bit Field 8 = {L1 = 16: LV[1]};\n"
    "PC = Field ip;\n";

// The same record and predictors, without names.
const char* const unnamed_spec =
    "TCgen Trace Specification;\n"
    "64-Bit Field 1 = {: FCM1[1]};\n"
    "8-Bit Field 2 = {L1 = 16: LV[2]};\n"
    "8-Bit Field 3 = {L1 = 16: LV[2]};\n"
    "8-Bit Field 4 = {L1 = 16: LV[2]};\n"
    "64-Bit Field 5 = {L1 = 16: DFCM2[2]};\n"
    "64-Bit Field 6 = {L1 = 16: LV[1]};\n"
    "64-Bit Field 7 = {L1 = 16: LV[1]};\n"
    "16-Bit Field 8 = {L1 = 16: LV[1]};\n"
    "PC = Field 1;\n";

TEST(NamedFields, ArraysExpandIntoConsecutiveFieldsSharingTheirPredictors) {
    CompileResult result = compile_text(named_spec);
    ASSERT_TRUE(result.spec) << result.rendered;
    const Spec& spec = *result.spec;
    ASSERT_EQ(spec.fields.size(), 8u);
    std::vector<std::string> members;
    for (const Field& field : spec.fields) {
        members.push_back(field.member());
    }
    EXPECT_EQ(members, (std::vector<std::string>{"ip", "registers[0]", "registers[1]", "registers[2]", "memory[0]",
                                                 "memory[1]", "memory[2]", "field8"}));
    EXPECT_EQ(spec.fields[3].predictors, spec.fields[1].predictors);
    EXPECT_EQ(spec.fields[3].array_size, 3u);
    EXPECT_EQ(spec.fields[4].array_size, 3u);  // the pieces of memory make one array
    EXPECT_NE(spec.fields[4].predictors, spec.fields[5].predictors);
    EXPECT_EQ(spec.pc_field, 1u);
}

TEST(NamedFields, NamesLeaveTheIdentityAndFingerprintAlone) {
    CompileResult named = compile_text(named_spec);
    CompileResult unnamed = compile_text(unnamed_spec);
    ASSERT_TRUE(named.plan) << named.rendered;
    ASSERT_TRUE(unnamed.plan) << unnamed.rendered;
    EXPECT_EQ(encoding_identity(*named.plan), encoding_identity(*unnamed.plan));
    EXPECT_EQ(encoding_fingerprint(*named.plan), encoding_fingerprint(*unnamed.plan));
    EXPECT_TRUE(*named.plan == *unnamed.plan);
    EXPECT_EQ(encoding_identity(*named.plan).find("ip"), std::string::npos);
}

// One statement per field, as in Figure 4: an array's elements are pieces of
// one, which the next continue.
TEST(NamedFields, CanonicalTextKeepsNamesAndArraysAndIsAFixedPoint) {
    CompileResult first = compile_text(named_spec);
    ASSERT_TRUE(first.plan) << first.rendered;
    std::string canonical = canonical_text(*first.plan);
    const std::string statements[] = {
        "64-Bit Field 1 ip = {L1 = 1, L2 = 65536: FCM1[1]};\n# Field 1 ip: ",
        "8-Bit Field 2 registers[1] = {L1 = 16, L2 = 65536: LV[2]};\n# Field 2 registers[0]: ",
        "8-Bit Field 4 registers[1] = {L1 = 16, L2 = 65536: LV[2]};\n# Field 4 registers[2]: ",
        "64-Bit Field 5 memory[1] = {L1 = 16, L2 = 65536: DFCM2[2]};\n",
        "64-Bit Field 7 memory[1] = {L1 = 16, L2 = 65536: LV[1]};\n# Field 7 memory[2]: ",
        "16-Bit Field 8 = {L1 = 16, L2 = 65536: LV[1]};\n# Field 8: ",
        "PC = Field ip;\n"};
    for (const std::string& statement : statements) {
        EXPECT_NE(canonical.find(statement), std::string::npos) << statement << "\nnot in\n" << canonical;
    }
    CompileResult second = compile_text(canonical, "canonical.tcg");
    ASSERT_TRUE(second.plan) << second.rendered;
    EXPECT_EQ(canonical_text(*second.plan), canonical);
    EXPECT_EQ(second.spec->fields[3].member(), "registers[2]");
    EXPECT_EQ(second.spec->fields[3].array_size, 3u);
}

TEST(NamedFields, NamesMayHoldDigitsAndPredictorsKeepTheirOrders) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "32-Bit Field 1 pc2 = {: FCM3[1], FCM 2[1]};\n"
        "32-Bit Field 2 L1_miss = {L1 = 4: DFCM12[1]};\n"
        "PC = Field pc2;\n");
    ASSERT_TRUE(result.spec) << result.rendered;
    EXPECT_EQ(result.spec->fields[0].name, "pc2");
    EXPECT_EQ(predictor_name(result.spec->fields[0].predictors[0]), "FCM3[1]");
    EXPECT_EQ(predictor_name(result.spec->fields[0].predictors[1]), "FCM2[1]");
    EXPECT_EQ(result.spec->fields[1].name, "L1_miss");
    EXPECT_EQ(predictor_name(result.spec->fields[1].predictors[0]), "DFCM12[1]");
}

TEST(NamedFields, ThePcByNumberStillWorksWithNames) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "32-Bit Field 1 value = {L1 = 4: LV[1]};\n"
        "32-Bit Field 2 pc = {: FCM1[1]};\n"
        "PC = Field 2;\n");
    ASSERT_TRUE(result.spec) << result.rendered;
    EXPECT_EQ(result.spec->pc_field, 2u);
    EXPECT_NE(canonical_text(*result.plan).find("PC = Field pc;\n"), std::string::npos);
}

}  // namespace
}  // namespace tcgen::testing
