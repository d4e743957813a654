// TaskPool: every task of a batch runs once, on any number of threads, and
// a task's exception reaches wait() after the batch has ended.

#include "runtime/task_pool.hpp"

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

TEST(TaskPool, RunsEveryTaskOnceWhateverTheThreads) {
    for (const unsigned threads : {1u, 2u, 3u, 16u}) {
        TaskPool pool(threads);
        for (const std::size_t count : {0u, 1u, 2u, 7u, 1000u}) {
            std::vector<std::atomic<int>> runs(count);
            pool.run(count, [&](std::size_t task) { runs[task].fetch_add(1); });
            for (std::size_t task = 0; task < count; ++task) {
                EXPECT_EQ(runs[task].load(), 1) << threads << " threads, task " << task << " of " << count;
            }
        }
    }
}

// Workers made for a later, larger batch wait for it: they once took the
// batch before for a new one and raced start() (ThreadSanitizer saw it).
TEST(TaskPool, WorkersMadeForALaterBatchWaitForIt) {
    for (int round = 0; round < 50; ++round) {
        TaskPool pool(4);
        for (const std::size_t count : {1u, 2u, 3u, 8u}) {
            std::vector<std::atomic<int>> runs(count);
            pool.run(count, [&](std::size_t task) { runs[task].fetch_add(1); });
            for (std::size_t task = 0; task < count; ++task) {
                EXPECT_EQ(runs[task].load(), 1) << "task " << task << " of " << count;
            }
        }
    }
}

TEST(TaskPool, TheCallerWorksBetweenStartAndWait) {
    TaskPool pool(2);
    std::vector<std::atomic<int>> runs(64);
    pool.start(runs.size(), [&](std::size_t task) { runs[task].fetch_add(1); });
    int callers_work = 0;
    for (int step = 0; step < 1000; ++step) {
        callers_work += step % 3;
    }
    pool.wait();
    EXPECT_EQ(callers_work, 999);
    for (const std::atomic<int>& task_runs : runs) {
        EXPECT_EQ(task_runs.load(), 1);
    }
}

TEST(TaskPool, WaitRethrowsATasksErrorAndThePoolGoesOn) {
    for (const unsigned threads : {1u, 4u}) {
        TaskPool pool(threads);
        std::atomic<int> finished{0};
        pool.start(100, [&](std::size_t task) {
            if (task == 10) {
                throw std::runtime_error("task 10 failed");
            }
            finished.fetch_add(1);
        });
        try {
            pool.wait();
            ADD_FAILURE() << "no error from wait()";
        } catch (const std::runtime_error& error) {
            EXPECT_EQ(std::string(error.what()), "task 10 failed");
        }
        // Tasks after the failure may have been skipped, never run twice.
        EXPECT_LE(finished.load(), 99);
        std::atomic<int> next_batch{0};
        pool.run(5, [&](std::size_t) { next_batch.fetch_add(1); });
        EXPECT_EQ(next_batch.load(), 5);
    }
}

TEST(TaskPool, ABatchNotWaitedForIsFinishedBeforeThePoolIsGone) {
    std::vector<std::atomic<int>> runs(200);
    {
        TaskPool pool(3);
        pool.start(runs.size(), [&](std::size_t task) { runs[task].fetch_add(1); });
    }
    // The workers ran every task before they were joined.
    for (const std::atomic<int>& task_runs : runs) {
        EXPECT_EQ(task_runs.load(), 1);
    }
}

}  // namespace
}  // namespace tcgen_runtime
