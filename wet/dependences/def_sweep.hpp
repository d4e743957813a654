#pragma once
// DefSweep: every def of one load found in one pass through time, rather
// than one search per execution (LabelStore::searched_def). The load's
// executions, in time order, are merged with the executions of the stores
// its defs name; each store kept inferred from keeps, per start address,
// its latest execution so far, so an inferred def (the latest write before
// the load that covers its first byte, label_store.hpp) is a few table
// probes, and a rank is a count the merge already holds. Each store's
// timestamps and addresses are decoded once, sequentially, not sought
// execution by execution (a seek may decode a whole shared frame).
//
// The sweep sees only arrays: LabelStore decodes them and keeps the result
// (SweptDefs) for later lookups. An execution whose def the sweep cannot
// find (a def no store wrote, a rank beyond the store's executions: a
// corrupt file) is marked unresolved; the caller asks the per-execution
// search, which names the problem.

#include <cstdint>
#include <vector>

namespace tcgen::wet {

class DefSweep {
public:
    // What a sweep needs to know of a store's addresses, found once per
    // store (for every sweep of every load it writes for): every address
    // is a multiple of `alignment` (a power of two, at most 64) and lies in
    // [lowest, highest].
    struct AddressRange {
        std::uint64_t alignment = 1;
        std::uint64_t lowest = 0;
        std::uint64_t highest = 0;
        static AddressRange of(const std::vector<std::uint64_t>& addresses);
    };
    // A store node the load's defs name, with its executions' timestamps
    // (increasing) and addresses, and AddressRange::of(*addresses).
    struct Store {
        std::uint32_t node;
        std::uint16_t size;
        const std::vector<std::uint32_t>* times;
        const std::vector<std::uint64_t>* addresses;
        AddressRange range;
    };
    // One execution's def as its LoadDefs record keeps it, with the store
    // as an index into the stores given (def_encoding.hpp for the fields).
    enum class Kept : std::uint8_t {
        none,       // no def
        writers,    // the latest covering write among the load's writers
        inferred,   // the latest covering write of `store`
        rank,       // `amount` executions back from the store's latest before the load
        distance,   // the store's execution at t - `amount`
        unresolved  // a record that names no store that ran: the search reports it
    };
    struct Record {
        Kept kept;
        std::uint16_t store;
        std::uint32_t amount;
    };
    // The def of each execution: `store` is 1 + the store's index, 0 no
    // def, `unresolved`; `execution` its execution and `t` its timestamp.
    static constexpr std::uint16_t no_def = 0;
    static constexpr std::uint16_t unresolved = 0xFFFF;
    static constexpr std::size_t max_stores = unresolved - 1;
    struct Result {
        std::vector<std::uint16_t> store;
        std::vector<std::uint32_t> execution;
        std::vector<std::uint32_t> t;
    };

    // `load`: the load's node; `times`, `addresses`, `records`: per
    // execution of the load, its timestamp (increasing), address and def;
    // `writers`: the load's writers, as indexes into `stores`.
    static Result run(std::uint32_t load, const std::vector<std::uint32_t>& times,
                      const std::vector<std::uint64_t>& addresses, const std::vector<Record>& records,
                      const std::vector<Store>& stores, const std::vector<std::uint16_t>& writers);
};

// A load's defs as a sweep found them, kept for lookups (a slice asks for
// a load's defs one at a time, latest first): per execution the def's
// store, as an index into `stores` plus 1, and its timestamp, 6 bytes.
struct SweptDefs {
    std::vector<std::uint32_t> stores;  // store nodes
    std::vector<std::uint16_t> store;   // per execution: DefSweep::Result::store
    std::vector<std::uint32_t> t;
    std::size_t memory_bytes() const { return 4 * stores.capacity() + 2 * store.capacity() + 4 * t.capacity(); }
};

}  // namespace tcgen::wet
