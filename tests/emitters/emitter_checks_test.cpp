// The checks each output owns, in-process: a bidirectional stream refuses,
// at the spec's places, what it cannot honour, and both its halves refuse
// alike; the names an output reads are checked by the output that reads
// them, and outputs that read none accept any spec tcgen plans.

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "generator/emitters/emitter.hpp"
#include "generator/plan/planner.hpp"

namespace tcgen {
namespace {

const std::string stream_spec =
    "TCgen Trace Specification;\n"
    "64-Bit Field 1 = {L1 = 1, L2 = 1024: FCM1[2], LV[1]};\n"
    "PC = Field 1;\n";

// Four things a bidirectional stream cannot honour: a header, records as
// ids, L1 > 1 and a kind without a bidirectional form.
const std::string pc_indexed_spec =
    "TCgen Trace Specification;\n"
    "32-Bit Header;\n"
    "32-Bit Ids;\n"
    "64-Bit Field 1 = {L1 = 256, L2 = 1024: FCM1[2], LV[1]};\n"
    "32-Bit Field 2 = {: LV[1], MATCH2[1]};\n"
    "PC = Field 2;\n";

// What an output's check found.
struct Checked {
    bool passed = false;
    std::vector<std::string> headlines;  // "LINE:COL: MESSAGE"
    std::string error;
};

Checked check(const std::string& emitter_name, const std::string& text, const EmitRequest& request) {
    SourceFile file("spec.tcg", text);
    DiagnosticSink sink(file);
    std::optional<CodePlan> plan = compile_to_plan(file, sink);
    EXPECT_TRUE(plan) << text;
    const Emitter* emitter = find_emitter(emitter_name);
    EXPECT_NE(emitter, nullptr) << emitter_name;
    Checked checked;
    if (!plan || emitter == nullptr) {
        return checked;
    }
    checked.passed = emitter->check(*plan, request, sink, checked.error);
    for (const Diagnostic& diagnostic : sink.diagnostics()) {
        checked.headlines.push_back(std::to_string(diagnostic.span.line) + ":" +
                                    std::to_string(diagnostic.span.column) + ": " + diagnostic.message);
    }
    return checked;
}

EmitRequest request_for(const std::string& spec_stem) {
    EmitRequest request;
    request.spec_stem = spec_stem;
    return request;
}

TEST(EmitterChecks, BothHalvesOfAStreamRefuseWhatItCannotHonourAtItsPlace) {
    const std::vector<std::string> expected = {
        "2:1: a bidirectional stream holds records only; it cannot keep a 32-bit header",
        "3:1: a bidirectional stream codes every record through its fields; it cannot code records as ids",
        "4:19: L1 = 256 in field 1: a bidirectional stream is one sequence per field with no PC to index its "
        "tables; use L1 = 1",
        "5:28: MATCH2[1] in field 2 has no bidirectional form: a bidirectional stream takes DFCM, FCM and LV"};
    for (const char* half : {"bidirectional-header", "bidirectional-source"}) {
        Checked checked = check(half, pc_indexed_spec, request_for("spec"));
        EXPECT_FALSE(checked.passed) << half;
        EXPECT_EQ(checked.headlines, expected) << half;
        EXPECT_EQ(checked.error, "") << half;
    }
}

TEST(EmitterChecks, AStreamsNameAndNamespaceMustBeCpp) {
    Checked stem = check("bidirectional-header", stream_spec, request_for("9lives"));
    EXPECT_FALSE(stem.passed);
    EXPECT_EQ(stem.error, "'9lives' cannot name a C++ stream type; give --name=NAME (letters, digits and '_')");

    EmitRequest named = request_for("9lives");
    named.name = "lives";
    EXPECT_TRUE(check("bidirectional-source", stream_spec, named).passed);

    named.cpp_namespace = "a::";
    Checked cpp_namespace = check("bidirectional-source", stream_spec, named);
    EXPECT_FALSE(cpp_namespace.passed);
    EXPECT_EQ(cpp_namespace.error, "--namespace='a::' is not a C++ namespace name (identifiers joined by '::')");
    EXPECT_TRUE(cpp_namespace.headlines.empty());
}

TEST(EmitterChecks, AHeadersNamespaceDefaultsToTheSpecsNameAndMustBeCpp) {
    Checked stem = check("header", stream_spec, request_for("vpc3-x"));
    EXPECT_FALSE(stem.passed);
    EXPECT_EQ(stem.error,
              "'vpc3-x' cannot name the codec's C++ namespace; give --namespace=NAME (identifiers joined by '::')");

    EmitRequest named = request_for("vpc3-x");
    named.cpp_namespace = "traces::vpc3";
    EXPECT_TRUE(check("header", stream_spec, named).passed);
}

TEST(EmitterChecks, OutputsThatReadNoNamesAcceptAnyPlannedSpec) {
    for (const Emitter* emitter : emitters()) {
        if (emitter->uses_name() || emitter->uses_namespace()) {
            continue;
        }
        Checked checked = check(std::string(emitter->name()), pc_indexed_spec, request_for("vpc3-x"));
        EXPECT_TRUE(checked.passed) << emitter->name();
        EXPECT_TRUE(checked.headlines.empty()) << emitter->name();
    }
}

// The header tells its users to include it by the name it is written under;
// on standard output ("-" as much as no -o) that is the spec's name.
TEST(EmitterChecks, AHeaderIsIncludedByTheNameItIsWrittenUnder) {
    SourceFile file("spec.tcg", stream_spec);
    DiagnosticSink sink(file);
    std::optional<CodePlan> plan = compile_to_plan(file, sink);
    ASSERT_TRUE(plan);
    const Emitter* header = find_emitter("header");
    ASSERT_NE(header, nullptr);
    EmitRequest request = request_for("vpc3");
    for (const char* output : {"", "-"}) {
        request.output_path = output;
        EXPECT_NE(header->generate(*plan, request).find("#include \"vpc3.hpp\""), std::string::npos) << output;
    }
    request.output_path = "gen/traces.hpp";
    std::string text = header->generate(*plan, request);
    EXPECT_NE(text.find("#include \"traces.hpp\""), std::string::npos);
    EXPECT_EQ(text.find("#include \"vpc3.hpp\""), std::string::npos);
}

}  // namespace
}  // namespace tcgen
