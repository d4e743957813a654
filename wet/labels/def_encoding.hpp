#pragma once
// How a def is kept in a load's LoadDefs label (label_store.hpp), for the
// builder that encodes it, the saved form's checks and the queries that
// decode it: the fields' values, the store executions a def may be among,
// and the value a def predicts for its load.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace tcgen::wet::def_encoding {

// The executions of store node `store` that ran before load node `load`
// executed at t are those at timestamps below the returned one: a store in
// the same block execution runs before the load when its id is lower (ids
// follow execution order within a block, docs/wet-streams.md).
inline std::uint64_t store_horizon(std::uint32_t store, std::uint32_t load, std::uint32_t t) {
    return store < load ? std::uint64_t{t} + 1 : t;
}

// A def's second field: 0 when the def is inferred from the addresses (the
// latest execution of the store node before the load whose bytes cover the
// load's first byte: LabelStore::inferred_def); else 1 + its
// rank when below ranked_defs, else 1 + ranked_defs + t_use - t_def (or
// 1 + the rank, if that sum would not fit). A distance is at least the rank
// (each execution of the store has its own timestamp), so the two ranges
// never meet.
constexpr std::uint32_t inferred_field2 = 0;
constexpr std::uint32_t ranked_defs = 64;
constexpr std::uint32_t first_rank = 1;
constexpr std::uint32_t first_distance = first_rank + ranked_defs;

inline std::uint32_t encode_def(std::uint64_t rank, std::uint32_t distance) {
    const bool ranked = rank < ranked_defs || distance > UINT32_MAX - first_distance;
    return ranked ? first_rank + static_cast<std::uint32_t>(rank) : first_distance + distance;
}

// Stores wider than this are never inferred from (build looks up each
// possible start address of a store that covers the load's first byte).
constexpr std::uint16_t widest_inferred_store = 64;

// A def's first field: 0 none; 1 the latest write among its load's writers
// (load_writers below) that covers the load's first byte, its second
// field 0; else 2 + its store node, and the second field as above.
constexpr std::uint32_t by_writers_field1 = 1;
constexpr std::uint32_t first_def_store = 2;
// A load with more writers keeps its store node with each def: a reader
// asks every writer for each def it finds among them.
constexpr std::size_t max_load_writers = 32;

// Whether a store of `size` bytes at `store_address` wrote the byte at `address`.
inline bool covers(std::uint64_t store_address, std::uint64_t size, std::uint64_t address) {
    return address >= store_address && address - store_address < size;
}

// A load's value as its def wrote it: the load's bytes (its first
// min(size, 8)) taken from the store's recorded value (the store's first
// min(size, 8) bytes) when they all lie within it, else 0 (unknown). A load
// with defs keeps its values XOR this prediction: a load that reads back what
// its def wrote keeps a 0 (most do).
inline std::uint64_t value_from_def(std::uint64_t store_value, std::uint64_t store_address, std::uint16_t store_size,
                             std::uint64_t load_address, std::uint16_t load_size) {
    const std::uint64_t stored = std::min<std::uint16_t>(store_size, 8);
    const std::uint64_t loaded = std::min<std::uint16_t>(load_size, 8);
    if (load_address < store_address || load_address - store_address >= stored ||
        loaded > stored - (load_address - store_address)) {
        return 0;
    }
    const std::uint64_t value = store_value >> (8 * (load_address - store_address));
    return loaded == 8 ? value : value & ((std::uint64_t{1} << (8 * loaded)) - 1);
}

}  // namespace tcgen::wet::def_encoding
