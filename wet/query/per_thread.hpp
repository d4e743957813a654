#pragma once
// PerThread<State>: one State per thread that asks for one, so that an
// object whose queries move state (cursors, caches) can be queried from
// several threads at once without a lock around the queries.
//
// The first state is the constructing thread's; another thread's is made
// on its first get() by `fork`, which must read only what no query moves
// (the states share the object's immutable data and differ in what moves).
// A thread's state lives as long as the PerThread: a pool of threads that
// queries again and again pays for its states once. A thread that ends
// leaves its state to the next thread given the same id.
//
// get() costs a thread_local compare when a thread asks the same PerThread
// as last time (the common case: one object queried in a loop), else a
// short lock and a search of the states, one per thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace tcgen::wet {

template <class State>
class PerThread {
public:
    using Fork = std::function<std::unique_ptr<State>()>;

    PerThread(std::unique_ptr<State> first, Fork fork) : first_(first.get()), fork_(std::move(fork)) {
        states_.emplace_back(std::this_thread::get_id(), std::move(first));
    }
    PerThread(const PerThread&) = delete;
    PerThread& operator=(const PerThread&) = delete;

    // The calling thread's state.
    State& get() {
        // Keyed by serial, not by address: a PerThread made where a freed
        // one was is never taken for it.
        thread_local Last last;
        if (last.serial != serial_) {
            last = Last{serial_, &lookup()};
        }
        return *last.state;
    }

    // The first state: what a fork copies from, and what answers questions
    // that move nothing (read only its immutable parts from other threads).
    // (Held apart from states_, which another thread's first get() may move.)
    const State& first() const { return *first_; }

private:
    struct Last {
        std::uint64_t serial = 0;
        State* state = nullptr;
    };
    State& lookup() {
        const std::thread::id self = std::this_thread::get_id();
        const std::lock_guard<std::mutex> lock(mutex_);
        for (auto& [thread, state] : states_) {
            if (thread == self) {
                return *state;
            }
        }
        std::unique_ptr<State> state = fork_();
        State& made = *state;
        states_.emplace_back(self, std::move(state));
        return made;
    }
    static std::uint64_t next_serial() {
        static std::atomic<std::uint64_t> serial{0};
        return ++serial;
    }

    const std::uint64_t serial_ = next_serial();
    State* const first_;
    Fork fork_;
    std::mutex mutex_;  // around lookup() only: a thread's first get() and a switch between objects
    std::vector<std::pair<std::thread::id, std::unique_ptr<State>>> states_;
};

}  // namespace tcgen::wet
