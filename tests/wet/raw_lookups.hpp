#pragma once
// What the tests' naive references look up in a raw trace: which node
// executions happened, each load execution's def, and each timestamp's
// control parent, straight from the raw records.

#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "wet/dependences/control_dependence.hpp"

namespace raw_lookups {

using NodeAt = std::pair<std::uint32_t, std::uint32_t>;  // (node, t)

inline std::set<NodeAt> executed(const tcgen::wet::RawTrace& raw) {
    std::set<NodeAt> pairs;
    for (const auto& event : raw.events) {
        pairs.insert({event.node, event.t});
    }
    return pairs;
}

// (use node, t_use) -> (def node, t_def).
inline std::map<NodeAt, NodeAt> defs(const tcgen::wet::RawTrace& raw) {
    std::map<NodeAt, NodeAt> def;
    for (const auto& edge : raw.edges) {
        def[{edge.use, edge.t_use}] = {edge.def, edge.t_def};
    }
    return def;
}

// Per timestamp t, at t - 1: the timestamp of its control parent, 0 for none.
inline std::vector<std::uint32_t> control_parents(const tcgen::wet::RawTrace& raw) {
    std::vector<tcgen::wet::BlockShape> shapes;
    for (const auto& block : raw.blocks) {
        shapes.push_back({block.pc, block.bytes, block.end});
    }
    return tcgen::wet::dynamic_control_parents(shapes, raw.flow.data(), raw.flow.size());
}

}  // namespace raw_lookups
