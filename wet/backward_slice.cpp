// The backward dynamic slice (docs/wet.md, "Slices"). Items are visited in
// decreasing timestamp order (at one t: the block's branch first, then the
// nodes by decreasing id), which every dependence respects: a def, a control
// parent and a branch's own parent lie at an earlier t; the loads a store or
// a branch depends on in the same block execution have smaller ids. So every
// stream cursor the slice uses only walks backward, and the whole slice
// costs one backward walk over the streams it touches at most.

#include <tcgen/wet/whole_execution_trace.hpp>

#include <algorithm>
#include <queue>
#include <optional>
#include <string>

#include "label_store.hpp"

namespace tcgen::wet {
namespace {

constexpr std::uint32_t branch_id = 0xFFFFFFFFu;  // a block item's place in an item key

std::uint64_t item_key(std::uint32_t t, std::uint32_t id) {
    return (static_cast<std::uint64_t>(t) << 32) | id;
}

std::string item_name(std::uint64_t key) {
    const auto t = std::to_string(key >> 32);
    const auto id = static_cast<std::uint32_t>(key);
    return id == branch_id ? "the branch at t " + t : "node " + std::to_string(id) + " at t " + t;
}

}  // namespace

std::vector<SliceItem> WholeExecutionTrace::backward_slice(std::uint64_t pc, std::uint64_t instance) {
    const std::vector<std::uint32_t> start_nodes = nodes_of_pc_or_fail(pc);
    const std::uint32_t start = instance_time(pc, instance);

    // Largest key first: latest t, branch, then highest node. Every item an
    // item adds has a smaller key than the item itself (checked: a forged
    // def could name a later store of the same block execution), so the
    // keys leave in decreasing order and the copies of one item leave one
    // after another: an item added twice is visited once, with no set of
    // the items seen (which cost more than the copies: half of a large
    // slice's time).
    std::priority_queue<std::uint64_t> pending;
    std::optional<std::uint64_t> visiting;
    const auto corrupt = [&](const std::string& what) { throw WetError(name_, "corrupt labels: " + what); };
    const auto add = [&](std::uint32_t t, std::uint32_t id) {
        if (visiting && item_key(t, id) >= *visiting) {
            corrupt(item_name(*visiting) + " depends on " + item_name(item_key(t, id)) + ", which is not before it");
        }
        pending.push(item_key(t, id));
    };
    // The items of one t leave the queue one after another and belong to one
    // block execution: its index among the block's executions is looked up,
    // and its control parent added, once per t (most nodes run with their
    // block, so their execution index is the block's).
    struct BlockExecution {
        std::uint32_t t = 0;  // 0: none yet (timestamps start at 1)
        std::uint32_t block = 0;
        std::uint64_t index = 0;
        bool parent_added = false;
    };
    BlockExecution current;
    // Its index (nullopt: the block did not run at t).
    const auto block_index = [&](std::uint32_t block, std::uint32_t t) -> std::optional<std::uint64_t> {
        if (current.t == t && current.block == block) {
            return current.index;
        }
        const std::optional<std::uint64_t> index = labels_->block_execution(block, t);
        if (index) {
            current = BlockExecution{t, block, *index, false};
        }
        return index;
    };
    const auto visit_block_execution = [&](std::uint32_t block, std::uint32_t t) {
        const std::optional<std::uint64_t> index = block_index(block, t);
        if (!index) {
            corrupt("block " + std::to_string(block) + " has no execution at t " + std::to_string(t));
        }
        if (!current.parent_added) {
            current.parent_added = true;
            const std::uint32_t parent = labels_->control_parent(block, *index, t);
            if (parent != 0) {
                add(parent, branch_id);
            }
        }
    };
    const auto execution_of_node = [&](std::uint32_t node, std::uint32_t t) {
        return labels_->times_of(node) == LabelStore::Times::block ? block_index(nodes()[node].block, t)
                                                                   : labels_->node_execution(node, t);
    };
    // The loads of `block`'s execution at t with an id below `below`.
    const auto add_loads = [&](std::uint32_t block, std::uint32_t t, std::uint32_t below) {
        for (std::uint32_t at = block_first_node_[block]; at < block_first_node_[block + 1]; ++at) {
            const std::uint32_t node = block_node(at);
            if (node >= below) {
                break;
            }
            if (nodes()[node].access == 'L' && execution_of_node(node, t)) {
                add(t, node);
            }
        }
    };

    for (const std::uint32_t node : start_nodes) {
        if (labels_->node_execution(node, start)) {
            add(start, node);
        }
    }
    std::vector<SliceItem> items;
    while (!pending.empty()) {
        const std::uint64_t key = pending.top();
        pending.pop();
        if (key == visiting) {
            continue;
        }
        visiting = key;
        const auto t = static_cast<std::uint32_t>(key >> 32);
        const auto id = static_cast<std::uint32_t>(key);
        if (id == branch_id) {
            const std::uint32_t block = labels_->block_at(t);
            items.push_back(SliceItem{t, 'B', block, blocks_[block].pc, 0});
            visit_block_execution(block, t);
            add_loads(block, t, branch_id);
            continue;
        }
        if (id >= nodes().size()) {
            corrupt("node " + std::to_string(id) + " in a def");
        }
        const RawNode& node = nodes()[id];
        items.push_back(SliceItem{t, node.access, id, node.pc, node.slot});
        const std::optional<std::uint64_t> index = execution_of_node(id, t);
        if (!index) {
            corrupt("node " + std::to_string(id) + " has no execution at t " + std::to_string(t));
        }
        visit_block_execution(node.block, t);
        if (node.access == 'L') {
            if (const std::optional<Def> def = labels_->def_at(id, *index, t)) {
                add(def->t, def->node);
            }
        } else {
            add_loads(node.block, t, id);
        }
    }
    std::sort(items.begin(), items.end(), [](const SliceItem& a, const SliceItem& b) {
        if (a.t != b.t) {
            return a.t > b.t;
        }
        if (a.pc != b.pc) {
            return a.pc < b.pc;
        }
        if (a.kind != b.kind) {
            return a.kind < b.kind;
        }
        return a.slot < b.slot;
    });
    return items;
}

}  // namespace tcgen::wet
