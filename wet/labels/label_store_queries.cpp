// The compressed labels of a WET walked for queries (label_store.hpp): the
// flow and the blocks' timestamps, a node's timestamps, values and
// addresses, and its defs, found by rank, distance or from the addresses.

#include "wet/labels/label_store.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

#include "wet/labels/def_encoding.hpp"

namespace tcgen::wet {

using namespace def_encoding;

template <class Visit>
void LabelStore::walk_flow(const Visit& visit) {
    // Cursors of its own on the flow's chunks, forward: the one queries use
    // stays where it is. Every block's count is checked on the way, and the
    // walk stops at the first block that runs more often than its count says.
    std::vector<std::uint32_t> counts(block_counts_.size(), 0);
    try {
        flow_->walk_all([&](std::uint32_t block, std::uint64_t position) {
            if (block >= counts.size()) {
                corrupt("block " + std::to_string(block) + " in the control flow");
            }
            if (++counts[block] > block_counts_[block]) {
                corrupt("block " + std::to_string(block) + " runs more than its count, " +
                        std::to_string(block_counts_[block]) + ", in the control flow");
            }
            visit(block, static_cast<std::uint32_t>(position + 1));
        });
    } catch (const WetError&) {
        throw;
    } catch (const std::runtime_error& error) {
        corrupt(std::string("control flow: ") + error.what());
    }
    for (std::size_t block = 0; block < counts.size(); ++block) {
        if (counts[block] != block_counts_[block]) {
            corrupt("block " + std::to_string(block) + " runs " + std::to_string(counts[block]) +
                    " times in the control flow, its count says " + std::to_string(block_counts_[block]));
        }
    }
}

const BlockTimes* LabelStore::held_block_times() {
    if (block_times_ == nullptr && derived_->times_made.load(std::memory_order_acquire)) {
        block_times_ = &*derived_->block_times;
    }
    return block_times_;
}

const BlockTimes& LabelStore::block_times() {
    if (held_block_times() == nullptr) {
        std::call_once(derived_->times_once, [&] {
            // Two walks of the flow; the first checks every block's count,
            // so the arrays the second fills are what the flow holds.
            derived_->block_times.emplace(
                BlockTimes::of_walks(block_counts_.size(), [&](const auto& visit) { walk_flow(visit); }));
            derived_->times_made.store(true, std::memory_order_release);
        });
        block_times_ = &*derived_->block_times;
    }
    return *block_times_;
}

std::vector<std::uint32_t> LabelStore::whole_block_times(std::uint32_t block) {
    // One block's timestamps from the flow's index cost a decode of the
    // segments it runs in, at most a walk of the flow, a fraction of
    // deriving every block's; a query that needs more blocks whole pays for
    // all of them at once.
    if (held_block_times() == nullptr && flow_walks_ < walks_for_single_blocks) {
        ++flow_walks_;
        return flow_index().times(block);
    }
    return block_times().times(block);
}

std::unique_ptr<LabelStore> LabelStore::fork() const {
    auto forked = std::make_unique<LabelStore>(executed_, nodes_, 0);
    forked->name_ = name_;
    forked->control_dependences_ = control_dependences_;
    forked->flow_ = flow_->fork();
    forked->block_counts_ = block_counts_;
    forked->derived_ = derived_;
    forked->block_parents_ = block_parents_.fork();
    forked->node_mode_ = node_mode_;
    forked->node_times_ = node_times_.fork();
    forked->values_ = values_.fork();
    forked->addresses_ = addresses_.fork();
    forked->address_siblings_ = address_siblings_;
    forked->has_address_sibling_ = has_address_sibling_;
    forked->defs_ = defs_.fork();
    forked->writer_loads_ = writer_loads_;
    forked->writer_first_ = writer_first_;
    forked->writers_ = writers_;
    return forked;
}

LabelStore::LabelStore(std::uint32_t executed, std::shared_ptr<const std::vector<RawNode>> nodes, std::size_t blocks)
    : executed_(executed), nodes_(std::move(nodes)), block_counts_(blocks, 0), node_mode_(nodes_->size(), 0) {}

void LabelStore::corrupt(const std::string& what) const {
    throw WetError(name_, "corrupt labels: " + what);
}

std::uint32_t LabelStore::flow_position() const {
    return static_cast<std::uint32_t>(flow_->position());
}

void LabelStore::flow_seek(std::uint32_t position) {
    flow_->seek(position);
}

// The flow's blocks are below the block count (FlowStream checks them).
bool LabelStore::flow_next(FlowStep& step) {
    std::uint32_t block = 0;
    if (!flow_->next(block)) {
        return false;
    }
    step = FlowStep{static_cast<std::uint32_t>(flow_->position()), block};
    return true;
}

bool LabelStore::flow_prev(FlowStep& step) {
    std::uint32_t block = 0;
    if (!flow_->prev(block)) {
        return false;
    }
    step = FlowStep{static_cast<std::uint32_t>(flow_->position() + 1), block};
    return true;
}

std::uint32_t LabelStore::block_at(std::uint32_t t) {
    flow_->seek(t - 1);
    FlowStep step;
    flow_next(step);
    return step.block;
}

FlowIndex& LabelStore::flow_index() {
    if (!flow_index_) {
        try {
            const FlowIndex::Corrupt corrupt_labels = [this](const std::string& what) { corrupt(what); };
            // One walk of the flow for every thread's index.
            std::call_once(derived_->index_once,
                           [&] { derived_->index_table = FlowIndex::walk(*flow_, block_counts_, corrupt_labels); });
            flow_index_ = std::make_unique<FlowIndex>(*flow_, derived_->index_table, corrupt_labels);
        } catch (const WetError&) {
            throw;
        } catch (const std::runtime_error& error) {
            corrupt(std::string("control flow: ") + error.what());
        }
    }
    return *flow_index_;
}

// A block's timestamps near the segments the flow's index holds decoded
// (where a slice is) are read there; elsewhere, after a few decodes of a
// segment, from block_times(), derived once.
bool LabelStore::by_index(bool near) {
    if (near || held_block_times() != nullptr) {
        return near;
    }
    return ++far_lookups_ <= far_lookups_by_index;
}

std::optional<std::uint64_t> LabelStore::block_execution(std::uint32_t block, std::uint32_t t) {
    if (t == 0 || t > executed_) {
        return std::nullopt;
    }
    if (by_index(flow_index().holds_time(t))) {
        const FlowIndex::Execution execution = flow_index().execution_at(t);
        return execution.block == block ? std::optional(execution.index) : std::nullopt;
    }
    return block_times().find(block, t);
}

std::uint64_t LabelStore::times_count_below(std::uint32_t node, std::uint64_t t) {
    if (times_of(node) != Times::block) {
        return node_times_.open(node).count_below(t);
    }
    const std::uint32_t block = shape_of(node).block;
    return by_index(flow_index().holds_time(t)) ? flow_index().count_below(block, t)
                                                : block_times().count_below(block, t);
}

std::uint32_t LabelStore::times_at(std::uint32_t node, std::uint64_t index) {
    if (times_of(node) != Times::block) {
        return node_times_.open(node).at(index).field1;
    }
    const std::uint32_t block = shape_of(node).block;
    if (const std::optional<std::uint32_t> t = flow_index().held_at(block, index)) {
        return *t;
    }
    return by_index(false) ? flow_index().at(block, index) : block_times().at(block, index);
}

std::uint32_t LabelStore::control_parent(std::uint32_t block, std::uint64_t index, std::uint32_t t) {
    const std::uint32_t distance = block_parents_.open(block).at(index).field1;
    if (distance == 0 || distance > t) {
        corrupt("control parent distance " + std::to_string(distance) + " at t " + std::to_string(t));
    }
    return t - distance;
}

std::optional<std::uint64_t> LabelStore::node_execution(std::uint32_t node, std::uint32_t t) {
    switch (times_of(node)) {
    case Times::never:
        return std::nullopt;
    case Times::block:
        return block_execution(shape_of(node).block, t);
    default:
        return node_times_.open(node).find(t);
    }
}

std::uint64_t LabelStore::node_executions(std::uint32_t node) const {
    switch (times_of(node)) {
    case Times::never:
        return 0;
    case Times::block:
        return block_counts_[shape_of(node).block];
    default:
        return node_times_.records(node);
    }
}

std::vector<std::uint32_t> LabelStore::node_times(std::uint32_t node) {
    switch (times_of(node)) {
    case Times::never:
        return {};
    case Times::block:
        return whole_block_times(shape_of(node).block);
    default:
        return node_times_.open(node).first_fields<std::uint32_t>();
    }
}

std::vector<std::uint64_t> LabelStore::node_values(std::uint32_t node) {
    return node_accesses(node).values;
}

LabelStore::NodeAccesses LabelStore::node_accesses(std::uint32_t node) {
    NodeAccesses trace{node_times(node), values_.open(node).first_fields<std::uint64_t>(), node_addresses(node)};
    std::vector<std::uint64_t>& values = trace.values;
    const std::vector<std::uint32_t>& times = trace.times;
    const std::vector<std::uint64_t>& addresses = trace.addresses;
    if (values.size() != times.size() || addresses.size() != times.size()) {
        corrupt("node " + std::to_string(node) + " has " + std::to_string(times.size()) + " timestamps, " +
                std::to_string(values.size()) + " values and " + std::to_string(addresses.size()) + " addresses");
    }
    if (defs_.empty(node)) {
        return trace;
    }
    // A load with defs keeps each value XOR its def's (value_from_def).
    if (values_by_sweep(node, values, times, addresses)) {
        return trace;
    }
    index_def_stores(node, values.size());
    for (std::uint64_t index = 0; index < values.size(); ++index) {
        if (const std::optional<DefExecution> def = def_execution(node, index, times[index], addresses[index])) {
            const StoreAddressIndex::Access stored = store_access(def->store, def->execution);
            values[index] ^= value_from_def(stored.value, stored.address, shape_of(def->store).size, addresses[index],
                                            shape_of(node).size);
        }
    }
    return trace;
}

void LabelStore::index_def_stores(std::uint32_t load, std::uint64_t executions) {
    std::vector<std::uint32_t> fields = defs_.open(load).first_fields<std::uint32_t>();
    std::sort(fields.begin(), fields.end());
    fields.erase(std::unique(fields.begin(), fields.end()), fields.end());
    std::vector<std::uint32_t> stores;
    for (const std::uint32_t field : fields) {
        if (field == by_writers_field1) {
            const Writers writers = writers_of(load);
            stores.insert(stores.end(), writers.first, writers.second);
        } else if (field >= first_def_store) {
            stores.push_back(field - first_def_store);
        }
    }
    for (const std::uint32_t store : stores) {
        // Ones that are not stores that ran are reported by def_execution.
        if (store < nodes_->size() && shape_of(store).access == 'S' && times_of(store) != Times::never &&
            node_executions(store) <= indexed_store_ratio * executions) {
            store_index(store);
        }
    }
}

void LabelStore::mark_address_siblings() {
    has_address_sibling_.assign(node_mode_.size(), false);
    for (const AddressSibling& pair : address_siblings_) {
        if (pair.node < has_address_sibling_.size()) {  // check_loaded refuses the others
            has_address_sibling_[pair.node] = true;
        }
    }
}

std::optional<std::uint32_t> LabelStore::address_sibling(std::uint32_t node) const {
    if (node >= has_address_sibling_.size() || !has_address_sibling_[node]) {
        return std::nullopt;
    }
    const auto found =
        std::lower_bound(address_siblings_.begin(), address_siblings_.end(), node,
                         [](const AddressSibling& pair, std::uint32_t value) { return pair.node < value; });
    return found->sibling;
}

std::uint64_t LabelStore::address_at(std::uint32_t node, std::uint64_t index) {
    std::uint64_t address = addresses_.open(node).at(index).field1;
    if (const std::optional<std::uint32_t> sibling = address_sibling(node)) {
        address += addresses_.open(*sibling).at(index).field1;
    }
    return address;
}

std::vector<std::uint64_t> LabelStore::node_addresses(std::uint32_t node) {
    std::vector<std::uint64_t> addresses = addresses_.open(node).first_fields<std::uint64_t>();
    if (const std::optional<std::uint32_t> sibling = address_sibling(node)) {
        const std::vector<std::uint64_t> base = addresses_.open(*sibling).first_fields<std::uint64_t>();
        for (std::size_t index = 0; index < addresses.size(); ++index) {
            addresses[index] += base[index];
        }
    }
    return addresses;
}

std::vector<LabelStats> LabelStore::stats(std::uint64_t events, std::uint64_t edges) const {
    std::vector<LabelStats> rows;
    rows.push_back({"control flow", executed_, 4ull * executed_, flow_->saved_bytes(), flow_->memory_bytes()});
    // Only the counts are saved; the timestamps are derived from the control flow.
    rows.push_back(
        {"block timestamps", executed_, 4ull * executed_, 4 * block_counts_.size(),
         block_counts_.capacity() * 4 +
             (derived_->times_made.load(std::memory_order_acquire) ? derived_->block_times->memory_bytes() : 0) +
             (flow_index_ ? flow_index_->memory_bytes() : 0)});
    std::uint64_t node_saved = node_mode_.size();
    for (std::size_t node = 0; node < node_mode_.size(); ++node) {
        if (node_mode_[node] == static_cast<std::uint8_t>(Times::own)) {
            node_saved += node_times_.saved_bytes(node);
        }
    }
    rows.push_back({"node timestamps", events, 4 * events, node_saved, node_times_.memory_bytes() + node_mode_.capacity()});
    const auto frames_saved = [](const std::shared_ptr<SharedFrames>& frames) {
        return frames ? frames->saved_bytes() : 8;
    };
    const auto frames_held = [](const std::shared_ptr<SharedFrames>& frames) {
        return frames ? frames->memory_bytes() : 0;
    };
    rows.push_back({"values", events, 8 * events, frames_saved(values_.frames()) + values_.saved_bytes(),
                    frames_held(values_.frames()) + values_.memory_bytes()});
    rows.push_back({"addresses", events, 8 * events,
                    frames_saved(addresses_.frames()) + addresses_.saved_bytes() + 8 + 8 * address_siblings_.size(),
                    frames_held(addresses_.frames()) + addresses_.memory_bytes() + address_siblings_bytes()});
    rows.push_back({"data dependences", edges, 8 * edges,
                    defs_.saved_bytes() + 8 + 8 * writer_loads_.size() + 4 * writers_.size(),
                    defs_.memory_bytes() + writers_bytes()});
    // A control dependence instance is the pair (t, parent_t), as the paper
    // counts an edge label; executions with no parent carry no label.
    const std::uint64_t controlled = control_dependences_;
    rows.push_back({"control dependences", controlled, 8 * controlled, block_parents_.saved_bytes(),
                    block_parents_.memory_bytes()});
    return rows;
}

std::size_t LabelStore::memory_bytes() const {
    std::size_t bytes = sizeof(*this) + node_mode_.capacity() + flow_->memory_bytes() + block_counts_.capacity() * 4 +
                        (flow_index_ ? flow_index_->memory_bytes() : 0);
    bytes += (derived_->times_made.load(std::memory_order_acquire) ? derived_->block_times->memory_bytes() : 0) +
             block_parents_.memory_bytes() + node_times_.memory_bytes() + values_.memory_bytes() +
             addresses_.memory_bytes() + address_siblings_bytes() + defs_.memory_bytes() + writers_bytes() +
             store_indexes_.memory_bytes([](const StoreAddressIndex& index) { return index.memory_bytes(); }) +
             swept_.memory_bytes([](const SweptDefs& swept) { return swept.memory_bytes(); }) +
             store_columns_.memory_bytes([](const std::shared_ptr<StoreColumns>& columns) {
                 return 4 * columns->times.capacity() + 8 * (columns->addresses.capacity() + columns->values.capacity());
             }) +
             4 * (def_requests_.capacity() + sweep_after_.capacity());
    for (const auto* frames : {values_.frames().get(), addresses_.frames().get()}) {
        bytes += frames ? frames->memory_bytes() : 0;
    }
    return bytes;
}

}  // namespace tcgen::wet
