// WholeExecutionTrace: the static program and its index by pc, building from
// a raw trace, the queries over the labels, and the sizes.

#include <tcgen/wet/whole_execution_trace.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <utility>

#include <tcgen/wet/symbols.hpp>
#include "runtime/byte_order.hpp"
#include "wet/dependences/control_dependence.hpp"
#include "wet/dependences/register_reads.hpp"
#include "wet/flow/flow_index.hpp"
#include "wet/format/raw_files.hpp"
#include "wet/format/raw_flow.hpp"
#include "wet/labels/grouping.hpp"
#include "wet/labels/label_store.hpp"
#include "wet/query/lazy_parts.hpp"
#include "wet/query/per_thread.hpp"

namespace tcgen::wet {

namespace {

std::string hex(std::uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

// The earliest t in 1..executed with `instance` executions up to it, where
// below(t) counts the executions before t; its owners run at different
// timestamps, so each t is one instance at most.
template <class Below>
std::uint32_t time_of_instance(std::uint64_t instance, std::uint32_t executed, const Below& below) {
    std::uint64_t low = 1;
    std::uint64_t high = executed;
    while (low < high) {
        const std::uint64_t middle = low + (high - low) / 2;
        if (below(middle + 1) >= instance) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    return static_cast<std::uint32_t>(low);
}

}  // namespace

WholeExecutionTrace::WholeExecutionTrace() : lazy_(std::make_unique<Lazy>()) {}
WholeExecutionTrace::WholeExecutionTrace(WholeExecutionTrace&&) noexcept = default;
WholeExecutionTrace& WholeExecutionTrace::operator=(WholeExecutionTrace&&) noexcept = default;
WholeExecutionTrace::~WholeExecutionTrace() = default;

void WholeExecutionTrace::index_static() {
    // The nodes by block, ids increasing within each; the ids themselves
    // only when they are not in block order.
    Grouping<std::uint32_t> by_block = group_items<std::uint32_t>(
        nodes().size(), blocks_.size(), [&](std::size_t node) { return nodes()[node].block; });
    block_first_node_.assign(by_block.first.begin(), by_block.first.end());
    const bool in_block_order = std::is_sorted(nodes().begin(), nodes().end(),
                                               [](const RawNode& a, const RawNode& b) { return a.block < b.block; });
    block_nodes_.clear();
    if (!in_block_order) {
        block_nodes_ = std::move(by_block.order);
    }
    pc_order_.resize(nodes().size());
    for (std::size_t node = 0; node < nodes().size(); ++node) {
        pc_order_[node] = static_cast<std::uint32_t>(node);
    }
    std::stable_sort(pc_order_.begin(), pc_order_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return nodes()[a].pc < nodes()[b].pc; });
}

void WholeExecutionTrace::need_dataflow() const {
    if (lazy_->dataflow_decoded.load(std::memory_order_acquire)) {
        return;
    }
    const std::lock_guard<std::mutex> lock(lazy_->mutex);
    if (register_reads_) {
        return;
    }
    if (dataflow_.empty()) {
        dataflow_ = decode_dataflow();
    }
    node_op_.assign(nodes().size(), 0);
    for (std::size_t block = 0; block < blocks_.size(); ++block) {
        for (std::uint32_t op = dataflow_.first_op[block]; op < dataflow_.first_op[block + 1]; ++op) {
            const RawOp& raw_op = dataflow_.ops[op];
            if (raw_op.kind == 'L' || raw_op.kind == 'S') {
                node_op_[raw_op.what] = op - dataflow_.first_op[block];
            }
        }
    }
    register_reads_ = std::make_unique<RegisterReads>(dataflow_, labels().flow_index());
    lazy_->dataflow_decoded.store(true, std::memory_order_release);
}

LabelStore& WholeExecutionTrace::labels() const {
    return labels_->get();
}

const LabelStore& WholeExecutionTrace::first_labels() const {
    return labels_->first();
}

void WholeExecutionTrace::hold_labels(std::unique_ptr<LabelStore> labels) {
    const LabelStore* first = labels.get();
    labels_ = std::make_unique<PerThread<LabelStore>>(std::move(labels), [first] { return first->fork(); });
}

std::vector<std::uint32_t> WholeExecutionTrace::nodes_of_block(std::uint32_t id) const {
    if (id >= blocks_.size()) {
        throw std::out_of_range("block " + std::to_string(id) + " of " + std::to_string(blocks_.size()));
    }
    std::vector<std::uint32_t> ids;
    for (std::uint32_t at = block_first_node_[id]; at < block_first_node_[id + 1]; ++at) {
        ids.push_back(block_node(at));
    }
    return ids;
}

WholeExecutionTrace WholeExecutionTrace::build(const RawTrace& raw, const Progress& progress,
                                               std::uint64_t checkpoint_records, const std::string& temporary_beside,
                                               unsigned threads) {
    check_raw_trace(raw, "raw");  // a trace made in memory may hold anything
    return build_checked(raw, raw.dataflow, RawFlow(&raw.flow), RawEdges(&raw.edges),
                         EventsByNode::in_memory(raw.events, raw.nodes.size(), temporary_beside), progress,
                         checkpoint_records, threads);
}

WholeExecutionTrace WholeExecutionTrace::build(RawTrace&& raw, const Progress& progress,
                                               std::uint64_t checkpoint_records, const std::string& temporary_beside,
                                               unsigned threads) {
    check_raw_trace(raw, "raw");
    RawFlow flow(std::move(raw.flow));
    RawEdges edges(std::move(raw.edges));
    return build_checked(raw, std::move(raw.dataflow), std::move(flow), std::move(edges),
                         EventsByNode::in_memory(raw.events, raw.nodes.size(), temporary_beside), progress,
                         checkpoint_records, threads);
}

WholeExecutionTrace WholeExecutionTrace::build_from_files(const std::string& prefix,
                                                          const std::string& temporary_beside, const Progress& progress,
                                                          std::uint64_t checkpoint_records, unsigned threads,
                                                          std::uint64_t memory) {
    std::optional<EventsByNode::Scatter> scatter;
    StreamedEvents streamed;
    // Larger pieces than the reader's own: fewer, longer writes of each node's run.
    streamed.piece_records = std::size_t{1} << 18;
    streamed.counted = [&](const std::vector<std::uint64_t>& counts) {
        scatter.emplace(BuildTemporaries::capped(temporary_beside, memory), counts);
    };
    streamed.events = [&](const RawEvent* events, std::size_t count) { scatter->add(events, count); };
    StreamedRawTrace read = read_raw_trace_streamed(prefix, streamed);  // checked as read_raw_trace() checks
    const EventsByNode events = scatter->finish();
    // The flow and the edges read from their files a piece at a time.
    return build_checked(read.raw, std::move(read.raw.dataflow), std::move(read.flow), std::move(read.edges), events,
                         progress, checkpoint_records, threads);
}

WholeExecutionTrace WholeExecutionTrace::build_checked(const RawTrace& raw, RawDataflow dataflow, RawFlow flow,
                                                       RawEdges edges, const EventsByNode& events,
                                                       const Progress& progress, std::uint64_t checkpoint_records,
                                                       unsigned threads) {
    WholeExecutionTrace wet;
    wet.name_ = "WET";
    wet.blocks_ = raw.blocks;
    wet.nodes_ = std::make_shared<const std::vector<RawNode>>(raw.nodes);
    wet.events_ = events.size();
    wet.edges_ = edges.size();
    wet.traced_dataflow_ = !dataflow.empty();
    if (wet.traced_dataflow_) {
        wet.dataflow_labels_ = dataflow.ops.size() + dataflow.sources.size() + dataflow.writes.size();
    }
    // Held compressed from here on, and decoded when a query first needs it,
    // as a loaded WET's is: the raw dataflow grows with the run (tens of
    // bytes a register source) and is not held through the build.
    wet.dataflow_ = std::move(dataflow);
    wet.dataflow_saved_ = wet.dataflow_section();
    wet.dataflow_ = RawDataflow();
    // Asked next: the edges are freed before the control flow's tables are made.
    DefQuestions questions = ask_defs(raw.nodes, std::move(edges), events);
    wet.symbols_saved_ =
        symbols_section(raw.symbols.empty() ? std::string() : SymbolTable::parse(raw.symbols, "raw.syms").lines());
    wet.index_static();
    if (progress) {
        progress("control dependences", 0, 1);
    }
    std::vector<BlockShape> shapes(raw.blocks.size());
    for (std::size_t block = 0; block < raw.blocks.size(); ++block) {
        shapes[block] = BlockShape{raw.blocks[block].pc, raw.blocks[block].bytes, raw.blocks[block].end};
    }
    // Handed out in time order and grouped by block, never held by timestamp.
    std::optional<GroupedParents> parents;
    try {
        parents.emplace(group_parents(
            flow.passes(), flow.size(), raw.blocks.size(), events.temporaries(),
            [&](const auto& visit) { each_control_parent(shapes, flow.passes(), flow.size(), visit); }, wet.name_));
    } catch (const std::invalid_argument& error) {
        throw WetError(wet.name_, std::string("control dependences: ") + error.what());
    }
    wet.hold_labels(
        std::make_unique<LabelStore>(LabelStore::build(raw, events, std::move(flow), std::move(questions), wet.nodes_,
                                                       std::move(*parents), progress, checkpoint_records, threads)));
    return wet;
}

std::uint32_t WholeExecutionTrace::executed() const {
    return first_labels().executed();
}

std::vector<std::uint32_t> WholeExecutionTrace::nodes_at_pc(std::uint64_t pc) const {
    const auto first =
        std::lower_bound(pc_order_.begin(), pc_order_.end(), pc,
                         [&](std::uint32_t node, std::uint64_t value) { return nodes()[node].pc < value; });
    const auto last = std::upper_bound(
        first, pc_order_.end(), pc, [&](std::uint64_t value, std::uint32_t node) { return value < nodes()[node].pc; });
    return std::vector<std::uint32_t>(first, last);
}

std::vector<std::uint32_t> WholeExecutionTrace::nodes_of_pc_or_fail(std::uint64_t pc) const {
    std::vector<std::uint32_t> nodes = nodes_at_pc(pc);
    if (nodes.empty()) {
        throw WetError(name_, "no memory access has pc " + hex(pc));
    }
    return nodes;
}

bool WholeExecutionTrace::FlowCursor::next(FlowStep& step) {
    return labels_->flow_next(step);
}

bool WholeExecutionTrace::FlowCursor::prev(FlowStep& step) {
    return labels_->flow_prev(step);
}

std::uint32_t WholeExecutionTrace::FlowCursor::position() const {
    return labels_->flow_position();
}

WholeExecutionTrace::FlowCursor WholeExecutionTrace::control_flow(std::uint32_t position) const {
    if (position > executed()) {
        throw WetError(name_, "timestamp " + std::to_string(position) + " is outside 0.." + std::to_string(executed()));
    }
    LabelStore& labels = this->labels();
    labels.flow_seek(position);
    return FlowCursor(&labels);
}

std::uint32_t WholeExecutionTrace::checked_t(std::uint32_t t) const {
    if (t == 0 || t > executed()) {
        throw WetError(name_, "timestamp " + std::to_string(t) + " is outside 1.." + std::to_string(executed()));
    }
    return t;
}

std::uint32_t WholeExecutionTrace::block_at(std::uint32_t t) const {
    return labels().block_at(checked_t(t));
}

std::optional<Symbol> WholeExecutionTrace::symbol(std::uint64_t pc) const {
    return has_symbols() ? need_symbols().at(pc) : std::nullopt;
}

std::vector<std::uint64_t> WholeExecutionTrace::pcs_named(std::string_view name) const {
    return has_symbols() ? need_symbols().pcs_named(name) : std::vector<std::uint64_t>();
}

std::uint64_t WholeExecutionTrace::block_executions(std::uint32_t id) const {
    if (id >= blocks_.size()) {
        throw WetError(name_, "no block " + std::to_string(id) + " (" + std::to_string(blocks_.size()) + " blocks)");
    }
    return labels().flow_index().count(id);
}

std::uint64_t WholeExecutionTrace::node_executions(std::uint32_t id) const {
    if (id >= nodes_->size()) {
        throw WetError(name_, "no node " + std::to_string(id) + " (" + std::to_string(nodes_->size()) + " nodes)");
    }
    return first_labels().node_executions(id);
}

std::vector<Access> WholeExecutionTrace::accesses(std::uint64_t pc) const {
    std::vector<Access> result;
    // Each node's accesses are in time order: merged as they come.
    const auto earlier = [](const Access& a, const Access& b) { return a.t != b.t ? a.t < b.t : a.slot < b.slot; };
    for (const std::uint32_t node : nodes_of_pc_or_fail(pc)) {
        const LabelStore::NodeAccesses trace = labels().node_accesses(node);  // of one length
        const RawNode& shape = nodes()[node];
        const std::size_t before = result.size();
        result.reserve(before + trace.times.size());
        for (std::size_t index = 0; index < trace.times.size(); ++index) {
            result.push_back(Access{trace.times[index], node, shape.access, shape.slot, trace.values[index],
                                    trace.addresses[index]});
        }
        std::inplace_merge(result.begin(), result.begin() + static_cast<std::ptrdiff_t>(before), result.end(), earlier);
    }
    return result;
}

std::vector<std::uint32_t> WholeExecutionTrace::instances(std::uint64_t pc) const {
    std::vector<std::uint32_t> times;
    for (const std::uint32_t node : nodes_of_pc_or_fail(pc)) {
        const std::vector<std::uint32_t> own = labels().node_times(node);
        times.insert(times.end(), own.begin(), own.end());
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    return times;
}

std::optional<std::vector<std::uint32_t>> WholeExecutionTrace::instance_nodes(std::uint64_t pc) const {
    std::vector<std::uint32_t> nodes = nodes_of_pc_or_fail(pc);
    std::stable_sort(nodes.begin(), nodes.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return this->nodes()[a].block < this->nodes()[b].block; });
    std::vector<std::uint32_t> chosen;
    for (auto first = nodes.begin(); first != nodes.end();) {
        const std::uint32_t block = this->nodes()[*first].block;
        const auto last =
            std::find_if(first, nodes.end(), [&](std::uint32_t node) { return this->nodes()[node].block != block; });
        // A node that runs with its block runs whenever any other of the
        // block does; of nodes with timestamps of their own, one alone
        // stands for the block.
        std::vector<std::uint32_t> ran;
        std::copy_if(first, last, std::back_inserter(ran),
                     [&](std::uint32_t node) { return labels().times_of(node) != LabelStore::Times::never; });
        const auto with_block = std::find_if(ran.begin(), ran.end(), [&](std::uint32_t node) {
            return labels().times_of(node) == LabelStore::Times::block;
        });
        if (with_block != ran.end()) {
            chosen.push_back(*with_block);
        } else if (ran.size() == 1) {
            chosen.push_back(ran.front());
        } else if (ran.size() > 1) {
            return std::nullopt;
        }
        first = last;
    }
    return chosen;
}

void WholeExecutionTrace::check_instance(std::uint64_t pc, std::uint64_t instance, std::uint64_t count) const {
    if (instance == 0 || instance > count) {
        throw WetError(name_, "instance " + std::to_string(instance) + " of pc " + hex(pc) + " is outside 1.." +
                                  std::to_string(count));
    }
}

std::uint64_t WholeExecutionTrace::instance_count(std::uint64_t pc) const {
    const std::optional<std::vector<std::uint32_t>> nodes = instance_nodes(pc);
    if (!nodes) {
        return instances(pc).size();
    }
    std::uint64_t count = 0;
    for (const std::uint32_t node : *nodes) {
        count += labels().node_executions(node);
    }
    return count;
}

std::uint32_t WholeExecutionTrace::instance_time(std::uint64_t pc, std::uint64_t instance) const {
    const std::optional<std::vector<std::uint32_t>> nodes = instance_nodes(pc);
    if (!nodes) {
        // The union of several nodes' own timestamps: read whole.
        const std::vector<std::uint32_t> times = instances(pc);
        check_instance(pc, instance, times.size());
        return times[instance - 1];
    }
    check_instance(pc, instance, instance_count(pc));
    if (nodes->size() == 1) {
        return labels().times_at(nodes->front(), instance - 1);
    }
    // The nodes run in different blocks, so at different timestamps.
    return time_of_instance(instance, executed(), [&](std::uint64_t t) {
        std::uint64_t below = 0;
        for (const std::uint32_t node : *nodes) {
            below += labels().times_count_below(node, t);
        }
        return below;
    });
}

// An instruction that accesses no memory starts a slice with its ops that
// write registers and, in a traced dataflow, its block's end, at each
// execution of their blocks (the stand-in's end names the block's first pc):
// (block, op in block) pairs, by block.
std::vector<std::pair<std::uint32_t, std::uint32_t>> WholeExecutionTrace::register_places(std::uint64_t pc) const {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> places;
    for (std::uint32_t block = 0; block < blocks_.size(); ++block) {
        for (std::uint32_t op = dataflow_.first_op[block]; op < dataflow_.first_op[block + 1]; ++op) {
            const RawOp& raw_op = dataflow_.ops[op];
            if (raw_op.what == pc && (raw_op.kind == 'R' || (raw_op.kind == 'B' && traced_dataflow_))) {
                places.emplace_back(block, op - dataflow_.first_op[block]);
            }
        }
    }
    if (places.empty()) {
        throw WetError(name_, "no memory access, register write or branch has pc " + hex(pc));
    }
    return places;
}

std::uint32_t WholeExecutionTrace::slice_time(std::uint64_t pc, std::uint64_t instance) const {
    if (!nodes_at_pc(pc).empty()) {
        return instance_time(pc, instance);
    }
    std::vector<std::uint32_t> blocks;
    for (const auto& place : register_places(pc)) {
        if (blocks.empty() || blocks.back() != place.first) {
            blocks.push_back(place.first);
        }
    }
    FlowIndex& flow = labels().flow_index();
    std::uint64_t count = 0;
    for (const std::uint32_t block : blocks) {
        count += flow.count(block);
    }
    check_instance(pc, instance, count);
    return blocks.size() == 1 ? flow.at(blocks.front(), instance - 1)
                              : time_of_instance(instance, executed(), [&](std::uint64_t t) {
                                    std::uint64_t below = 0;
                                    for (const std::uint32_t block : blocks) {
                                        below += flow.count_below(block, t);
                                    }
                                    return below;
                                });
}

WholeExecutionTrace::SliceStart WholeExecutionTrace::slice_start(std::uint64_t pc, std::uint32_t t) const {
    SliceStart start;
    start.t = checked_t(t);
    const std::vector<std::uint32_t> nodes = nodes_at_pc(pc);
    if (!nodes.empty()) {
        for (const std::uint32_t node : nodes) {
            if (labels().node_execution(node, start.t)) {
                start.ops.push_back(node_op_[node]);
            }
        }
    } else {
        const std::uint32_t block = labels().flow_index().block_at(start.t);
        for (const auto& place : register_places(pc)) {
            if (place.first == block) {
                start.ops.push_back(place.second);
            }
        }
    }
    if (start.ops.empty()) {
        throw WetError(name_, "pc " + hex(pc) + " did not execute at timestamp " + std::to_string(t));
    }
    return start;
}

bool WholeExecutionTrace::executed_at(std::uint32_t node, std::uint32_t t) const {
    return node < nodes().size() && labels().node_execution(node, checked_t(t)).has_value();
}

std::optional<Def> WholeExecutionTrace::def_of(std::uint32_t node, std::uint32_t t) const {
    if (node >= nodes().size() || nodes()[node].access != 'L') {
        return std::nullopt;
    }
    const std::optional<std::uint64_t> index = labels().node_execution(node, checked_t(t));
    if (!index) {
        return std::nullopt;
    }
    return labels().def_at(node, *index, t);
}

std::uint32_t WholeExecutionTrace::control_parent(std::uint32_t t) const {
    const std::uint32_t block = block_at(t);
    const std::optional<std::uint64_t> index = labels().block_execution(block, t);
    if (!index) {
        throw WetError(name_, "corrupt labels: block " + std::to_string(block) + " has no execution at t " +
                                  std::to_string(t));
    }
    return labels().control_parent(block, *index, t);
}

std::vector<LabelStats> WholeExecutionTrace::stats() const {
    std::vector<LabelStats> rows = labels().stats(events_, edges_);
    LabelStats program{"static program", blocks_.size() + nodes().size(), 24 * (blocks_.size() + nodes().size()),
                       static_bytes(), static_memory_bytes()};
    rows.push_back(program);
    // PREFIX.regs's 16-byte records: a header per block, then its ops, sources and writes.
    rows.push_back(LabelStats{"register dataflow", dataflow_labels_,
                              traced_dataflow_ ? 16 * (blocks_.size() + dataflow_labels_) : 0, dataflow_saved_.size(),
                              dataflow_memory_bytes()});
    // PREFIX.syms's lines, once per pc.
    const std::uint64_t symbol_bytes = symbols_saved_.size() >= 8 ? tcgen_runtime::load_le64(symbols_saved_.data()) : 0;
    rows.push_back(LabelStats{"symbols", 0, symbol_bytes, symbols_saved_.size(), symbols_saved_.capacity()});
    LabelStats total{"total", 0, 0, 0, memory_bytes()};
    for (const LabelStats& row : rows) {
        total.labels += row.labels;
        total.raw_bytes += row.raw_bytes;
        total.compressed_bytes += row.compressed_bytes;
    }
    total.labels -= program.labels;  // static records are not labels
    total.raw_bytes -= symbol_bytes;  // nor are the symbols, which the paper's WET has not: its file holds them
    rows.push_back(total);
    return rows;
}

std::size_t WholeExecutionTrace::static_memory_bytes() const {
    return sizeof(*this) + blocks_.capacity() * sizeof(RawBlock) + nodes().capacity() * sizeof(RawNode) +
           (block_first_node_.capacity() + block_nodes_.capacity() + pc_order_.capacity()) * sizeof(std::uint32_t);
}

std::size_t WholeExecutionTrace::dataflow_memory_bytes() const {
    // A decode may be under way on another thread: its lock, then its sizes.
    const std::lock_guard<std::mutex> lock(lazy_->mutex);
    return dataflow_saved_.capacity() +
           (dataflow_.first_op.capacity() + dataflow_.first_source.capacity() + dataflow_.first_write.capacity() +
            node_op_.capacity()) *
               sizeof(std::uint32_t) +
           dataflow_.ops.capacity() * sizeof(RawOp) + dataflow_.sources.capacity() * sizeof(RawSource) +
           dataflow_.writes.capacity() * sizeof(RawWrite) + (register_reads_ ? register_reads_->memory_bytes() : 0);
}

std::size_t WholeExecutionTrace::memory_bytes() const {
    return static_memory_bytes() + dataflow_memory_bytes() + labels().memory_bytes() + symbols_saved_.capacity();
}

}  // namespace tcgen::wet
