#pragma once
// The defs' questions of a raw trace (asks_by_node.hpp), made from its
// edges and its loads' addresses before anything else of the labels is
// built, so that the edges (16 bytes each) are freed before the control
// flow's tables are made beside them; with them, what the inference and
// the labels need to know of the edges afterwards.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>
#include "wet/format/raw_edges.hpp"
#include "wet/labels/asks_by_node.hpp"
#include "wet/labels/events_by_node.hpp"

namespace tcgen::wet {

struct DefQuestions {
    std::size_t edge_count = 0;
    std::string edges_name;  // the edges' file, for the refusals of the build
    // Per load node, its writers: the store nodes its defs name, sorted,
    // when there are 2 to max_load_writers of them and each can be inferred
    // from (its size at most widest_inferred_store); else none.
    std::vector<std::vector<std::uint32_t>> writers;
    // Load node n's edges are load_first[n] .. load_first[n + 1] - 1.
    std::vector<std::uint64_t> load_first;
    // Each edge asks its own store node, under which it is kept, or, when
    // its load has writers, each of them (which include its own): kept under
    // its load then. Through a temporary file beside the events' when they
    // are in one; under each node, a run a load, in time order.
    std::unique_ptr<AsksByNode> asks;
    // Per store node, the loads it is a writer of.
    std::vector<std::vector<std::uint32_t>> written_by;
};

// `edges` (a checked raw trace's, of nodes `nodes`) asked, then freed
// (when held); walked three times, never held whole here.
DefQuestions ask_defs(const std::vector<RawNode>& nodes, RawEdges edges, const EventsByNode& events);

}  // namespace tcgen::wet
