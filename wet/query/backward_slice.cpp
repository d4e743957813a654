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
// parents and defs wait in a queue by key. A timestamp's items are all
// found when the walk leaves it, so they are handed out then (SliceWalk):
// what the walk holds is its frontier, never the items behind it.

#include <tcgen/wet/whole_execution_trace.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

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

bool is_node(const RawOp& op) {
    return op.kind == 'L' || op.kind == 'S';
}

}  // namespace

std::vector<SliceItem> WholeExecutionTrace::backward_slice(std::uint64_t pc, std::uint64_t instance,
                                                           const SliceWindow& window) const {
    return all_items(slice_walk(pc, instance, window));
}

std::vector<SliceItem> WholeExecutionTrace::backward_slice_at(std::uint64_t pc, std::uint32_t t,
                                                              const SliceWindow& window) const {
    return all_items(slice_walk_at(pc, t, window));
}

std::vector<SliceItem> WholeExecutionTrace::all_items(SliceWalk walk) {
    std::vector<SliceItem> items;
    std::vector<SliceItem> batch;
    while (walk.next(batch)) {
        items.insert(items.end(), batch.begin(), batch.end());
    }
    return items;
}

WholeExecutionTrace::SliceWalk WholeExecutionTrace::slice_walk(std::uint64_t pc, std::uint64_t instance,
                                                               const SliceWindow& window) const {
    need_dataflow();
    return slice_walk_from(slice_start(pc, slice_time(pc, instance)), window);
}

WholeExecutionTrace::SliceWalk WholeExecutionTrace::slice_walk_at(std::uint64_t pc, std::uint32_t t,
                                                                  const SliceWindow& window) const {
    need_dataflow();
    return slice_walk_from(slice_start(pc, t), window);
}

// One slice's walk: where it is, what it waits for.
struct WholeExecutionTrace::SliceWalk::State {
    State(const WholeExecutionTrace& wet, SliceStart start, const SliceWindow& window)
        : wet(wet), start(std::move(start)), window(window), wanted(wet.register_reads_->nothing_wanted()) {}

    const WholeExecutionTrace& wet;
    const SliceStart start;
    const SliceWindow window;
    std::uint32_t t = 0;  // the block execution visited last; 0: none yet
    bool done = false;
    std::uint64_t found = 0;  // items handed out
    RegisterReads::Wanted wanted;
    // Items of earlier block executions the slice reached through a control
    // parent or a def, largest key first. Many items add the same one (a
    // loop's branch, a store read by every iteration after it): a small
    // table of the keys added lately drops most copies before they enter
    // the queue (a key found there is in the queue still: a key leaves when
    // the walk reaches its t, and everything added after that lies earlier);
    // the rest leave it one after another and are dropped there.
    std::priority_queue<std::uint64_t> earlier;
    std::vector<std::uint64_t> added_lately = std::vector<std::uint64_t>(std::size_t{1} << 16, ~std::uint64_t{0});
    std::vector<std::uint8_t> pending;  // per op of the block execution visited

    void add_earlier(std::uint32_t at, std::uint32_t op) {
        const std::uint64_t key = item_key(at, op);
        std::uint64_t& lately = added_lately[(key * 0x9E3779B97F4A7C15ULL) >> 48];
        if (lately != key) {
            lately = key;
            earlier.push(key);
        }
    }
    [[noreturn]] void corrupt(const std::string& what) const {
        throw WetError(wet.name_, "corrupt labels: " + what);
    }
    // The timestamp of the next block execution the slice reaches: the next
    // earlier item's, or a write of a register an item reads; 0: none.
    std::uint32_t next_time() {
        std::uint32_t next = earlier.empty() ? 0 : static_cast<std::uint32_t>(earlier.top() >> 32);
        if (wanted.any() && t > 1) {
            next = std::max(next, wet.register_reads_->latest_write(wanted, t - 1, std::max<std::uint32_t>(next, 1),
                                                                    wet.labels().flow_index()));
        }
        return next;
    }
    void visit(std::uint32_t at, const std::vector<std::uint32_t>& seeds, std::vector<SliceItem>& items);
};

// One block execution: its ops in the slice are visited last first (an op's
// sources in the block execution come before it).
void WholeExecutionTrace::SliceWalk::State::visit(std::uint32_t at, const std::vector<std::uint32_t>& seeds,
                                                  std::vector<SliceItem>& items) {
    const RawDataflow& dataflow = wet.dataflow_;
    LabelStore& labels = wet.labels();
    const std::vector<RawNode>& nodes = wet.nodes();
    const FlowIndex::Execution execution = labels.flow_index().execution_at(at);
    const std::uint32_t block = execution.block;
    const std::uint32_t first_op = dataflow.first_op[block];
    const std::uint32_t op_count = dataflow.first_op[block + 1] - first_op;
    pending.assign(op_count, 0);
    for (const std::uint32_t op : seeds) {
        pending[op] = 1;
    }
    // The register reads waiting for a write this execution makes.
    wet.register_reads_->take_writes(wanted, dataflow, block, [&](std::uint32_t op) { pending[op] = 1; });
    for (; !earlier.empty() && static_cast<std::uint32_t>(earlier.top() >> 32) == at; earlier.pop()) {
        const auto op = static_cast<std::uint32_t>(earlier.top());
        if (op != end_op && op >= op_count) {
            corrupt("block " + std::to_string(block) + " at t " + std::to_string(at) + " has no op " +
                    std::to_string(op));
        }
        pending[op == end_op ? op_count - 1 : op] = 1;
    }
    // A node's index among its executions, if it ran at t (most run with
    // their block: their index is the block's).
    const auto node_index = [&](std::uint32_t node) {
        return labels.times_of(node) == LabelStore::Times::block ? std::optional(execution.index)
                                                                 : labels.node_execution(node, at);
    };
    bool parent_added = false;
    for (std::uint32_t op = op_count; op-- > 0;) {
        if (pending[op] == 0) {
            continue;
        }
        const RawOp& raw_op = dataflow.ops[first_op + op];
        if (is_node(raw_op)) {
            const auto node = static_cast<std::uint32_t>(raw_op.what);
            if (!node_index(node)) {
                corrupt("node " + std::to_string(node) + " has no execution at t " + std::to_string(at));
            }
            items.push_back(SliceItem{at, raw_op.kind, nodes[node].slot, node, nodes[node].pc});
        } else {
            items.push_back(
                SliceItem{at, raw_op.kind, 0, block, raw_op.kind == 'B' ? wet.blocks_[block].pc : raw_op.what});
        }
        if (!parent_added) {
            parent_added = true;
            if (const std::uint32_t parent = labels.control_parent(block, execution.index, at)) {
                add_earlier(parent, end_op);
            }
        }
        for (std::uint32_t source_at = dataflow.first_source[first_op + op];
             source_at < dataflow.first_source[first_op + op + 1]; ++source_at) {
            const RawSource& source = dataflow.sources[source_at];
            if (source.from == 'G') {
                wet.register_reads_->want(wanted, source.index);
            } else if (const RawOp& read = dataflow.ops[first_op + source.index];
                       !is_node(read) || node_index(static_cast<std::uint32_t>(read.what))) {
                pending[source.index] = 1;  // checked on load: an earlier op
            }
        }
        if (raw_op.kind == 'L') {
            const auto node = static_cast<std::uint32_t>(raw_op.what);
            // A def is a store execution the labels found among the store's
            // own: its block ran at def->t.
            if (const std::optional<Def> def = labels.def_at(node, *node_index(node), at)) {
                const std::uint32_t def_op = wet.node_op_[def->node];
                if (def->t > at || (def->t == at && (nodes[def->node].block != block || def_op >= op))) {
                    corrupt("node " + std::to_string(node) + " at t " + std::to_string(at) + " depends on node " +
                            std::to_string(def->node) + " at t " + std::to_string(def->t) +
                            ", which is not before it");
                }
                if (def->t == at) {
                    pending[def_op] = 1;
                } else {
                    add_earlier(def->t, def_op);
                }
            }
        }
    }
}

WholeExecutionTrace::SliceWalk WholeExecutionTrace::slice_walk_from(SliceStart start, const SliceWindow& window) const {
    return SliceWalk(std::make_unique<SliceWalk::State>(*this, std::move(start), window));
}

WholeExecutionTrace::SliceWalk::SliceWalk(std::unique_ptr<State> state) : state_(std::move(state)) {}
WholeExecutionTrace::SliceWalk::SliceWalk(SliceWalk&&) noexcept = default;
WholeExecutionTrace::SliceWalk& WholeExecutionTrace::SliceWalk::operator=(SliceWalk&&) noexcept = default;
WholeExecutionTrace::SliceWalk::~SliceWalk() = default;

std::uint64_t WholeExecutionTrace::SliceWalk::items_found() const {
    return state_ ? state_->found : 0;
}

bool WholeExecutionTrace::SliceWalk::next(std::vector<SliceItem>& items) {
    items.clear();
    if (!state_) {
        return false;
    }
    State& walk = *state_;
    // Block executions after the window's first timestamp are walked (they
    // lead to the rest) but their items are not handed out.
    static const std::vector<std::uint32_t> no_seeds;  // none after the start
    while (!walk.done && walk.found < walk.window.count) {
        const std::uint32_t at = walk.t == 0 ? walk.start.t : walk.next_time();
        if (at == 0 || at < walk.window.until) {
            break;
        }
        walk.visit(at, walk.t == 0 ? walk.start.ops : no_seeds, items);
        walk.t = at;
        if (at > walk.window.from) {
            items.clear();
            continue;
        }
        if (items.empty()) {
            continue;
        }
        // A timestamp's items are found in the order of its ops; the slice
        // lists them by place.
        std::sort(items.begin(), items.end(), [](const SliceItem& a, const SliceItem& b) {
            if (a.pc != b.pc) {
                return a.pc < b.pc;
            }
            if (a.kind != b.kind) {
                return a.kind < b.kind;
            }
            return a.slot < b.slot;
        });
        if (items.size() > walk.window.count - walk.found) {
            items.resize(static_cast<std::size_t>(walk.window.count - walk.found));
        }
        walk.found += items.size();
        return true;
    }
    walk.done = true;
    items.clear();
    return false;
}

}  // namespace tcgen::wet
