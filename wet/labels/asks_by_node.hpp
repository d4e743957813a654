#pragma once
// The questions of the defs' inference, one an edge, grouped by node: an
// edge asks its own store (the def it names) or, when its load has
// writers, each of them (LabelStore's build, find_defs); it is kept under
// its store in the first case and under its load in the second, where
// every writer reads it. They are made a load node at a time, where an
// edge meets its load's address (def_questions.hpp), and read a node at a
// time, as the inference walks each store's executions, so they go through
// a temporary file beside the events' when those are in one
// (node_runs.hpp; 28 bytes an edge), else through memory: the edges
// themselves are not needed once asked.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "wet/labels/node_runs.hpp"

namespace tcgen::wet {

// An edge, as the store nodes it asks see it.
struct DefAsk {
    std::uint32_t edge = 0;  // its index among the raw edges
    std::uint32_t use = 0;   // the load node
    std::uint32_t t_use = 0;
    std::uint32_t def = 0;   // the store node it names
    std::uint32_t t_def = 0;
    std::uint64_t address = 0;  // the load's
};

// An ask's 28 bytes in the temporary file: edge, use, t_use, def, t_def (4
// each), address (8), in this machine's order.
struct DefAskCodec {
    using Record = DefAsk;
    static constexpr std::size_t bytes = 28;
    static void encode(const DefAsk& ask, std::uint8_t* record) {
        std::memcpy(record, &ask.edge, 4);
        std::memcpy(record + 4, &ask.use, 4);
        std::memcpy(record + 8, &ask.t_use, 4);
        std::memcpy(record + 12, &ask.def, 4);
        std::memcpy(record + 16, &ask.t_def, 4);
        std::memcpy(record + 20, &ask.address, 8);
    }
    static DefAsk decode(const std::uint8_t* record) {
        DefAsk ask;
        std::memcpy(&ask.edge, record, 4);
        std::memcpy(&ask.use, record + 4, 4);
        std::memcpy(&ask.t_use, record + 8, 4);
        std::memcpy(&ask.def, record + 12, 4);
        std::memcpy(&ask.t_def, record + 16, 4);
        std::memcpy(&ask.address, record + 20, 8);
        return ask;
    }
};

using AsksByNode = NodeRuns<DefAskCodec>;

// The asks kept under each node, counts[n] of them under node n: in a
// temporary file of `temporaries` ("asks" in its name), or in memory when it
// names none.
inline std::unique_ptr<AsksByNode> make_asks_by_node(const std::vector<std::uint64_t>& counts,
                                                     const BuildTemporaries& temporaries) {
    return std::make_unique<AsksByNode>(node_places(counts), temporaries, "asks",
                                        "the defs' questions grouped by store", "questions");
}

}  // namespace tcgen::wet
