// The corpus of bad specs in tests/bad_specs/: each file states the
// diagnostics it must produce in its own leading comment, one per line,
//
//   # expect: 4:7: error: unexpected 'Feild'; expected 'Header', 'Ids' or 'Field'
//
// and the test compares them exactly, in order, with what the front end says.

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "test_support.hpp"

namespace tcgen::testing {
namespace {

std::vector<std::string> expected_headlines(const std::string& text) {
    const std::string marker = "# expect: ";
    std::vector<std::string> expected;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind(marker, 0) == 0) {
            expected.push_back(line.substr(marker.size()));
        }
    }
    return expected;
}

class BadSpec : public ::testing::TestWithParam<std::string> {};

TEST_P(BadSpec, ProducesExactlyTheExpectedDiagnostics) {
    std::string text = read_text(GetParam());
    std::vector<std::string> expected = expected_headlines(text);
    ASSERT_FALSE(expected.empty()) << GetParam() << " has no '# expect: ' line";
    CompileResult result = compile_text(text);
    EXPECT_FALSE(result.spec);
    EXPECT_EQ(result.headlines, expected) << result.rendered;
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

INSTANTIATE_TEST_SUITE_P(Corpus, BadSpec,
                         ::testing::ValuesIn(files_with_extension(source_path("tests/bad_specs"), ".tcg")), test_name);

}  // namespace
}  // namespace tcgen::testing
