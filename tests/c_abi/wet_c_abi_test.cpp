// The C interface of the WET object (<tcgen/tcgen_wet.h>), through
// libtcgen_wet_c, on the toy program of tests/wet/make_synthetic_wet.py
// built by `wet build`: its answers agree with each other and with the
// WET's own arrays, and every failure is a status and the line `wet` prints
// for the same mistake (after "wet: "). The arrays against `wet`'s output,
// query by query, are python/tests/test_wet.py's.

#include <tcgen/tcgen_wet.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace fs = std::filesystem;

// The standard output and error of `command`, and whether it succeeded.
std::string run(const std::string& command, bool* succeeded = nullptr) {
    std::string output;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) {
        return output;
    }
    std::array<char, 4096> buffer{};
    while (std::size_t read = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
        output.append(buffer.data(), read);
    }
    const int status = pclose(pipe);
    if (succeeded != nullptr) {
        *succeeded = status == 0;
    }
    return output;
}

class WetCAbi : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        wet_command_ = TCGEN_TEST_WET;  // the build's, from CMake
        std::string pattern = (fs::temp_directory_path() / "wet_c_abi_test_XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        work_ = pattern;
        bool built = false;
        const std::string log = run(std::string("python3 ") + TCGEN_TEST_SYNTHETIC_WET + " " + work_ + "/toy 1 && " +
                                        wet_command_ + " build " + work_ + "/toy " + wet_path(),
                                    &built);
        ASSERT_TRUE(built) << log;
    }
    static void TearDownTestSuite() { fs::remove_all(work_); }
    static std::string wet_path() { return work_ + "/toy.wet"; }

    void SetUp() override {
        ASSERT_EQ(tcgen_wet_open(wet_path().c_str(), &wet_), TCGEN_WET_OK) << tcgen_wet_error(wet_);
    }
    void TearDown() override { tcgen_wet_free(wet_); }

    // What `wet ARGUMENTS` prints on a mistake, after "wet: ".
    static std::string command_error(const std::string& arguments) {
        bool succeeded = true;
        std::string output = run(wet_command_ + " " + arguments, &succeeded);
        EXPECT_FALSE(succeeded) << arguments;
        while (!output.empty() && output.back() == '\n') {
            output.pop_back();
        }
        return output.rfind("wet: ", 0) == 0 ? output.substr(5) : output;
    }

    // The pc of the most executed load.
    std::uint64_t hottest_load() {
        tcgen_wet_top_rows top{};
        EXPECT_EQ(tcgen_wet_top(wet_, 1, &top), TCGEN_WET_OK) << tcgen_wet_error(wet_);
        for (std::size_t row = 0; row < top.rows; ++row) {
            if (top.kind[row] == 'L') {
                return top.pc[row];
            }
        }
        ADD_FAILURE() << "no load in top";
        return 0;
    }

    static std::string wet_command_;
    static std::string work_;
    tcgen_wet* wet_ = nullptr;
};

std::string WetCAbi::wet_command_;
std::string WetCAbi::work_;

TEST_F(WetCAbi, VersionAndStatusNames) {
    EXPECT_EQ(tcgen_wet_abi_version(), TCGEN_WET_ABI_VERSION);
    EXPECT_STREQ(tcgen_wet_status_name(TCGEN_WET_ERROR_QUERY), "TCGEN_WET_ERROR_QUERY");
    EXPECT_STREQ(tcgen_wet_status_name(TCGEN_WET_OK), "TCGEN_WET_OK");
}

TEST_F(WetCAbi, ControlFlowCoversTheRunAndMatchesTheAccesses) {
    tcgen_wet_stats stats{};
    ASSERT_EQ(tcgen_wet_get_stats(wet_, &stats), TCGEN_WET_OK);
    ASSERT_GT(stats.executed, 10u);
    EXPECT_GT(stats.blocks, 1u);
    EXPECT_GT(stats.events, stats.defs);
    std::vector<std::uint32_t> blocks(stats.executed + 5);
    std::vector<std::uint64_t> pcs(blocks.size());
    std::size_t written = 0;
    ASSERT_EQ(tcgen_wet_cf(wet_, 1, blocks.size(), blocks.data(), pcs.data(), &written), TCGEN_WET_OK);
    EXPECT_EQ(written, stats.executed);  // the end of the run cuts the window short
    // A window from the middle equals that part of the whole.
    std::vector<std::uint64_t> part(3);
    ASSERT_EQ(tcgen_wet_cf(wet_, 5, part.size(), nullptr, part.data(), &written), TCGEN_WET_OK);
    ASSERT_EQ(written, 3u);
    EXPECT_EQ(part, std::vector<std::uint64_t>(pcs.begin() + 4, pcs.begin() + 7));

    // Every execution of the hottest load is at a timestamp its rows agree on, increasing.
    tcgen_wet_access_rows accesses{};
    ASSERT_EQ(tcgen_wet_accesses(wet_, hottest_load(), &accesses), TCGEN_WET_OK);
    ASSERT_GT(accesses.rows, 1u);
    for (std::size_t row = 0; row < accesses.rows; ++row) {
        EXPECT_GE(accesses.t[row], 1u);
        EXPECT_LE(accesses.t[row], stats.executed);
        EXPECT_EQ(accesses.kind[row], 'L');
        if (row > 0) {
            EXPECT_LE(accesses.t[row - 1], accesses.t[row]);
        }
    }
}

TEST_F(WetCAbi, DefAndSliceByInstanceEqualThemAtItsTimestamp) {
    const std::uint64_t load = hottest_load();
    tcgen_wet_access_rows accesses{};
    ASSERT_EQ(tcgen_wet_accesses(wet_, load, &accesses), TCGEN_WET_OK);
    const std::uint32_t second = accesses.t[1];  // a load runs once per timestamp here: its 2nd instance

    tcgen_wet_def_rows defs{};
    ASSERT_EQ(tcgen_wet_def(wet_, load, 2, TCGEN_WET_NONE, &defs), TCGEN_WET_OK) << tcgen_wet_error(wet_);
    ASSERT_GE(defs.rows, 1u);
    EXPECT_EQ(defs.t[0], second);
    const std::uint32_t def_t = defs.def_t[0];
    ASSERT_EQ(tcgen_wet_def(wet_, load, TCGEN_WET_NONE, second, &defs), TCGEN_WET_OK) << tcgen_wet_error(wet_);
    EXPECT_EQ(defs.def_t[0], def_t);

    tcgen_wet_slice_rows slice{};
    ASSERT_EQ(tcgen_wet_slice(wet_, load, 2, TCGEN_WET_NONE, TCGEN_WET_NONE, TCGEN_WET_ALL, &slice), TCGEN_WET_OK)
        << tcgen_wet_error(wet_);
    ASSERT_GT(slice.rows, 1u);
    const std::vector<std::uint32_t> times(slice.t, slice.t + slice.rows);
    const std::vector<std::uint64_t> pcs(slice.pc, slice.pc + slice.rows);  // the next query reuses the columns
    const std::vector<char> kinds(slice.kind, slice.kind + slice.rows);
    EXPECT_EQ(times.front(), second);
    tcgen_wet_slice_rows window{};
    ASSERT_EQ(tcgen_wet_slice(wet_, load, TCGEN_WET_NONE, second, TCGEN_WET_NONE, 2, &window), TCGEN_WET_OK)
        << tcgen_wet_error(wet_);
    ASSERT_EQ(window.rows, 2u);
    EXPECT_EQ(std::vector<std::uint32_t>(window.t, window.t + 2),
              std::vector<std::uint32_t>(times.begin(), times.begin() + 2));

    // The same slice walked three rows at a time, with a query between steps.
    tcgen_wet_slice_walk* walk = nullptr;
    ASSERT_EQ(tcgen_wet_slice_walk_open(wet_, load, 2, TCGEN_WET_NONE, TCGEN_WET_NONE, TCGEN_WET_NONE, TCGEN_WET_ALL,
                                        &walk),
              TCGEN_WET_OK)
        << tcgen_wet_error(wet_);
    std::vector<std::uint32_t> walked_times;
    std::vector<std::uint64_t> walked_pcs;
    std::vector<char> walked_kinds;
    for (tcgen_wet_slice_rows rows{};;) {
        ASSERT_EQ(tcgen_wet_slice_walk_next(walk, 3, &rows), TCGEN_WET_OK) << tcgen_wet_error(wet_);
        ASSERT_LE(rows.rows, 3u);
        if (rows.rows == 0) {
            break;
        }
        walked_times.insert(walked_times.end(), rows.t, rows.t + rows.rows);
        walked_pcs.insert(walked_pcs.end(), rows.pc, rows.pc + rows.rows);
        walked_kinds.insert(walked_kinds.end(), rows.kind, rows.kind + rows.rows);
        ASSERT_EQ(tcgen_wet_accesses(wet_, load, &accesses), TCGEN_WET_OK);
    }
    EXPECT_EQ(walked_times, times);
    EXPECT_EQ(walked_pcs, pcs);
    EXPECT_EQ(walked_kinds, kinds);
    tcgen_wet_slice_rows rows{};
    EXPECT_EQ(tcgen_wet_slice_walk_next(walk, 0, &rows), TCGEN_WET_ERROR_ARGUMENT);
    tcgen_wet_slice_walk_free(walk);

    // --until: the items from a timestamp on.
    const std::uint32_t until = times[times.size() / 2];
    ASSERT_EQ(tcgen_wet_slice_walk_open(wet_, load, 2, TCGEN_WET_NONE, TCGEN_WET_NONE, until, TCGEN_WET_ALL, &walk),
              TCGEN_WET_OK)
        << tcgen_wet_error(wet_);
    ASSERT_EQ(tcgen_wet_slice_walk_next(walk, SIZE_MAX, &rows), TCGEN_WET_OK) << tcgen_wet_error(wet_);
    std::vector<std::uint32_t> expected;
    std::copy_if(times.begin(), times.end(), std::back_inserter(expected), [&](std::uint32_t t) { return t >= until; });
    EXPECT_EQ(std::vector<std::uint32_t>(rows.t, rows.t + rows.rows), expected);
    tcgen_wet_slice_walk_free(walk);
    tcgen_wet_slice_walk_free(nullptr);
}

// Every load's slice from its 2nd instance and its accesses, as text.
std::vector<std::string> slices_of_loads(tcgen_wet* wet, const std::vector<std::uint64_t>& loads) {
    std::vector<std::string> answers;
    for (const std::uint64_t pc : loads) {
        std::string answer;
        tcgen_wet_slice_rows slice{};
        if (tcgen_wet_slice(wet, pc, 2, TCGEN_WET_NONE, TCGEN_WET_NONE, TCGEN_WET_ALL, &slice) != TCGEN_WET_OK) {
            answer = tcgen_wet_error(wet);
        }
        for (std::size_t row = 0; row < slice.rows; ++row) {
            answer += std::to_string(slice.t[row]) + slice.kind[row] + std::to_string(slice.pc[row]) + " ";
        }
        tcgen_wet_access_rows accesses{};
        if (tcgen_wet_accesses(wet, pc, &accesses) == TCGEN_WET_OK) {
            for (std::size_t row = 0; row < accesses.rows; ++row) {
                answer += std::to_string(accesses.t[row]) + ":" + std::to_string(accesses.value[row]) + " ";
            }
        }
        answers.push_back(answer);
    }
    return answers;
}

TEST_F(WetCAbi, SharedHandlesQueryFromSeveralThreadsAtOnce) {
    tcgen_wet_top_rows top{};
    ASSERT_EQ(tcgen_wet_top(wet_, 100, &top), TCGEN_WET_OK) << tcgen_wet_error(wet_);
    std::vector<std::uint64_t> loads;
    for (std::size_t row = 0; row < top.rows; ++row) {
        if (top.kind[row] == 'L') {
            loads.push_back(top.pc[row]);
        }
    }
    ASSERT_FALSE(loads.empty());
    const std::vector<std::string> expected = slices_of_loads(wet_, loads);

    // One handle per thread, all on the WET wet_ opened; the last one freed frees it.
    constexpr int threads = 4;
    std::vector<tcgen_wet*> handles(threads, nullptr);
    for (tcgen_wet*& handle : handles) {
        ASSERT_EQ(tcgen_wet_share(wet_, &handle), TCGEN_WET_OK) << tcgen_wet_error(handle);
    }
    tcgen_wet_free(wet_);
    wet_ = nullptr;
    std::vector<std::vector<std::string>> answers(threads);
    std::vector<std::thread> workers;
    for (int thread = 0; thread < threads; ++thread) {
        workers.emplace_back([&, thread] { answers[thread] = slices_of_loads(handles[thread], loads); });
    }
    for (std::thread& worker : workers) {
        worker.join();
    }
    for (int thread = 0; thread < threads; ++thread) {
        EXPECT_EQ(answers[thread], expected) << "thread " << thread;
        tcgen_wet_free(handles[thread]);
    }

    // A handle whose open failed shares nothing.
    tcgen_wet* failed = nullptr;
    ASSERT_EQ(tcgen_wet_open((work_ + "/missing.wet").c_str(), &failed), TCGEN_WET_ERROR_INPUT);
    tcgen_wet* shared = nullptr;
    EXPECT_EQ(tcgen_wet_share(failed, &shared), TCGEN_WET_ERROR_ARGUMENT);
    EXPECT_STREQ(tcgen_wet_error(shared), "error: the WET handle holds no trace: its open failed");
    tcgen_wet_free(shared);
    tcgen_wet_free(failed);
}

TEST_F(WetCAbi, FailuresAreTheCommandsMessages) {
    const std::string wet = wet_path();
    tcgen_wet_access_rows accesses{};
    EXPECT_EQ(tcgen_wet_accesses(wet_, 0x1, &accesses), TCGEN_WET_ERROR_QUERY);
    EXPECT_EQ(tcgen_wet_error(wet_), wet + ": error: no memory access has pc 0x1");
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("values " + wet + " 0x1"));

    const std::uint64_t load = hottest_load();
    char pc[32];
    std::snprintf(pc, sizeof pc, "0x%llx", static_cast<unsigned long long>(load));
    tcgen_wet_slice_rows slice{};
    EXPECT_EQ(tcgen_wet_slice(wet_, load, 100000, TCGEN_WET_NONE, TCGEN_WET_NONE, TCGEN_WET_ALL, &slice),
              TCGEN_WET_ERROR_QUERY);
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("slice " + wet + " " + pc + " 100000"));
    tcgen_wet_def_rows defs{};
    EXPECT_EQ(tcgen_wet_def(wet_, load, TCGEN_WET_NONE, TCGEN_WET_NONE, &defs), TCGEN_WET_ERROR_ARGUMENT);
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("def " + wet + " " + pc));
    EXPECT_EQ(tcgen_wet_def(wet_, load, 0, TCGEN_WET_NONE, &defs), TCGEN_WET_ERROR_QUERY);
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("def " + wet + " " + pc + " 0"));
    EXPECT_EQ(tcgen_wet_slice(wet_, load, 1, TCGEN_WET_NONE, 0, TCGEN_WET_ALL, &slice), TCGEN_WET_ERROR_ARGUMENT);
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("slice " + wet + " " + pc + " 1 --from=0"));
    tcgen_wet_slice_walk* walk = nullptr;
    EXPECT_EQ(tcgen_wet_slice_walk_open(wet_, load, 1, TCGEN_WET_NONE, TCGEN_WET_NONE, 0, TCGEN_WET_ALL, &walk),
              TCGEN_WET_ERROR_ARGUMENT);
    EXPECT_EQ(walk, nullptr);
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("slice " + wet + " " + pc + " 1 --until=0"));
    EXPECT_EQ(tcgen_wet_slice_walk_open(wet_, load, 100000, TCGEN_WET_NONE, TCGEN_WET_NONE, TCGEN_WET_NONE,
                                        TCGEN_WET_ALL, &walk),
              TCGEN_WET_ERROR_QUERY);
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("slice " + wet + " " + pc + " 100000"));
    EXPECT_EQ(tcgen_wet_def(wet_, load, TCGEN_WET_NONE, 1u << 30, &defs), TCGEN_WET_ERROR_QUERY);
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("def " + wet + " " + pc + " --at=" + std::to_string(1u << 30)));
    std::size_t written = 0;
    EXPECT_EQ(tcgen_wet_cf(wet_, 0, 1, nullptr, nullptr, &written), TCGEN_WET_ERROR_QUERY);
    EXPECT_EQ(tcgen_wet_error(wet_), command_error("cf " + wet + " --from=0"));
    EXPECT_EQ(tcgen_wet_get_stats(wet_, nullptr), TCGEN_WET_ERROR_ARGUMENT);
    EXPECT_EQ(tcgen_wet_get_stats(nullptr, nullptr), TCGEN_WET_ERROR_ARGUMENT);

    // A query after a failure works.
    tcgen_wet_stats stats{};
    EXPECT_EQ(tcgen_wet_get_stats(wet_, &stats), TCGEN_WET_OK);
    EXPECT_STREQ(tcgen_wet_error(wet_), "");
}

TEST_F(WetCAbi, TruncatedAndMissingFilesFailToOpen) {
    const std::string truncated = work_ + "/truncated.wet";
    fs::copy_file(wet_path(), truncated, fs::copy_options::overwrite_existing);
    fs::resize_file(truncated, fs::file_size(truncated) / 2);
    for (const std::string& path : {truncated, work_ + "/missing.wet"}) {
        tcgen_wet* wet = nullptr;
        EXPECT_EQ(tcgen_wet_open(path.c_str(), &wet), TCGEN_WET_ERROR_INPUT);
        ASSERT_NE(wet, nullptr);
        EXPECT_EQ(tcgen_wet_error(wet), command_error("stats " + path));
        tcgen_wet_stats stats{};
        EXPECT_EQ(tcgen_wet_get_stats(wet, &stats), TCGEN_WET_ERROR_ARGUMENT);  // no trace behind it
        tcgen_wet_free(wet);
    }
}

}  // namespace
