#pragma once
// The bidirectional form of each predictor kind of the spec language (WET
// paper §4.1, §4.3): one half of a stream, predicting a value from its
// context on one side, n values nearest first. Each half has its own table
// (FRTB or BLTB in the paper).
//
// Coding a value (encode) and its exact undoing (decode) are one pair: decode
// takes the table back to the state it had before the matching encode, so a
// walk that turns round finds the tables as they were. The paper's Fig. 9
// loses that property: a miss overwrites the table entry and nothing keeps
// the entry it overwrote. Here a miss keeps the *displaced* entry in the
// stream instead of the value, and the value is the one now in the table;
// decoding puts the displaced entry back. A hit moves the matching entry to
// the front of its line, which its slot number undoes.
//
// A miss's payload is a difference, zigzag-coded so that small ones of either
// sign have few significant bits: for FCM and DFCM the displaced entry minus
// the entry that replaced it (neighbours in one line tend to be close: nearby
// addresses, similar strides), for LV the value minus its nearest neighbour.
//
// Symbols: 0..entries-1 a hit on that slot; then a miss for each payload
// size, in 4-bit steps (class c: a payload of 4c bits; class 0, a zero
// payload, has none), so that the prefix code learns the sizes; then a run
// of slot-0 hits (symbol_coder.hpp).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "runtime/zeroed_memory.hpp"

namespace tcgen_runtime::bidirectional {

// The kinds, one traits type each; a predictor reads only its kind's
// traits, so a new kind is one more type here and one row of Kind.
namespace kinds {

// LV[n]: the n values nearest, no table; a miss codes the value against the
// nearest.
struct LastValue {
    static constexpr std::string_view spec_name = "LV";
    static constexpr bool has_table = false;
    // Whether the spec writes an order after the name (FCM3).
    static constexpr bool has_order = false;
    // How many neighbours a prediction reads.
    static constexpr unsigned window(unsigned /*order*/, unsigned entries) { return entries; }
};

// FCMx[n]: a table of values indexed by a hash of the x nearest.
struct Fcm {
    static constexpr std::string_view spec_name = "FCM";
    static constexpr bool has_table = true;
    static constexpr bool has_order = true;
    static constexpr unsigned window(unsigned order, unsigned /*entries*/) { return order; }
    // What a line holds for `value` after `context`, and back.
    template <class Value>
    static Value entry_of(Value value, const Value* /*context*/) {
        return value;
    }
    template <class Value>
    static Value value_of(Value entry, const Value* /*context*/) {
        return entry;
    }
    // Element i of the context the hash reads.
    template <class Value>
    static Value hashed(const Value* context, unsigned i) {
        return context[i];
    }
};

// DFCMx[n]: a table of strides indexed by a hash of the x strides between
// the x+1 nearest.
struct Dfcm {
    static constexpr std::string_view spec_name = "DFCM";
    static constexpr bool has_table = true;
    static constexpr bool has_order = true;
    static constexpr unsigned window(unsigned order, unsigned /*entries*/) { return order + 1; }
    template <class Value>
    static Value entry_of(Value value, const Value* context) {
        return static_cast<Value>(value - context[0]);
    }
    template <class Value>
    static Value value_of(Value entry, const Value* context) {
        return static_cast<Value>(context[0] + entry);
    }
    template <class Value>
    static Value hashed(const Value* context, unsigned i) {
        return static_cast<Value>(context[i] - context[i + 1]);
    }
};

}  // namespace kinds

// The kinds by the names the generator's registry gives them
// (PredictorKind::bidirectional_kind): Kind::fcm.
struct Kind {
    using last_value = kinds::LastValue;
    using fcm = kinds::Fcm;
    using dfcm = kinds::Dfcm;
};

// A predictor of a spec: LV[entries], FCMorder[entries], DFCMorder[entries].
template <class Kind_, unsigned order_, unsigned entries_>
struct Candidate {
    using kind = Kind_;
    static constexpr unsigned order = order_;
    static constexpr unsigned entries = entries_;
    static constexpr unsigned window = kind::window(order, entries);
    static constexpr bool has_table = kind::has_table;
    static_assert(entries >= 1 && window >= 1, "a predictor predicts");
};

struct Symbols {
    constexpr Symbols(unsigned entries_, unsigned width)
        : entries(entries_), run(entries_ + width / 4 + 1), count(entries_ + width / 4 + 2) {}
    unsigned entries, run, count;

    constexpr bool is_miss(unsigned symbol) const { return symbol >= entries && symbol < run; }
    // The bits of a miss symbol's payload.
    constexpr unsigned payload_bits(unsigned symbol) const { return 4 * (symbol - entries); }
    // The miss symbol of a payload.
    constexpr unsigned miss(std::uint64_t payload) const {
        const unsigned bits = payload == 0 ? 0 : 64 - static_cast<unsigned>(__builtin_clzll(payload));
        return entries + (bits + 3) / 4;
    }
};

// Two's complement differences as small unsigned numbers: 0, -1, 1, -2, ...
template <class Value>
Value zigzag(Value difference) {
    constexpr unsigned top = sizeof(Value) * 8 - 1;
    return static_cast<Value>(static_cast<Value>(difference << 1) ^ static_cast<Value>(0 - (difference >> top)));
}

template <class Value>
Value unzigzag(Value coded) {
    return static_cast<Value>(static_cast<Value>(coded >> 1) ^ static_cast<Value>(0 - (coded & 1)));
}

template <class Value, class C>
class Predictor {
    static_assert(std::is_unsigned_v<Value>, "fields are unsigned");

public:
    static constexpr Symbols symbols{C::entries, sizeof(Value) * 8};

    Predictor() = default;
    explicit Predictor(unsigned table_bits) : table_bits_(C::has_table ? table_bits : 0) {
        if constexpr (C::has_table) {
            table_ = ZeroedMemory(table_bytes());
        }
    }

    unsigned table_bits() const { return table_bits_; }
    std::size_t line_count() const { return C::has_table ? std::size_t{1} << table_bits_ : 0; }
    std::size_t table_bytes() const { return line_count() * C::entries * sizeof(Value); }
    Value* line(std::size_t index) { return static_cast<Value*>(table_.data()) + index * C::entries; }
    const Value* line(std::size_t index) const { return static_cast<const Value*>(table_.data()) + index * C::entries; }

    // The symbol of `value` given its context; `payload` is set for a miss
    // (and is 0 for a miss of class 0).
    unsigned encode(Value value, const Value* context, Value& payload) {
        if constexpr (!C::has_table) {
            for (unsigned slot = 0; slot < C::entries; ++slot) {
                if (context[slot] == value) {
                    return slot;
                }
            }
            payload = zigzag(static_cast<Value>(value - context[0]));
            return symbols.miss(payload);
        } else {
            const Value target = C::kind::entry_of(value, context);
            Value* entries = line(line_index(context));
            for (unsigned slot = 0; slot < C::entries; ++slot) {
                if (entries[slot] == target) {
                    for (unsigned i = slot; i > 0; --i) {
                        entries[i] = entries[i - 1];
                    }
                    entries[0] = target;
                    return slot;
                }
            }
            payload = zigzag(static_cast<Value>(entries[C::entries - 1] - target));
            for (unsigned i = C::entries - 1; i > 0; --i) {
                entries[i] = entries[i - 1];
            }
            entries[0] = target;
            return symbols.miss(payload);
        }
    }

    // The value whose encode gave `symbol` (and `payload`, 0 for a miss of
    // class 0), undoing it.
    Value decode(unsigned symbol, Value payload, const Value* context) {
        if constexpr (!C::has_table) {
            return symbol < C::entries ? context[symbol] : static_cast<Value>(context[0] + unzigzag(payload));
        } else {
            Value* entries = line(line_index(context));
            const Value target = entries[0];
            if (symbol < C::entries) {
                for (unsigned i = 0; i < symbol; ++i) {
                    entries[i] = entries[i + 1];
                }
                entries[symbol] = target;
            } else {
                for (unsigned i = 0; i + 1 < C::entries; ++i) {
                    entries[i] = entries[i + 1];
                }
                entries[C::entries - 1] = static_cast<Value>(target + unzigzag(payload));
            }
            return C::kind::value_of(target, context);
        }
    }

    // Asks for the line the next value with this context will use, so that a
    // walk which keeps its direction finds it in cache.
    void prefetch(const Value* context) const {
        if constexpr (C::has_table) {
            __builtin_prefetch(line(line_index(context)));
        }
    }

private:
    // A multiplicative hash of the context (values for FCM, strides for
    // DFCM) to a line; the top bits of the product are the best mixed.
    std::size_t line_index(const Value* context) const {
        std::uint64_t hash = 0;
        for (unsigned i = 0; i < C::order; ++i) {
            const Value element = C::kind::hashed(context, i);
            hash = (hash ^ element) * 0x9E3779B97F4A7C15u;
            hash ^= hash >> 29;
        }
        hash *= 0xBF58476D1CE4E5B9u;
        return table_bits_ == 0 ? 0 : static_cast<std::size_t>(hash >> (64 - table_bits_));
    }

    unsigned table_bits_ = 0;
    ZeroedMemory table_;  // zeroed lazily: untouched lines cost no memory
};

}  // namespace tcgen_runtime::bidirectional
