// The backward dynamic slice (docs/wet.md, "Slices"). An item is an op of
// the register dataflow executed at t (a memory access, an instruction
// writing registers, the block's end), keyed (t, the op's index in its
// block). Items are visited in decreasing key order, which every dependence
// respects: a control parent, a register's latest earlier write and a def
// lie at an earlier t, and an op's sources in its own block execution come
// before it (a def in it too: nodes are in execution order). So the slice
// is one walk back through time: block execution by block execution, each
// one's items last first, every stream cursor it uses walking backward
// only. A register read waits, marked wanted, for the walk to reach the
// latest earlier write of the register (register_reads.hpp); control
// parents and defs wait in a queue by key.

#include <tcgen/wet/whole_execution_trace.hpp>

#include <algorithm>
#include <queue>
#include <optional>
#include <string>

#include "wet/dependences/register_reads.hpp"
#include "wet/labels/label_store.hpp"

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

std::vector<SliceItem> WholeExecutionTrace::backward_slice(std::uint64_t pc, std::uint64_t instance,
                                                           const SliceWindow& window) {
    need_dataflow();
    return backward_slice_from(slice_start(pc, slice_time(pc, instance)), window);
}

std::vector<SliceItem> WholeExecutionTrace::backward_slice_at(std::uint64_t pc, std::uint32_t t,
                                                              const SliceWindow& window) {
    need_dataflow();
    return backward_slice_from(slice_start(pc, t), window);
}

std::vector<SliceItem> WholeExecutionTrace::backward_slice_from(const SliceStart& start, const SliceWindow& window) {
    FlowIndex& flow = labels_->flow_index();
    RegisterReads& registers = *register_reads_;
    registers.clear();

    const auto corrupt = [&](const std::string& what) { throw WetError(name_, "corrupt labels: " + what); };
    // Items of earlier block executions the slice reached through a control
    // parent or a def, largest key first. Many items add the same one (a
    // loop's branch, a store read by every iteration after it): a small
    // table of the keys added lately drops most copies before they enter
    // the queue (a key found there is in the queue still: a key leaves when
    // the walk reaches its t, and everything added after that lies earlier);
    // the rest leave it one after another and are dropped there.
    std::priority_queue<std::uint64_t> earlier;
    std::vector<std::uint64_t> added_lately(std::size_t{1} << 16, ~std::uint64_t{0});
    const auto add_earlier = [&](std::uint32_t t, std::uint32_t op) {
        const std::uint64_t key = item_key(t, op);
        std::uint64_t& lately = added_lately[(key * 0x9E3779B97F4A7C15ULL) >> 48];
        if (lately != key) {
            lately = key;
            earlier.push(key);
        }
    };
    const auto is_node = [](const RawOp& op) { return op.kind == 'L' || op.kind == 'S'; };

    // One block execution: its ops in the slice are visited last first (an
    // op's sources in the block execution come before it).
    std::vector<std::uint8_t> pending;  // per op of the block
    std::vector<SliceItem> items;
    const auto visit_execution = [&](std::uint32_t t, const std::vector<std::uint32_t>& seeds) {
        const FlowIndex::Execution execution = flow.execution_at(t);
        const std::uint32_t block = execution.block;
        const std::uint32_t first_op = dataflow_.first_op[block];
        const std::uint32_t op_count = dataflow_.first_op[block + 1] - first_op;
        pending.assign(op_count, 0);
        for (const std::uint32_t op : seeds) {
            pending[op] = 1;
        }
        // The register reads waiting for a write this execution makes.
        registers.take_writes(dataflow_, block, [&](std::uint32_t op) { pending[op] = 1; });
        for (; !earlier.empty() && static_cast<std::uint32_t>(earlier.top() >> 32) == t; earlier.pop()) {
            const auto op = static_cast<std::uint32_t>(earlier.top());
            if (op != end_op && op >= op_count) {
                corrupt("block " + std::to_string(block) + " at t " + std::to_string(t) + " has no op " +
                        std::to_string(op));
            }
            pending[op == end_op ? op_count - 1 : op] = 1;
        }
        // A node's index among its executions, if it ran at t (most run
        // with their block: their index is the block's).
        const auto node_index = [&](std::uint32_t node) {
            return labels_->times_of(node) == LabelStore::Times::block ? std::optional(execution.index)
                                                                       : labels_->node_execution(node, t);
        };
        bool parent_added = false;
        for (std::uint32_t op = op_count; op-- > 0;) {
            if (pending[op] == 0) {
                continue;
            }
            const RawOp& raw_op = dataflow_.ops[first_op + op];
            if (is_node(raw_op)) {
                const auto node = static_cast<std::uint32_t>(raw_op.what);
                if (!node_index(node)) {
                    corrupt("node " + std::to_string(node) + " has no execution at t " + std::to_string(t));
                }
                items.push_back(SliceItem{t, raw_op.kind, nodes()[node].slot, node, nodes()[node].pc});
            } else {
                items.push_back(
                    SliceItem{t, raw_op.kind, 0, block, raw_op.kind == 'B' ? blocks_[block].pc : raw_op.what});
            }
            if (!parent_added) {
                parent_added = true;
                if (const std::uint32_t parent = labels_->control_parent(block, execution.index, t)) {
                    add_earlier(parent, end_op);
                }
            }
            for (std::uint32_t at = dataflow_.first_source[first_op + op];
                 at < dataflow_.first_source[first_op + op + 1]; ++at) {
                const RawSource& source = dataflow_.sources[at];
                if (source.from == 'G') {
                    registers.want(source.index);
                } else if (const RawOp& read = dataflow_.ops[first_op + source.index];
                           !is_node(read) || node_index(static_cast<std::uint32_t>(read.what))) {
                    pending[source.index] = 1;  // checked on load: an earlier op
                }
            }
            if (raw_op.kind == 'L') {
                const auto node = static_cast<std::uint32_t>(raw_op.what);
                // A def is a store execution the labels found among the
                // store's own: its block ran at def->t.
                if (const std::optional<Def> def = labels_->def_at(node, *node_index(node), t)) {
                    const std::uint32_t def_op = node_op_[def->node];
                    if (def->t > t || (def->t == t && (nodes()[def->node].block != block || def_op >= op))) {
                        corrupt("node " + std::to_string(node) + " at t " + std::to_string(t) + " depends on node " +
                                std::to_string(def->node) + " at t " + std::to_string(def->t) +
                                ", which is not before it");
                    }
                    if (def->t == t) {
                        pending[def_op] = 1;
                    } else {
                        add_earlier(def->t, def_op);
                    }
                }
            }
        }
    };

    // Items after the window's first timestamp are walked (they lead to the
    // rest) but not kept; the walk stops once a whole timestamp's items
    // fill the window.
    std::size_t kept = 0;
    const auto visit = [&](std::uint32_t t, const std::vector<std::uint32_t>& seeds) {
        const std::size_t before = items.size();
        visit_execution(t, seeds);
        if (t > window.from) {
            items.resize(before);
        }
        kept = items.size();
    };
    visit(start.t, start.ops);
    const std::vector<std::uint32_t> seeds;  // none after the start
    // Then back through time to each block execution the slice reaches: the
    // next earlier item's, or a write of a register an item reads.
    for (std::uint32_t t = start.t; kept < window.count;) {
        std::uint32_t next = earlier.empty() ? 0 : static_cast<std::uint32_t>(earlier.top() >> 32);
        if (registers.any() && t > 1) {
            next = std::max(next, registers.latest_write(t - 1, std::max<std::uint32_t>(next, 1), flow));
        }
        if (next == 0) {
            break;
        }
        t = next;
        visit(t, seeds);
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
    if (items.size() > window.count) {
        items.resize(window.count);
    }
    return items;
}

}  // namespace tcgen::wet
