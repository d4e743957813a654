#pragma once
// Reading ahead for TraceReader: a second thread reads the next section of a
// .tcz, checks it and back-end-decompresses its streams (most of the time of
// decompression) while the calling thread runs the predictors over the block
// before it, whose state carries from block to block and so cannot be split.
//
// At most one section is read ahead, into a BlockData and a Trailer of the
// prefetcher's own that take() swaps with the reader's: two blocks in memory,
// no queue. The ContainerReader (and the ByteSource under it) belongs to the
// worker from start() until the read is over (take() or wait_idle()); the
// calling thread must not touch it in between. A read's error is carried to
// take() and thrown there, so that it surfaces after every block before it
// has been delivered, exactly where the sequential reader would throw it.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>

#include "container_reader.hpp"

namespace tcgen_runtime {

class BlockPrefetcher {
public:
    BlockPrefetcher(ContainerReader& container, const std::string_view* stream_names)
        : container_(container), stream_names_(stream_names) {}

    BlockPrefetcher(const BlockPrefetcher&) = delete;
    BlockPrefetcher& operator=(const BlockPrefetcher&) = delete;

    // Waits for a read under way (a read is never abandoned half-way: it
    // holds the source) and joins the thread.
    ~BlockPrefetcher() {
        if (!worker_.joinable()) {
            return;
        }
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait(lock, [this] { return !reading_; });
            stopping_ = true;
        }
        changed_.notify_all();
        worker_.join();
    }

    // Starts ContainerReader::read_next on the worker thread, which is
    // created by the first call (a reader that reads nothing costs no
    // thread). Nothing may be pending.
    void start() {
        pending_ = true;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            reading_ = true;
        }
        if (worker_.joinable()) {
            changed_.notify_all();
            return;
        }
        try {
            worker_ = std::thread([this] { run(); });
        } catch (...) {
            // No thread to be had (std::system_error, or no memory for one):
            // read here, as the sequential reader does, rather than wait for
            // a read that no thread will make.
            read();
            reading_ = false;
        }
    }

    // Whether a read was started and its result not yet taken or discarded.
    bool pending() const { return pending_; }

    // Waits for the pending read and hands over its result: read_next's
    // value, with the block or the trailer swapped into `block` or
    // `trailer`, and the container's bytes_read() just after the read; or
    // the read's exception, thrown.
    bool take(BlockData& block, Trailer& trailer, std::uint64_t& bytes_read) {
        wait_idle();
        pending_ = false;
        if (error_) {
            std::rethrow_exception(std::exchange(error_, nullptr));
        }
        if (read_block_) {
            std::swap(block, block_);
        } else {
            std::swap(trailer, trailer_);
        }
        bytes_read = bytes_read_;
        return read_block_;
    }

    // Waits until the worker is done with the container, keeping the
    // result for take(): the calling thread may use the container then.
    void wait_idle() {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [this] { return !reading_; });
    }

    // Waits for the pending read, if any, and forgets it, error included:
    // for when the reader repositions the container, so that what was read
    // ahead is no longer what comes next.
    void discard() {
        if (pending_) {
            wait_idle();
            pending_ = false;
            error_ = nullptr;
        }
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(mutex_);
        while (true) {
            changed_.wait(lock, [this] { return reading_ || stopping_; });
            if (stopping_) {
                return;
            }
            lock.unlock();
            read();
            lock.lock();
            reading_ = false;
            changed_.notify_all();
        }
    }

    void read() {
        try {
            read_block_ = container_.read_next(block_, trailer_, stream_names_);
            bytes_read_ = container_.bytes_read();
        } catch (...) {
            error_ = std::current_exception();
        }
    }

    ContainerReader& container_;
    const std::string_view* stream_names_;
    bool pending_ = false;  // the calling thread's own

    // reading_: the worker owns the container and the result below, until
    // it clears reading_ (under the lock, which orders its writes before
    // the calling thread's reads).
    std::mutex mutex_;
    std::condition_variable changed_;
    bool reading_ = false;
    bool stopping_ = false;

    BlockData block_;
    Trailer trailer_;
    bool read_block_ = false;
    std::uint64_t bytes_read_ = 0;
    std::exception_ptr error_;

    std::thread worker_;
};

}  // namespace tcgen_runtime
