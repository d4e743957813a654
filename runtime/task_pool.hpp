#pragma once
// Threads for the back-end work of compression: a batch of independent
// tasks (each compresses one stream of a block with one back-end) runs on
// a fixed set of workers while the calling thread goes on (it runs the
// predictors over the next block) and joins in when it waits for the batch.
//
// One batch at a time, handed out by an atomic counter: the workers touch
// nothing shared but that counter and their tasks' own buffers, so nothing
// here is on a per-record path, and a batch costs two lock round trips per
// worker. A task's exception is kept and rethrown by wait(), after every
// task of the batch has ended, so that no task outlives the buffers it
// writes. A pool whose workers cannot be made (no thread to be had) runs
// every task on the caller in wait().

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tcgen_runtime {

// The threads -T0 means: as many as the machine runs at once.
inline unsigned hardware_threads() {
    const unsigned count = std::thread::hardware_concurrency();
    return count == 0 ? 1 : count;
}

class TaskPool {
public:
    // `threads` in all, the caller's included: threads - 1 workers. The
    // workers are made by the batches that need them, so a writer that
    // writes no block costs no thread, and one whose blocks have few
    // streams no more threads than it has tasks.
    explicit TaskPool(unsigned threads) : worker_count_(threads > 1 ? threads - 1 : 0) {}

    TaskPool(const TaskPool&) = delete;
    TaskPool& operator=(const TaskPool&) = delete;

    // The threads that run a batch, the caller's included.
    unsigned threads() const { return static_cast<unsigned>(worker_count_) + 1; }

    // Waits for the batch under way and joins the workers.
    ~TaskPool() {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            batch_ended_.wait(lock, [this] { return busy_workers_ == 0; });
            stopping_ = true;
        }
        batch_started_.notify_all();
        for (std::thread& worker : workers_) {
            worker.join();
        }
    }

    // Starts task(0) .. task(count - 1) on the workers and returns; wait()
    // ends the batch. No batch may be under way.
    void start(std::size_t count, std::function<void(std::size_t)> task) {
        make_workers(count);
        std::lock_guard<std::mutex> lock(mutex_);
        task_ = std::move(task);
        task_count_ = count;
        next_task_.store(0, std::memory_order_relaxed);
        error_ = nullptr;
        busy_workers_ = workers_.size();
        batch_ += 1;
        batch_started_.notify_all();
    }

    // Runs what is left of the batch on the calling thread too, waits for
    // the workers' tasks to end and rethrows the first exception a task
    // threw.
    void wait() {
        run_tasks();
        std::unique_lock<std::mutex> lock(mutex_);
        batch_ended_.wait(lock, [this] { return busy_workers_ == 0; });
        task_ = nullptr;
        if (error_) {
            std::exception_ptr error = error_;
            error_ = nullptr;
            std::rethrow_exception(error);
        }
    }

    // start() and wait(): the batch on every thread, the caller's included.
    void run(std::size_t count, std::function<void(std::size_t)> task) {
        start(count, std::move(task));
        wait();
    }

    // pool->run(count, task), or without a pool task(0) .. task(count - 1)
    // in turn on the caller: for work that may be given threads.
    static void run(TaskPool* pool, std::size_t count, const std::function<void(std::size_t)>& task) {
        if (pool != nullptr) {
            pool->run(count, task);
            return;
        }
        for (std::size_t index = 0; index < count; ++index) {
            task(index);
        }
    }

private:
    // Up to the workers asked for, and no more than a batch of `count`
    // tasks can keep busy beside the caller.
    void make_workers(std::size_t count) {
        while (workers_.size() < worker_count_ && workers_.size() + 1 < count) {
            try {
                // It waits for the next batch: one made for a later batch
                // must not take the batch before it (whose fields start()
                // is about to write) for a new one.
                workers_.emplace_back([this, seen = batch_] { work(seen); });
            } catch (...) {
                // No thread to be had (std::system_error, or no memory for
                // one): the tasks run on the threads there are.
                worker_count_ = workers_.size();
            }
        }
    }

    void work(std::uint64_t batch_done) {
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(mutex_);
                batch_started_.wait(lock, [&] { return stopping_ || batch_ != batch_done; });
                if (stopping_) {
                    return;
                }
                batch_done = batch_;
            }
            run_tasks();
            {
                std::lock_guard<std::mutex> lock(mutex_);
                busy_workers_ -= 1;
            }
            batch_ended_.notify_all();
        }
    }

    // Takes tasks until none is left. A task that throws ends the batch
    // for every thread: the tasks not yet started are skipped.
    void run_tasks() {
        for (;;) {
            const std::size_t index = next_task_.fetch_add(1, std::memory_order_relaxed);
            if (index >= task_count_) {
                return;
            }
            try {
                task_(index);
            } catch (...) {
                std::lock_guard<std::mutex> lock(mutex_);
                if (!error_) {
                    error_ = std::current_exception();
                }
                next_task_.store(task_count_, std::memory_order_relaxed);
            }
        }
    }

    std::size_t worker_count_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable batch_started_;
    std::condition_variable batch_ended_;
    // The batch: written under the mutex by start() before any worker is
    // woken, read by the workers after they take the mutex.
    std::function<void(std::size_t)> task_;
    std::size_t task_count_ = 0;
    std::atomic<std::size_t> next_task_{0};
    std::uint64_t batch_ = 0;          // batches started
    std::size_t busy_workers_ = 0;     // workers not yet done with this batch
    std::exception_ptr error_;
    bool stopping_ = false;
};

}  // namespace tcgen_runtime
