// Feeds random and mutated spec text to the front end. Whatever the input,
// it must return either a model and no errors, or errors and no model, never
// crash or throw; every error points into the file; every model prints a
// canonical text that is a fixed point. Seeded, so failures reproduce.

#include <gtest/gtest.h>

#include <random>

#include "generator/backend/canonical_printer.hpp"
#include "test_support.hpp"

namespace tcgen::testing {
namespace {

const std::vector<std::string> vocabulary = {"TCgen",       "Trace",      "Specification",
                                             ";",           "-",          "Bit",
                                             "Header",      "Field",      "=",
                                             "{",           "}",          ":",
                                             ",",           "L1",         "L2",
                                             "DFCM",        "FCM",        "LV",
                                             "[",           "]",          "PC",
                                             "0",           "1",          "2",
                                             "3",           "8",          "16",
                                             "32",          "64",         "65536",
                                             "131072",      "4294967296", "18446744073709551616",
                                             "# comment\n", "\n",         " ",
                                             "\t",          "\xc3\xa9",   "@"};

class Mutator {
public:
    explicit Mutator(std::uint32_t seed) : random_(seed) {}

    std::size_t below(std::size_t bound) {
        return bound == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, bound - 1)(random_);
    }

    std::string random_bytes() {
        std::string text(below(200), '\0');
        for (char& c : text) {
            c = static_cast<char>(below(256));
        }
        return text;
    }

    std::string random_tokens() {
        std::string text = below(2) == 0 ? "TCgen Trace Specification;" : "";
        std::size_t count = below(60);
        for (std::size_t i = 0; i < count; ++i) {
            text += vocabulary[below(vocabulary.size())];
            if (below(3) == 0) {
                text += ' ';
            }
        }
        return text;
    }

    std::string mutate(std::string text) {
        std::size_t edits = 1 + below(4);
        for (std::size_t i = 0; i < edits; ++i) {
            std::size_t at = below(text.size() + 1);
            switch (below(5)) {
                case 0:
                    text.erase(at, below(8));
                    break;
                case 1:
                    text.insert(at, vocabulary[below(vocabulary.size())]);
                    break;
                case 2:
                    if (at < text.size()) {
                        text[at] = static_cast<char>(below(256));
                    }
                    break;
                case 3:
                    text.insert(at, text.substr(below(text.size() + 1), below(30)));
                    break;
                default:
                    text = text.substr(0, at);
                    break;
            }
        }
        return text;
    }

private:
    std::mt19937 random_;
};

void check_front_end_contract(const std::string& text) {
    CompileResult result = compile_text(text);
    if (result.spec) {
        ASSERT_TRUE(result.headlines.empty()) << text;
        std::string canonical = canonical_text(*result.plan);
        CompileResult again = compile_text(canonical);
        ASSERT_TRUE(again.spec) << canonical << again.rendered;
        ASSERT_EQ(canonical_text(*again.plan), canonical);
    } else {
        ASSERT_FALSE(result.headlines.empty()) << "no model and no diagnostic for:\n" << text;
        ASSERT_NE(result.headlines.front().find(": error: "), std::string::npos) << result.rendered;
    }
}

std::vector<std::string> seed_specs() {
    std::vector<std::string> seeds;
    for (const std::string& path : files_with_extension(source_path("examples"), ".tcg")) {
        seeds.push_back(read_text(path));
    }
    return seeds;
}

TEST(FrontEndFuzz, RandomBytesNeverCrash) {
    Mutator mutator(1);
    for (int i = 0; i < 1000; ++i) {
        check_front_end_contract(mutator.random_bytes());
    }
}

TEST(FrontEndFuzz, RandomTokenSequencesNeverCrash) {
    Mutator mutator(2);
    for (int i = 0; i < 2000; ++i) {
        check_front_end_contract(mutator.random_tokens());
    }
}

TEST(FrontEndFuzz, MutatedExamplesNeverCrash) {
    Mutator mutator(3);
    std::vector<std::string> seeds = seed_specs();
    ASSERT_FALSE(seeds.empty());
    int accepted = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string text = mutator.mutate(seeds[static_cast<std::size_t>(i) % seeds.size()]);
        check_front_end_contract(text);
        accepted += compile_text(text).spec.has_value() ? 1 : 0;
    }
    // Mutations must exercise both outcomes, or the test proves little.
    EXPECT_GT(accepted, 0);
    EXPECT_LT(accepted, 3000);
}

}  // namespace
}  // namespace tcgen::testing
