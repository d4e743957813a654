#pragma once
// The fields of a block without runs decoded on two threads: the first field
// in coding order (the PC, whose value indexes the other fields' tables) on
// one, the other fields on the calling thread, trailing it.
//
// In such a block (RecordRuns' flag 0) record i's codes sit at a fixed place
// in the one interleaved codes stream, field f's at 1 + i * fields + f codes
// from its start, and each field has a misses stream and tables of its own:
// a field's decoding depends on no other field's but the PC's. A block with
// runs or record matches cannot be split so: whether a run follows a record,
// and which earlier record a match copies, is looked up by a hash of the
// whole record, so every field would wait for every other at each record
// (docs/design/log.md, "Fields on two threads").
//
// The leading thread publishes how many records it has finished every
// column_batch records, and the trailing one reads a batch only once it is
// published: each writes only its own fields' bytes of the records, and the
// PC bytes it reads were written before their batch was published. The
// trailing fields do most of the work (TCgen(A): the PC a quarter of it), so
// the calling thread seldom waits, and when it does it sleeps.
//
// Errors are those of decoding record by record: each thread stops at the
// first record its fields cannot decode; the trailing thread never goes past
// the record where the leading one stopped, and an error of the trailing
// fields at an earlier record is the one the sequential decoder meets
// first, so it is thrown; else the leading one's is.

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "byte_order.hpp"
#include "error.hpp"
#include "streams.hpp"

namespace tcgen_runtime {

// One field's codes in a run-less block: every `stride`-th code of the codes
// stream from `first` on, read as StreamReader::get reads them (a field's
// decode takes either), with the same error where the stream ends early.
template <class Code>
class CodeColumn {
public:
    CodeColumn(const StreamReader& codes, std::size_t position, std::size_t stride)
        : name_(codes.name()),
          data_(codes.unread()),
          size_(codes.remaining()),
          offset_(position * sizeof(Code)),
          step_(stride * sizeof(Code)) {}

    template <class T>
    T get() {
        static_assert(sizeof(T) == sizeof(Code), "a column's codes are all of one width");
        if (offset_ > size_ || size_ - offset_ < sizeof(T)) {
            fail("corrupt input: stream '" + std::string(name_) + "' ends early");
        }
        const T value = load_le<T>(data_ + offset_);
        offset_ += step_;
        return value;
    }

private:
    std::string_view name_;
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t offset_;
    std::size_t step_;
};

// Whether a block of `records` without runs is decoded on two threads: only
// where there are two fields to split and enough records that starting a
// thread (tens of microseconds) is lost in the decoding (a few hundred).
inline constexpr std::size_t min_records_on_field_threads = std::size_t{1} << 14;

inline constexpr bool fields_on_threads_pay(std::size_t field_count, std::size_t records) {
    return field_count >= 2 && records >= min_records_on_field_threads;
}

// Runs lead(index, end) over the records [0, count) in batches on a thread of
// its own, and trail(index, end) over each batch on the calling thread once
// lead has finished it; each advances `index` as it finishes a record, so
// that where one throws, `index` is the record it failed on. Where no
// thread can be had, lead runs over the whole block first, then trail.
class FieldThreads {
public:
    static constexpr std::size_t column_batch = 1024;

    template <class Lead, class Trail>
    static void run(std::size_t count, Lead&& lead, Trail&& trail) {
        FieldThreads state;
        std::thread leader;
        try {
            leader = std::thread([&] { state.lead_all(count, lead); });
        } catch (...) {
            state.lead_all(count, lead);
        }
        state.trail_all(trail);
        if (leader.joinable()) {
            leader.join();
        }
        if (state.trail_error_) {
            std::rethrow_exception(state.trail_error_);
        }
        if (state.lead_error_) {
            std::rethrow_exception(state.lead_error_);
        }
    }

private:
    template <class Lead>
    void lead_all(std::size_t count, Lead& lead) {
        std::size_t index = 0;
        try {
            while (index < count) {
                const std::size_t end = count - index < column_batch ? count : index + column_batch;
                lead(index, end);
                publish(index, index == count);
            }
        } catch (...) {
            lead_error_ = std::current_exception();
            publish(index, true);
        }
    }

    template <class Trail>
    void trail_all(Trail& trail) {
        std::size_t index = 0;
        try {
            while (true) {
                const std::size_t ready = wait_beyond(index);
                if (ready == index) {
                    return;
                }
                trail(index, ready);
            }
        } catch (...) {
            trail_error_ = std::current_exception();
        }
    }

    // Records [0, done) are the leading fields' now; `last`: no more will be.
    // The store orders this thread's writes to those records before the
    // trailing thread's reads of them.
    void publish(std::size_t done, bool last) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopped_ = last;
        }
        // Sequentially consistent, as wait_beyond's store of waiting_ and load
        // of done_: one of the two threads sees the other's store, so a
        // sleeping trailer is always woken.
        done_.store(done);
        if (waiting_.load()) {
            std::lock_guard<std::mutex> lock(mutex_);
            ready_.notify_one();
        }
    }

    // The records the leading thread has finished, once more than `index`
    // or once it has stopped. Spins briefly (a batch takes tens of
    // microseconds), then sleeps until publish() wakes it.
    std::size_t wait_beyond(std::size_t index) {
        for (unsigned spin = 0; spin < 1024; ++spin) {
            const std::size_t done = done_.load(std::memory_order_acquire);
            if (done > index) {
                return done;
            }
        }
        std::unique_lock<std::mutex> lock(mutex_);
        waiting_.store(true);
        ready_.wait(lock, [&] { return done_.load() > index || stopped_; });
        waiting_.store(false);
        return done_.load();
    }

    std::atomic<std::size_t> done_{0};
    std::atomic<bool> waiting_{false};
    std::mutex mutex_;
    std::condition_variable ready_;
    bool stopped_ = false;  // under mutex_
    std::exception_ptr lead_error_;
    std::exception_ptr trail_error_;
};

}  // namespace tcgen_runtime
