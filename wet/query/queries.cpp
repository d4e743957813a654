// The `wet` command's composite queries (<tcgen/wet/queries.hpp>).

#include <tcgen/wet/queries.hpp>

#include <algorithm>
#include <cstddef>

#include "common/text_output.hpp"

namespace tcgen::wet {

namespace {

// The `count` rows of most executions, ties by pc, in that order.
void append_most_executed(std::vector<TopRow> rows, std::uint64_t count, std::vector<TopRow>& out) {
    const std::size_t shown = static_cast<std::size_t>(std::min<std::uint64_t>(count, rows.size()));
    std::partial_sort(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(shown), rows.end(),
                      [](const TopRow& a, const TopRow& b) {
                          return a.executions != b.executions ? a.executions > b.executions : a.pc < b.pc;
                      });
    out.insert(out.end(), rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(shown));
}

}  // namespace

std::vector<TopRow> top(const WholeExecutionTrace& wet, std::uint64_t count) {
    std::vector<TopRow> out;
    std::vector<TopRow> blocks;
    for (std::uint32_t id = 0; id < wet.block_count(); ++id) {
        if (const std::uint64_t executions = wet.block_executions(id)) {
            blocks.push_back({'B', executions, wet.block(id).pc, id});
        }
    }
    append_most_executed(std::move(blocks), count, out);
    for (const char access : {'L', 'S'}) {
        std::vector<std::uint64_t> pcs;
        for (std::uint32_t id = 0; id < wet.node_count(); ++id) {
            if (wet.node(id).access == access && wet.node_executions(id) != 0) {
                pcs.push_back(wet.node(id).pc);
            }
        }
        std::sort(pcs.begin(), pcs.end());
        pcs.erase(std::unique(pcs.begin(), pcs.end()), pcs.end());
        std::vector<TopRow> rows;
        for (const std::uint64_t pc : pcs) {
            rows.push_back({access, wet.instance_count(pc), pc, 0});  // an instruction's distinct timestamps
        }
        append_most_executed(std::move(rows), count, out);
    }
    return out;
}

QueryStart start_at(const WholeExecutionTrace& wet, std::uint64_t pc, std::uint64_t t, const std::string& option) {
    if (t == 0 || t > wet.executed()) {
        throw WetError(wet.name(), option + " is outside 1.." + std::to_string(wet.executed()));
    }
    QueryStart start;
    start.pc = pc;
    start.by_instance = false;
    start.t = static_cast<std::uint32_t>(t);
    return start;
}

std::vector<LoadDef> load_defs(const WholeExecutionTrace& wet, const QueryStart& start) {
    const std::vector<std::uint32_t> nodes = wet.nodes_at_pc(start.pc);
    if (nodes.empty()) {
        throw WetError(wet.name(), "no memory access has pc " + hex_text(start.pc));
    }
    if (std::none_of(nodes.begin(), nodes.end(), [&](std::uint32_t node) { return wet.node(node).access == 'L'; })) {
        throw WetError(wet.name(), "pc " + hex_text(start.pc) +
                                       " is a store; a def is the store that a load read from: give a load's pc");
    }
    const std::uint32_t t = start.by_instance ? wet.instance_time(start.pc, start.instance) : start.t;
    std::vector<std::uint32_t> loads;
    for (const std::uint32_t node : nodes) {
        if (wet.node(node).access == 'L' && wet.executed_at(node, t)) {
            loads.push_back(node);
        }
    }
    if (loads.empty()) {
        throw WetError(wet.name(),
                       "no load of pc " + hex_text(start.pc) + " executed at timestamp " + std::to_string(t));
    }
    std::sort(loads.begin(), loads.end(),
              [&](std::uint32_t a, std::uint32_t b) { return wet.node(a).slot < wet.node(b).slot; });
    std::vector<LoadDef> defs;
    for (const std::uint32_t node : loads) {
        defs.push_back({t, wet.node(node).slot, wet.def_of(node, t)});
    }
    return defs;
}

WholeExecutionTrace::SliceWalk slice_walk(const WholeExecutionTrace& wet, const QueryStart& start,
                                          const SliceWindow& window) {
    return start.by_instance ? wet.slice_walk(start.pc, start.instance, window)
                             : wet.slice_walk_at(start.pc, start.t, window);
}

}  // namespace tcgen::wet
