// Every example parses, its canonical form is a fixed point, and it matches
// the checked-in golden file (tests/update-goldens rewrites those).

#include <gtest/gtest.h>

#include <filesystem>

#include "generator/backend/canonical_printer.hpp"
#include "test_support.hpp"

namespace tcgen::testing {
namespace {

class ExampleSpec : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleSpec, CanonicalFormIsAFixedPointAndMatchesGolden) {
    std::string path = source_path("examples/" + GetParam());
    CompileResult first = compile_text(read_text(path), path);
    ASSERT_TRUE(first.spec) << first.rendered;
    EXPECT_TRUE(first.headlines.empty()) << first.rendered;

    std::string canonical = canonical_text(*first.plan);
    CompileResult second = compile_text(canonical, "canonical.tcg");
    ASSERT_TRUE(second.spec) << second.rendered;
    EXPECT_EQ(canonical_text(*second.plan), canonical);

    std::string stem = std::filesystem::path(GetParam()).stem().string();
    EXPECT_EQ(canonical, read_text(source_path("tests/golden/canonical/" + stem + ".tcg")))
        << "canonical form changed; if intended, run tests/update-goldens";
}

std::vector<std::string> example_names() {
    std::vector<std::string> names;
    for (const std::string& path : files_with_extension(source_path("examples"), ".tcg")) {
        names.push_back(std::filesystem::path(path).filename().string());
    }
    return names;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string name = std::filesystem::path(info.param).stem().string();
    for (char& c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) {
            c = '_';
        }
    }
    return name;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleSpec, ::testing::ValuesIn(example_names()), test_name);

TEST(Canonical, DefaultsAreExplicit) {
    CompileResult result = compile_text(
        "TCgen Trace Specification;\n"
        "16-Bit Field 1 = {: LV[1]};  # comment dropped\n"
        "PC = Field 1;\n");
    ASSERT_TRUE(result.spec) << result.rendered;
    EXPECT_EQ(canonical_text(*result.plan),
              "TCgen Trace Specification;\n"
              "0-Bit Header;\n"
              "16-Bit Field 1 = {L1 = 1, L2 = 65536: LV[1]};\n"
              "# Field 1: 1 prediction, 2 bytes of tables\n"
              "PC = Field 1;\n"
              "# Memory estimate: 343,932,930 bytes (328.0 MiB): 2 bytes of tables + "
              "343,932,928 bytes of buffers\n"
              "# (an upper estimate for compressing at levels 0 to 6; -7 to -9 may exceed it, -9 on most traces;\n"
              "# decompressing takes less: peak RSS measured in docs/benchmarks/memory.md)\n");
}

}  // namespace
}  // namespace tcgen::testing
