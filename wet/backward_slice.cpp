// The backward dynamic slice (docs/wet.md, "Slices"). An item is an op of
// the register dataflow executed at t (a memory access, an instruction
// writing registers, the block's end), keyed (t, the op's index in its
// block). Items are visited in decreasing key order, which every dependence
// respects: a control parent, a register's latest earlier write and a def
// lie at an earlier t, and an op's sources in its own block execution come
// before it (a def in it too: nodes are in execution order). So every
// stream cursor the slice uses only walks backward, and the whole slice
// costs one backward walk over the streams it touches at most.

#include <tcgen/wet/whole_execution_trace.hpp>

#include <algorithm>
#include <queue>
#include <optional>
#include <string>

#include "label_store.hpp"
#include "register_writers.hpp"

namespace tcgen::wet {
namespace {

std::uint64_t item_key(std::uint32_t t, std::uint32_t op) {
    return (static_cast<std::uint64_t>(t) << 32) | op;
}

// The op of a block's end in an item key: its index is the block's last,
// known once the item is visited (a control parent's block is not looked
// up when it is added; it may lie far back). Nothing else adds an end.
constexpr std::uint32_t end_op = 0xFFFFFFFFu;

}  // namespace

std::vector<SliceItem> WholeExecutionTrace::backward_slice(std::uint64_t pc, std::uint64_t instance) {
    const std::vector<std::uint32_t> start_nodes = nodes_of_pc_or_fail(pc);
    const std::uint32_t start = instance_time(pc, instance);
    FlowIndex& flow = labels_->flow_index();
    need_dataflow();

    // Largest key first. Every item an item adds has a smaller key than the
    // item itself (checked: a forged def could name a later store of the
    // same block execution), so the keys leave in decreasing order and the
    // copies of one item leave one after another: an item added twice is
    // visited once, with no set of the items seen (which cost more than the
    // copies: half of a large slice's time).
    std::priority_queue<std::uint64_t> pending;
    std::optional<std::uint64_t> visiting;
    const auto corrupt = [&](const std::string& what) { throw WetError(name_, "corrupt labels: " + what); };
    // For messages: "node 3 at t 7", "the branch at t 7", "op 9 at t 7".
    const auto item_name = [&](std::uint64_t key) {
        const auto t = static_cast<std::uint32_t>(key >> 32);
        const auto op = static_cast<std::uint32_t>(key);
        const std::uint32_t block = flow.block_at(t);
        const std::uint32_t first = dataflow_.first_op[block];
        const std::string at = " at t " + std::to_string(t);
        if (op == end_op) {
            return "the branch" + at;
        }
        if (op >= dataflow_.first_op[block + 1] - first || dataflow_.ops[first + op].kind == 'R') {
            return "op " + std::to_string(op) + at;
        }
        const RawOp& raw_op = dataflow_.ops[first + op];
        return raw_op.kind == 'B' ? "the branch" + at : "node " + std::to_string(raw_op.what) + at;
    };
    // Many items add the same one (a register written once and read by every
    // iteration of a loop after it, a loop's branch): a small table of the
    // keys added lately drops most copies before they enter the queue. A
    // key found there is in the queue still, as nothing added later can
    // have a key that has left it.
    std::vector<std::uint64_t> added_lately(std::size_t{1} << 16, ~std::uint64_t{0});
    const auto add = [&](std::uint32_t t, std::uint32_t op) {
        const std::uint64_t key = item_key(t, op);
        if (visiting && key >= *visiting) {
            corrupt(item_name(*visiting) + " depends on " + item_name(key) + ", which is not before it");
        }
        std::uint64_t& lately = added_lately[(key * 0x9E3779B97F4A7C15ULL) >> 48];
        if (lately != key) {
            lately = key;
            pending.push(key);
        }
    };
    // The items of one t leave the queue one after another and belong to one
    // block execution: its block, its index among the block's executions and
    // its control parent are looked up once per t (most nodes run with their
    // block, so their execution index is the block's).
    struct BlockExecution {
        std::uint32_t t = 0;  // 0: none yet (timestamps start at 1)
        std::uint32_t block = 0;
        std::optional<std::uint64_t> index;
        bool parent_added = false;
    };
    BlockExecution current;
    const auto enter = [&](std::uint32_t t) {
        if (current.t != t) {
            const std::uint32_t block = flow.block_at(t);
            current = BlockExecution{t, block, labels_->block_execution(block, t), false};
            if (!current.index) {
                corrupt("block " + std::to_string(block) + " has no execution at t " + std::to_string(t));
            }
        }
    };
    const auto executed = [&](std::uint32_t node, std::uint32_t t) {
        return labels_->times_of(node) == LabelStore::Times::block ? current.index : labels_->node_execution(node, t);
    };
    const auto is_node = [](const RawOp& op) { return op.kind == 'L' || op.kind == 'S'; };

    for (const std::uint32_t node : start_nodes) {
        if (labels_->node_execution(node, start)) {
            add(start, node_op_[node]);
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
        enter(t);
        const std::uint32_t block = current.block;
        const std::uint32_t first_op = dataflow_.first_op[block];
        const std::uint32_t op = static_cast<std::uint32_t>(key) == end_op
                                     ? dataflow_.first_op[block + 1] - first_op - 1
                                     : static_cast<std::uint32_t>(key);
        if (op >= dataflow_.first_op[block + 1] - first_op) {
            corrupt(item_name(key) + ": block " + std::to_string(block) + " has no such op");
        }
        const RawOp& raw_op = dataflow_.ops[first_op + op];
        if (is_node(raw_op)) {
            const auto node = static_cast<std::uint32_t>(raw_op.what);
            if (!executed(node, t)) {
                corrupt("node " + std::to_string(node) + " has no execution at t " + std::to_string(t));
            }
            items.push_back(SliceItem{t, raw_op.kind, node, nodes()[node].pc, nodes()[node].slot});
        } else {
            items.push_back(SliceItem{t, raw_op.kind, block, raw_op.kind == 'B' ? blocks_[block].pc : raw_op.what, 0});
        }
        if (!current.parent_added) {
            current.parent_added = true;
            const std::uint32_t parent = labels_->control_parent(block, *current.index, t);
            if (parent != 0) {
                add(parent, end_op);
            }
        }
        for (std::uint32_t at = dataflow_.first_source[first_op + op]; at < dataflow_.first_source[first_op + op + 1];
             ++at) {
            const RawSource& source = dataflow_.sources[at];
            if (source.from == 'O') {
                const RawOp& read = dataflow_.ops[first_op + source.index];
                if (!is_node(read) || executed(static_cast<std::uint32_t>(read.what), t)) {
                    add(t, source.index);
                }
            } else if (const auto writer = register_writers_->latest_before(dataflow_, source.index, t, flow)) {
                add(writer->t, writer->op);
            }
        }
        if (raw_op.kind == 'L') {
            const auto node = static_cast<std::uint32_t>(raw_op.what);
            const std::uint64_t index = *executed(node, t);
            // A def is a store execution the labels found among the store's
            // own: its block ran at def->t (not looked up here: defs lie
            // anywhere back in the run).
            if (const std::optional<Def> def = labels_->def_at(node, index, t)) {
                add(def->t, node_op_[def->node]);
            }
        }
    }
    // The items left the queue by decreasing t already: each t's are sorted
    // among themselves.
    const auto by_place = [](const SliceItem& a, const SliceItem& b) {
        if (a.pc != b.pc) {
            return a.pc < b.pc;
        }
        if (a.kind != b.kind) {
            return a.kind < b.kind;
        }
        return a.slot < b.slot;
    };
    for (auto first = items.begin(); first != items.end();) {
        const auto last = std::find_if(first, items.end(), [&](const SliceItem& item) { return item.t != first->t; });
        std::sort(first, last, by_place);
        first = last;
    }
    return items;
}

}  // namespace tcgen::wet
