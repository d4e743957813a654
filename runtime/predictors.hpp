#pragma once
// The building blocks of the generated predictors (TCgen paper §3, §5.3). The
// generated code composes them per field; they are small enough to inline
// into every call site.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "runtime/zeroed_memory.hpp"

namespace tcgen_runtime {

// A predictor table that starts zeroed, as the paper's tables do
// (zeroed_memory.hpp: pages zeroed lazily, when first touched).
template <class T>
class ZeroedTable {
public:
    // `size` entries; T may be a struct of lines (a field's context), whose
    // alignment the memory keeps.
    explicit ZeroedTable(std::size_t size) : memory_(bytes_of(size), alignof(T)), size_(size) {}

    // The line at `index`. With `marks` its pages are marked as touched
    // (ZeroedMemory::mark), for a restart that clears only those: the
    // generated code takes every line it writes with marks where the file has
    // small restart groups (clear_touched_pages_only), and without them, in
    // another instantiation of the same code, elsewhere.
    template <bool marks = false>
    T* line(std::size_t index, std::size_t entries_per_line) {
        const std::size_t first = index * entries_per_line;
        if constexpr (marks) {
            memory_.mark(first * sizeof(T), entries_per_line * sizeof(T));
        }
        return entries() + first;
    }

    // Back to all zeros, as when the predictors restart.
    void clear() { memory_.clear(); }

    // Zeroes its first `count` entries, in place: a table filled in order
    // empties only what it wrote.
    void clear_first(std::size_t count) { memory_.clear_first(std::min(count, size_) * sizeof(T)); }

    // Whether clear() zeroes only the pages of the lines taken with marks
    // since the last clear (zeroed_memory.hpp): for a file with restart
    // points. Switching it on empties the table.
    void clear_touched_pages_only(bool on) { memory_.clear_touched_pages_only(on); }

    // The memory beneath, for tests: its pages' marks.
    const ZeroedMemory& memory() const { return memory_; }

private:
    static std::size_t bytes_of(std::size_t size) {
        if (size > ~std::size_t{0} / sizeof(T)) {
            throw std::bad_alloc();
        }
        return size * sizeof(T);
    }

    T* entries() const { return static_cast<T*>(memory_.data()); }

    ZeroedMemory memory_;
    std::size_t size_;
};

// The window of a MATCH predictor (tcgen's own kind: LZ77's match turned
// into a prediction). It keeps the field's last `size` values in trace order
// and, per hashed key, where the value after the key's last occurrence sits;
// the key is the field's last `order` values and the PC's L1 line. While a
// match is followed it predicts the value after the followed one, and while
// those predictions come true it follows the earlier occurrence value by
// value: a repeat of any length, however far back it began, costs one
// lookup, which a context of a few values cannot tell apart from its other
// occurrences.
//
// A match starts where the record's code names this prediction while none
// is followed (start()). Only the encoder looks the key up before it knows
// the value (its role, search()): to learn whether the prediction is right.
// The decoder looks it up only where the code says a match starts, so a
// record that continues a match, or whose value came from elsewhere, waits
// on no lookup; both hash and store every record's key, so that its entry
// always names the latest occurrence. Values go in from position 1, so that
// a key never seen (whose entry is still 0) predicts 0, as the paper's
// zeroed tables do. Positions wrap at 2^32 and the window at `size`: an
// entry that old merely predicts a stale value, the same one in the
// compressor and decompressor.
//
// The order is a template argument, so that the key's hash and the shift of
// its values are unrolled and inlined into the generated fields' code: with
// a run-time order they were loops that g++ called out of line, a fifth of
// decoding a MATCH spec's load values (docs/design/log.md, "Contexts in one
// cache line").
template <class T, unsigned order>
class MatchTable {
public:
    static_assert(order >= 1, "a MATCH key holds at least one value");

    // `size`: a power of two, the window's values and the key table's lines.
    explicit MatchTable(std::size_t size) : window_(size), starts_(size), mask_(size - 1) {
        while ((std::size_t{1} << key_bits_) < size) {
            ++key_bits_;
        }
    }

    // The encoder's role: from now on find() looks the key up wherever no
    // match is followed.
    void search() { searching_ = true; }

    // The predicted value's place in the window, for the record in `line`:
    // the followed occurrence's next value; where none is followed, the
    // encoder's lookup (the decoder's prediction then comes from start()).
    // With `marks` (ZeroedTable::line), the page of the key's entry, which
    // update() writes, is marked.
    template <bool marks = false>
    T* find(std::size_t line) {
        std::uint64_t key = (line + 1) * golden;
        for (unsigned i = 0; i < order; ++i) {
            key = (key ^ recent_[i]) * golden;
        }
        key_ = key_bits_ == 0 ? 0 : static_cast<std::size_t>(key >> (64 - key_bits_));
        if constexpr (marks) {
            starts_.template line<true>(key_, 1);  // the entry update() writes
        }
        if (following_ || !searching_) {
            return at(candidate_);
        }
        return at(latest());
    }

    // Where the record's code names this prediction: unless a match is
    // followed, one starts at the key's latest occurrence. Returns the
    // predicted value.
    T start() {
        if (!following_) {
            candidate_ = latest();
            following_ = true;
        }
        return *at(candidate_);
    }

    // Where no code names this prediction (a record that a run copied, which
    // the fields learn): unless a match is followed, one starts at the key's
    // latest occurrence if that predicted `value`. Both sides know the value
    // then, so both look the key up.
    void start_if_right(T value) {
        if (!following_ && *at(latest()) == value) {
            candidate_ = latest();
            following_ = true;
        }
    }

    // Learns the value the record had (after find(), which marked the
    // key's page).
    void update(T value) {
        if (following_) {
            following_ = *at(candidate_) == value;
            candidate_ += 1;
        }
        starts_.line(key_, 1)[0] = static_cast<std::uint32_t>(position_);
        *window_.line(position_ & mask_, 1) = value;  // clear() knows where values went
        position_ += 1;
        for (unsigned i = order - 1; i > 0; --i) {
            recent_[i] = recent_[i - 1];
        }
        recent_[0] = value;
    }

    // Whether clear() zeroes only what was written since the last clear:
    // the pages of the key table that find() marked (ZeroedTable), and the
    // window's values from the first to the last written, which went in in
    // order; the key's few values are always cleared whole. Switching it on
    // empties the window.
    void clear_touched_pages_only(bool on) {
        starts_.clear_touched_pages_only(on);
        if (on != clears_written_only_) {
            window_.clear();
            clears_written_only_ = on;
        }
        clear();
    }

    // Back to an empty window, as when the predictors restart (the role
    // stays).
    void clear() {
        if (clears_written_only_) {
            window_.clear_first(static_cast<std::size_t>(std::min<std::uint64_t>(position_, mask_ + 1)));
        } else {
            window_.clear();
        }
        starts_.clear();
        std::fill(recent_.begin(), recent_.end(), T{0});
        position_ = 1;
        candidate_ = 0;
        key_ = 0;
        following_ = false;
    }

private:
    static constexpr std::uint64_t golden = 0x9E3779B97F4A7C15;  // 2^64 / the golden ratio, odd

    // Where the value after the key's latest occurrence sits.
    std::uint32_t latest() { return starts_.line(key_, 1)[0]; }

    // The window's value at `position`, to be read.
    T* at(std::uint32_t position) { return window_.line(position & mask_, 1); }

    ZeroedTable<T> window_;
    ZeroedTable<std::uint32_t> starts_;
    std::array<T, order> recent_{};  // the key's values, newest first
    std::size_t mask_;
    unsigned key_bits_ = 0;
    bool searching_ = false;
    bool clears_written_only_ = false;
    // Where the next value goes: since the last clear, values 1 to
    // position_ - 1 went in (positions wrap at 2^32 where they are stored).
    std::uint64_t position_ = 1;
    std::uint32_t candidate_ = 0;  // the followed occurrence's next value
    std::size_t key_ = 0;
    bool following_ = false;
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
