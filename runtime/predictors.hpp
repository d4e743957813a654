#pragma once
// The building blocks of the generated predictors (TCgen paper §3, §5.3). The
// generated code composes them per field; they are small enough to inline
// into every call site.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace tcgen_runtime {

// A predictor table that starts zeroed, as the paper's tables do. calloc lets
// the operating system hand out zero pages lazily, so a large table that a
// trace touches sparsely costs neither start-up time nor resident memory.
template <class T>
class ZeroedTable {
public:
    explicit ZeroedTable(std::size_t size) : entries_(static_cast<T*>(std::calloc(size, sizeof(T)))), size_(size) {
        if (entries_ == nullptr && size > 0) {
            throw std::bad_alloc();
        }
    }
    ~ZeroedTable() { std::free(entries_); }
    ZeroedTable(const ZeroedTable&) = delete;
    ZeroedTable& operator=(const ZeroedTable&) = delete;

    T* line(std::size_t index, std::size_t entries_per_line) { return entries_ + index * entries_per_line; }

    // Back to all zeros, as when the predictors restart.
    void clear() {
        if (size_ > 0) {
            std::memset(entries_, 0, size_ * sizeof(T));
        }
    }

private:
    T* entries_;
    std::size_t size_;
};

// Field arithmetic wraps at the field's width, like the hardware it models;
// the casts undo C++'s promotion of narrow types to int.
template <class T>
T wrapping_add(T a, T b) {
    return static_cast<T>(a + b);
}

template <class T>
T wrapping_subtract(T a, T b) {
    return static_cast<T>(a - b);
}

// Shifts a line's entries one slot towards the end, dropping the last, and
// puts the value first: how histories always update, and how every line
// updates without smart update.
template <std::size_t entries, class T>
void push_front(T* line, T value) {
    for (std::size_t i = entries - 1; i > 0; --i) {
        line[i] = line[i - 1];
    }
    line[0] = value;
}

// The smart update of §5.3: a line changes only when the new value differs
// from its first entry, so that its first two entries always differ. (The
// generated code overwrites one-entry lines directly, without the test.)
template <std::size_t entries, class T>
void smart_update(T* line, T value) {
    if (line[0] != value) {
        push_front<entries>(line, value);
    }
}

// Asks the cache for the line holding `entry` before it is read: a hint,
// which changes no result. The second-level lines a value is predicted from
// are found by hashing the values before it, so they are random accesses to
// tables of megabytes; prefetched as soon as the hash is known, their misses
// overlap with the rest of the record's work instead of stalling it.
template <class T>
void prefetch(const T* entry) {
    __builtin_prefetch(entry);
}

// The lowest slot whose prediction equals the value, or `slots` (the miss
// code) when none does.
template <std::size_t slots, class T>
unsigned find_prediction(const T (&predictions)[slots], T value) {
    for (std::size_t slot = 0; slot < slots; ++slot) {
        if (predictions[slot] == value) {
            return static_cast<unsigned>(slot);
        }
    }
    return static_cast<unsigned>(slots);
}

// One step of the incremental select-fold-shift-xor hash: the order-k index
// from the order-(k-1) index of the previous value and the folded new value.
template <class T>
T next_hash(std::uint64_t previous, std::uint64_t folded, unsigned shift, std::uint64_t mask) {
    return static_cast<T>(((previous << shift) ^ folded) & mask);
}

}  // namespace tcgen_runtime
