// The level table: one row a level, read by the writer, the back-end
// choice, LZMA and the help alike.

#include "runtime/levels.hpp"

#include <string>

#include <gtest/gtest.h>

#include "runtime/backends.hpp"
#include "runtime/error.hpp"
#include "runtime/trace_writer.hpp"

namespace tcgen_runtime {
namespace {

TEST(Levels, ALevelOutsideTheTableIsRefusedByName) {
    EXPECT_EQ(&level_row(max_level), &level_table[max_level]);
    try {
        level_row(max_level + 1);
        FAIL() << "level 10 accepted";
    } catch (const Error& error) {
        EXPECT_STREQ(error.what(), "compression level 10 is not in 0..9");
    }
}

// The help names every level once, in order, runs of one text as a range.
TEST(Levels, TheHelpShowsEachRunOfLevelsOnce) {
    EXPECT_EQ(levels_help().substr(0, 40), "compression level (default 6): -0: bzip2");
    std::string expected = "compression level (default 6)";
    expected += ": -0: " + std::string(level_table[0].help);
    expected += "; -1 .. -5: " + std::string(level_table[1].help);
    expected += "; -6: " + std::string(level_table[6].help);
    expected += "; -7 .. -8: " + std::string(level_table[7].help);
    expected += "; -9: " + std::string(level_table[9].help);
    EXPECT_EQ(levels_help(), expected);
}

// What the writer and the back-end choice do at a level is the row's.
TEST(Levels, TheWriterAndTheChoiceReadTheRow) {
    const BackendChoice by_level;
    for (unsigned level = 0; level <= max_level; ++level) {
        const LevelRow& row = level_table[level];
        WriteOptions options;
        options.level = level;
        const std::uint64_t records = records_per_block_for(options, 12, 777);
        EXPECT_EQ(records, row.block_bytes == 0 ? 777 : row.block_bytes / 12) << level;
        for (const auto& [content, candidates] :
             {std::pair{StreamContent::codes, row.codes}, std::pair{StreamContent::values, row.values},
              std::pair{StreamContent::ids, row.ids}}) {
            ASSERT_EQ(by_level.candidate_count(content, level), candidates.count) << level;
            for (std::size_t index = 0; index < candidates.count; ++index) {
                EXPECT_EQ(by_level.candidate(content, level, index), candidates[index]) << level;
            }
        }
        EXPECT_EQ(BackendChoice::searches_longer(Backend::lzma, 800, 100, level), row.retries_longest_matches);
        EXPECT_FALSE(BackendChoice::searches_longer(Backend::lzma, 800, 101, level));
        EXPECT_FALSE(BackendChoice::searches_longer(Backend::bzip2, 800, 100, level));
    }
}

}  // namespace
}  // namespace tcgen_runtime
