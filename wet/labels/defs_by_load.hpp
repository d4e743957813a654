#pragma once
// Each edge's def as a load's labels keep it: its LoadDefs record and the
// load's predicted value (the value its def stored, as the load reads it).
// They are made a store node at a time, as the defs' inference walks the
// stores, and read a load node at a time, as the node labels are made, so
// they go through a temporary file beside the events' when those are in one
// (node_runs.hpp; 20 bytes an edge), else through memory. Each load's
// edges are written as one run per store, each in time order, and merged
// into time order as they are read: a load's defs are never held whole.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/wet/load_defs.hpp>
#include "wet/labels/node_runs.hpp"

namespace tcgen::wet {

struct EdgeDef {
    std::uint32_t t_use = 0;  // the load's execution
    LoadDefs::Record record{0, 0};
    std::uint64_t predicted = 0;
};

// A def's 20 bytes in the temporary file: t_use (4), field1 (4), field2
// (4), predicted (8), in this machine's order.
struct EdgeDefCodec {
    using Record = EdgeDef;
    static constexpr std::size_t bytes = 20;
    static void encode(const EdgeDef& def, std::uint8_t* record) {
        std::memcpy(record, &def.t_use, 4);
        std::memcpy(record + 4, &def.record.field1, 4);
        std::memcpy(record + 8, &def.record.field2, 4);
        std::memcpy(record + 12, &def.predicted, 8);
    }
    static EdgeDef decode(const std::uint8_t* record) {
        EdgeDef def;
        std::memcpy(&def.t_use, record, 4);
        std::memcpy(&def.record.field1, record + 4, 4);
        std::memcpy(&def.record.field2, record + 8, 4);
        std::memcpy(&def.predicted, record + 12, 8);
        return def;
    }
};

class DefsByLoad {
public:
    // first[n] .. first[n + 1] - 1: load node n's places; a temporary file
    // of `temporaries`, or memory when it names none.
    DefsByLoad(std::vector<std::uint64_t> first, const BuildTemporaries& temporaries)
        : runs_(std::move(first), temporaries, "defs", "the defs grouped by load", "defs"),
          last_store_(runs_.nodes(), ~0U) {}

    // The next defs of store node `store`'s edges, each with its load node,
    // each load's in time order: a store's defs come in one or several
    // pieces, one after the other (not between another store's).
    void add_store(std::uint32_t store, std::vector<std::pair<std::uint32_t, EdgeDef>>& defs);
    // Every store added.
    void finish() { runs_.check_full(); }

    std::uint64_t count(std::size_t load) const { return runs_.count(load); }
    // Load node `load`'s defs of its executions at t_first .. t_last, in time order.
    std::vector<EdgeDef> read(std::size_t load, std::uint32_t t_first, std::uint32_t t_last) const;

private:
    NodeRuns<EdgeDefCodec> runs_;
    std::vector<std::uint32_t> last_store_;  // per load, the store of its latest defs
};

}  // namespace tcgen::wet
