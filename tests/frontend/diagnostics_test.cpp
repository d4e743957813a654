// The rendered form of diagnostics: headline, source line, caret under the
// span; several independent errors in one run; follow-on errors suppressed.

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace tcgen::testing {
namespace {

TEST(Diagnostics, RendersSourceLineAndCaretUnderTheSpan) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "12-Bit Field 1 = {: LV[1]};\n"
        "PC = Field 1;\n");
    EXPECT_FALSE(result.spec);
    EXPECT_EQ(result.rendered,
              "spec.tcg:2:1: error: field width must be 8, 16, 32 or 64 bits, not 12\n"
              "    12-Bit Field 1 = {: LV[1]};\n"
              "    ^~\n");
}

TEST(Diagnostics, ReportsIndependentErrorsTogether) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "12-Bit Header;\n"
        "24-Bit Field 1 = {L1 = 3: LV[0]};\n"
        "8-Bit Field 2 = {L2 = 1000: FCM0[1]};\n"
        "PC = Field 7;\n");
    EXPECT_FALSE(result.spec);
    std::vector<std::string> expected = {
        "2:1: error: header width must be a multiple of 8 bits, not 12",
        "3:1: error: field width must be 8, 16, 32 or 64 bits, not 24",
        "3:24: error: L1 must be a power of two, not 3",
        "3:30: error: a predictor must make at least one prediction, not [0]",
        "4:23: error: L2 must be a power of two, not 1000",
        "4:32: error: predictor order must be at least 1",
        "5:12: error: PC field 7 does not exist; the spec has 2 fields",
    };
    EXPECT_EQ(result.headlines, expected) << result.rendered;
}

TEST(Diagnostics, OnlyTheFirstSyntaxErrorIsReported) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "8-Bit Field 1 = {: LV[1]}\n"
        "8-Bit Field 2 = {: LV[1] ;\n"
        "PC = Field 1\n");
    EXPECT_FALSE(result.spec);
    ASSERT_EQ(result.headlines.size(), 1u) << result.rendered;
    EXPECT_EQ(result.headlines[0], "3:1: error: unexpected '8'; expected ';'");
}

TEST(Diagnostics, TabsKeepTheCaretAligned) {
    CompileResult result = compile_text("TCgen Trace Specification;\n\t8-Bit Field 1 = {: LV[1]};\n\tPC = Field 2;\n");
    EXPECT_EQ(result.rendered,
              "spec.tcg:3:13: error: PC field 2 does not exist; the spec has 1 field\n"
              "    \tPC = Field 2;\n"
              "    \t           ^\n");
}

TEST(Diagnostics, TooManyFields) {
    std::string text = "TCgen Trace Specification;\n";
    for (int i = 1; i <= 4098; ++i) {
        text += "8-Bit Field " + std::to_string(i) + " = {: LV[1]};\n";
    }
    text += "PC = Field 1;\n";
    CompileResult result = compile_text(text);
    EXPECT_FALSE(result.spec);
    EXPECT_EQ(result.headlines, std::vector<std::string>{"4098:1: error: too many fields: 4098; at most 4096"});
}

TEST(Diagnostics, AValidSpecHasNone) {
    CompileResult result = compile_text("TCgen Trace Specification; 8-Bit Field 1 = {: LV[1]}; PC = Field 1;");
    EXPECT_TRUE(result.spec);
    EXPECT_TRUE(result.headlines.empty()) << result.rendered;
}

}  // namespace
}  // namespace tcgen::testing
