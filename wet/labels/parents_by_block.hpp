#pragma once
// The blocks' control parents grouped by block: each timestamp's distance
// back to its dynamic control parent (a ControlParents record: t, the
// whole of t, when it has none), made in time order as the control
// dependences are found and read a block at a time as its label is made.
// They go through a temporary file beside the events' when those are in one
// (node_runs.hpp; 4 bytes a timestamp), else through memory: the build
// never holds a parent per timestamp.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/wet/control_parents.hpp>
#include "wet/flow/flow_pass.hpp"
#include "wet/labels/node_runs.hpp"

namespace tcgen::wet {

// A record's 4 bytes in the temporary file, in this machine's order.
struct ControlParentCodec {
    using Record = ControlParents::Record;
    static constexpr std::size_t bytes = 4;
    static void encode(const Record& record, std::uint8_t* bytes_out) { std::memcpy(bytes_out, &record.field1, 4); }
    static Record decode(const std::uint8_t* bytes_in) {
        Record record{0};
        std::memcpy(&record.field1, bytes_in, 4);
        return record;
    }
};

using ParentsByBlock = NodeRuns<ControlParentCodec>;

struct GroupedParents {
    ParentsByBlock by_block;
    std::uint64_t dependences = 0;  // timestamps with a parent
};

// The parents that each_parent(visit) finds (visit(t, block, parent) for t
// = 1 .. executed in order, `block` the one executed at t, parent 0 for
// none), grouped by block, in a temporary file of `temporaries` (in memory when it names none);
// `flow` (of `blocks` blocks) is walked once first for the blocks' counts.
// A parent not before its t, or not one per timestamp, is refused in one
// line naming `name`.
template <class EachParent>
GroupedParents group_parents(const FlowPass& flow, std::uint64_t executed, std::size_t blocks,
                             const BuildTemporaries& temporaries, const EachParent& each_parent,
                             const std::string& name) {
    std::vector<std::uint64_t> executions(blocks, 0);
    each_block(flow, [&](std::uint64_t, std::uint32_t block) {
        if (block >= blocks) {
            throw WetError(name, "control dependences: the flow changed while it was read");
        }
        ++executions[block];
    });
    GroupedParents parents{ParentsByBlock(node_places(executions), temporaries, "parents",
                                          "the control parents grouped by block", "control parents"),
                           0};
    // Pieces as large as the events': fewer, longer writes of each block's run.
    constexpr std::size_t piece_records = std::size_t{1} << 18;
    std::vector<std::pair<std::uint32_t, ControlParents::Record>> piece;
    std::uint64_t next_t = 1;
    each_parent([&](std::uint32_t t, std::uint32_t block, std::uint32_t parent) {
        if (t != next_t || t > executed) {
            throw WetError(name, "control dependences: not one parent per timestamp");
        }
        if (parent >= t) {
            throw WetError(name, "control dependences: the parent of t " + std::to_string(t) + " is not before it");
        }
        ++next_t;
        parents.dependences += parent != 0 ? 1 : 0;
        piece.emplace_back(block, ControlParents::Record{t - parent});
        if (piece.size() >= piece_records) {
            parents.by_block.add(piece);
            piece.clear();
        }
    });
    if (next_t != executed + 1) {
        throw WetError(name, "control dependences: not one parent per timestamp");
    }
    parents.by_block.add(piece);
    parents.by_block.check_full();
    return parents;
}

}  // namespace tcgen::wet
