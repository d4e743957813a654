// The compressed labels of a WET: building them from a raw trace, saving and
// loading them section by section, and walking their cursors for queries.

#include "label_store.hpp"

#include <algorithm>
#include <stdexcept>

namespace tcgen::wet {
namespace {

// Moves a timestamp stream's cursor to just before its first record >= t,
// walking from wherever it is (so queries close in time are cheap), and
// returns that record's index when it is t.
std::optional<std::uint64_t> find_time(NodeTimestamps& stream, std::uint32_t t) {
    NodeTimestamps::Record record{};
    while (stream.prev(record)) {
        if (record.field1 < t) {
            stream.next(record);
            break;
        }
    }
    while (stream.next(record)) {
        if (record.field1 >= t) {
            stream.prev(record);
            break;
        }
    }
    const std::uint64_t position = stream.position();
    if (stream.next(record)) {
        stream.prev(record);
        if (record.field1 == t) {
            return position;
        }
    }
    return std::nullopt;
}

// The record at `index`, reached by stepping from the cursor.
template <class Stream>
typename Stream::Record record_at(Stream& stream, std::uint64_t index) {
    typename Stream::Record record{};
    stream.seek(index);
    stream.next(record);
    return record;
}

// Every record's first field, walking from the nearer end.
template <class Stream, class Value>
std::vector<Value> all_records(Stream& stream) {
    std::vector<Value> values;
    // A stream's length is what its file claims (a run of hits codes many
    // records in a few bits): reserve no more than a bounded start.
    values.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(stream.size(), 1u << 20)));
    typename Stream::Record record{};
    if (stream.position() > stream.size() / 2) {
        stream.seek(stream.size());
        while (stream.prev(record)) {
            values.push_back(static_cast<Value>(record.field1));
        }
        std::reverse(values.begin(), values.end());
    } else {
        stream.seek(0);
        while (stream.next(record)) {
            values.push_back(static_cast<Value>(record.field1));
        }
    }
    return values;
}

template <class Stream, class Source, class Field>
std::optional<Stream> build_stream(const Source& source, Field field) {
    if (source.empty()) {
        return std::nullopt;
    }
    std::vector<typename Stream::Record> records(source.size());
    for (std::size_t index = 0; index < source.size(); ++index) {
        records[index] = field(source[index]);
    }
    return Stream::build(records.data(), records.size());
}

template <class Stream>
void save_optional(ByteWriter& writer, const std::optional<Stream>& stream) {
    if (stream) {
        writer.blob(stream->save());
    } else {
        writer.u64(0);
    }
}

template <class Stream>
std::optional<Stream> load_optional(ByteReader& reader, const std::string& what) {
    const std::uint64_t size = reader.u64();
    if (size == 0) {
        return std::nullopt;
    }
    const std::uint8_t* bytes = reader.bytes(size);
    try {
        return Stream::load(bytes, static_cast<std::size_t>(size));
    } catch (const WetError&) {
        throw;
    } catch (const std::runtime_error& error) {
        reader.fail(what + ": " + error.what());
    }
}

template <class Stream>
std::uint64_t size_of(const std::optional<Stream>& stream) {
    return stream ? stream->size() : 0;
}

template <class Stream>
std::uint64_t saved_bytes(const std::vector<std::optional<Stream>>& streams) {
    std::uint64_t bytes = 0;
    for (const auto& stream : streams) {
        bytes += 8 + (stream ? stream->save().size() : 0);
    }
    return bytes;
}

template <class Stream>
std::uint64_t held_bytes(const std::vector<std::optional<Stream>>& streams) {
    std::uint64_t bytes = streams.capacity() * sizeof(streams[0]);
    for (const auto& stream : streams) {
        bytes += stream ? stream->memory_bytes() : 0;
    }
    return bytes;
}

}  // namespace

LabelStore::LabelStore(std::uint32_t executed, std::vector<std::uint32_t> node_block, std::size_t blocks)
    : executed_(executed),
      node_block_(std::move(node_block)),
      block_times_(blocks),
      block_parents_(blocks),
      node_mode_(node_block_.size(), 0),
      node_times_(node_block_.size()),
      values_(node_block_.size()),
      addresses_(node_block_.size()),
      defs_(node_block_.size()) {}

LabelStore LabelStore::build(const RawTrace& raw, const std::vector<std::uint32_t>& parents,
                             const WholeExecutionTrace::Progress& progress) {
    const auto report = [&](std::string_view step, std::uint64_t done, std::uint64_t total) {
        if (progress) {
            progress(step, done, total);
        }
    };
    std::vector<std::uint32_t> node_block(raw.nodes.size());
    for (std::size_t node = 0; node < raw.nodes.size(); ++node) {
        node_block[node] = raw.nodes[node].block;
    }
    LabelStore store(static_cast<std::uint32_t>(raw.flow.size()), std::move(node_block), raw.blocks.size());

    for (const std::uint32_t parent : parents) {
        store.control_dependences_ += parent != 0 ? 1 : 0;
    }
    report("control flow", 0, 1);
    store.flow_ = BlockIds::build(reinterpret_cast<const BlockIds::Record*>(raw.flow.data()), raw.flow.size());
    static_assert(sizeof(BlockIds::Record) == sizeof(std::uint32_t));

    // Blocks: their executions grouped per block (a counting sort of the flow).
    std::vector<std::size_t> block_first(raw.blocks.size() + 1, 0);
    for (const std::uint32_t block : raw.flow) {
        ++block_first[block + 1];
    }
    for (std::size_t block = 0; block < raw.blocks.size(); ++block) {
        block_first[block + 1] += block_first[block];
    }
    std::vector<std::uint32_t> block_order(raw.flow.size());
    {
        std::vector<std::size_t> fill(block_first.begin(), block_first.end() - 1);
        for (std::size_t index = 0; index < raw.flow.size(); ++index) {
            block_order[fill[raw.flow[index]]++] = static_cast<std::uint32_t>(index + 1);
        }
    }
    for (std::size_t block = 0; block < raw.blocks.size(); ++block) {
        if (block % 256 == 0) {
            report("block labels", block, raw.blocks.size());
        }
        const std::vector<std::uint32_t> times(block_order.begin() + static_cast<std::ptrdiff_t>(block_first[block]),
                                               block_order.begin() + static_cast<std::ptrdiff_t>(block_first[block + 1]));
        store.block_times_[block] =
            build_stream<NodeTimestamps>(times, [](std::uint32_t t) { return NodeTimestamps::Record{t}; });
        store.block_parents_[block] = build_stream<ControlParents>(
            times, [&](std::uint32_t t) { return ControlParents::Record{t - parents[t - 1]}; });
    }

    // Nodes: their events grouped per node, each event with its def.
    std::vector<std::size_t> node_first(raw.nodes.size() + 1, 0);
    for (const RawEvent& event : raw.events) {
        ++node_first[event.node + 1];
    }
    for (std::size_t node = 0; node < raw.nodes.size(); ++node) {
        node_first[node + 1] += node_first[node];
    }
    std::vector<std::size_t> node_order(raw.events.size());
    std::vector<LoadDefs::Record> event_defs(raw.events.size(), LoadDefs::Record{0, 0});
    {
        std::vector<std::size_t> fill(node_first.begin(), node_first.end() - 1);
        std::size_t edge = 0;
        for (std::size_t index = 0; index < raw.events.size(); ++index) {
            const RawEvent& event = raw.events[index];
            node_order[fill[event.node]++] = index;
            if (edge < raw.edges.size() && raw.edges[edge].use == event.node && raw.edges[edge].t_use == event.t) {
                event_defs[index] = LoadDefs::Record{raw.edges[edge].def + 1, event.t - raw.edges[edge].t_def};
                ++edge;
            }
        }
    }
    for (std::size_t node = 0; node < raw.nodes.size(); ++node) {
        if (node % 256 == 0) {
            report("node labels", node, raw.nodes.size());
        }
        const std::vector<std::size_t> events(node_order.begin() + static_cast<std::ptrdiff_t>(node_first[node]),
                                              node_order.begin() + static_cast<std::ptrdiff_t>(node_first[node + 1]));
        if (events.empty()) {
            continue;
        }
        const std::uint32_t block = raw.nodes[node].block;
        // A node's executions are a subset of its block's: as many means the same.
        if (events.size() == block_first[block + 1] - block_first[block]) {
            store.node_mode_[node] = static_cast<std::uint8_t>(Times::block);
        } else {
            store.node_mode_[node] = static_cast<std::uint8_t>(Times::own);
            store.node_times_[node] = build_stream<NodeTimestamps>(
                events, [&](std::size_t index) { return NodeTimestamps::Record{raw.events[index].t}; });
        }
        store.values_[node] = build_stream<NodeValues>(
            events, [&](std::size_t index) { return NodeValues::Record{raw.events[index].value}; });
        store.addresses_[node] = build_stream<NodeAddresses>(
            events, [&](std::size_t index) { return NodeAddresses::Record{raw.events[index].address}; });
        if (raw.nodes[node].access == 'L' &&
            std::any_of(events.begin(), events.end(), [&](std::size_t index) { return event_defs[index].field1 != 0; })) {
            store.defs_[node] = build_stream<LoadDefs>(events, [&](std::size_t index) { return event_defs[index]; });
        }
    }
    report("done", 1, 1);
    return store;
}

std::vector<std::uint8_t> LabelStore::save_section(std::size_t section) const {
    ByteWriter writer;
    switch (section) {
    case 0:
        writer.blob(flow_->save());
        break;
    case 1:
        for (const auto& stream : block_times_) save_optional(writer, stream);
        break;
    case 2:
        for (const auto& stream : block_parents_) save_optional(writer, stream);
        break;
    case 3:
        for (std::size_t node = 0; node < node_times_.size(); ++node) {
            writer.u8(node_mode_[node]);
            if (node_mode_[node] == static_cast<std::uint8_t>(Times::own)) {
                writer.blob(node_times_[node]->save());
            }
        }
        break;
    case 4:
        for (const auto& stream : values_) save_optional(writer, stream);
        break;
    case 5:
        for (const auto& stream : addresses_) save_optional(writer, stream);
        break;
    default:
        for (const auto& stream : defs_) save_optional(writer, stream);
        break;
    }
    return std::move(writer.data());
}

void LabelStore::load_section(std::size_t section, ByteReader& reader) {
    const auto name = [](const char* what, std::size_t index) { return std::string(what) + " " + std::to_string(index); };
    switch (section) {
    case 0:
        flow_ = load_optional<BlockIds>(reader, "control flow");
        break;
    case 1:
        for (std::size_t block = 0; block < block_times_.size(); ++block)
            block_times_[block] = load_optional<NodeTimestamps>(reader, name("timestamps of block", block));
        break;
    case 2:
        for (std::size_t block = 0; block < block_parents_.size(); ++block)
            block_parents_[block] = load_optional<ControlParents>(reader, name("control parents of block", block));
        break;
    case 3:
        for (std::size_t node = 0; node < node_times_.size(); ++node) {
            node_mode_[node] = reader.u8();
            if (node_mode_[node] > static_cast<std::uint8_t>(Times::own)) {
                reader.fail(name("node", node) + ": unknown timestamp mode " + std::to_string(node_mode_[node]));
            }
            if (node_mode_[node] == static_cast<std::uint8_t>(Times::own)) {
                node_times_[node] = load_optional<NodeTimestamps>(reader, name("timestamps of node", node));
                if (!node_times_[node]) {
                    reader.fail(name("node", node) + ": its timestamps are missing");
                }
            }
        }
        break;
    case 4:
        for (std::size_t node = 0; node < values_.size(); ++node)
            values_[node] = load_optional<NodeValues>(reader, name("values of node", node));
        break;
    case 5:
        for (std::size_t node = 0; node < addresses_.size(); ++node)
            addresses_[node] = load_optional<NodeAddresses>(reader, name("addresses of node", node));
        break;
    default:
        for (std::size_t node = 0; node < defs_.size(); ++node)
            defs_[node] = load_optional<LoadDefs>(reader, name("defs of node", node));
        break;
    }
    reader.expect_end();
}

void LabelStore::check_loaded(const std::string& file, std::uint64_t events, std::uint64_t edges) const {
    const auto fail = [&](const std::string& what) { throw WetError(file, "inconsistent labels: " + what); };
    if (!flow_ || flow_->size() != executed_) {
        fail("the control flow does not hold " + std::to_string(executed_) + " timestamps");
    }
    std::uint64_t block_executions = 0;
    for (std::size_t block = 0; block < block_times_.size(); ++block) {
        if (size_of(block_times_[block]) != size_of(block_parents_[block])) {
            fail("block " + std::to_string(block) + " has as many timestamps as control parents");
        }
        block_executions += size_of(block_times_[block]);
    }
    if (block_executions != executed_) {
        fail("the blocks' timestamps are not " + std::to_string(executed_));
    }
    std::uint64_t node_events = 0;
    for (std::size_t node = 0; node < node_mode_.size(); ++node) {
        const std::uint64_t count = node_executions(node);
        if (size_of(values_[node]) != count || size_of(addresses_[node]) != count ||
            (defs_[node] && size_of(defs_[node]) != count) ||
            (node_mode_[node] != static_cast<std::uint8_t>(Times::never) && count == 0)) {
            fail("node " + std::to_string(node) + "'s labels differ in length");
        }
        node_events += count;
    }
    if (node_events != events) {
        fail("the nodes' executions are not " + std::to_string(events));
    }
    (void)edges;
}

void LabelStore::corrupt(const std::string& what) const {
    throw WetError(name_, "corrupt labels: " + what);
}

std::uint32_t LabelStore::flow_position() const {
    return static_cast<std::uint32_t>(flow_->position());
}

void LabelStore::flow_seek(std::uint32_t position) {
    flow_->seek(position);
}

bool LabelStore::flow_next(FlowStep& step) {
    BlockIds::Record record{};
    if (!flow_->next(record)) {
        return false;
    }
    if (record.field1 >= block_times_.size()) {
        corrupt("block " + std::to_string(record.field1) + " in the control flow");
    }
    step = FlowStep{static_cast<std::uint32_t>(flow_->position()), record.field1};
    return true;
}

bool LabelStore::flow_prev(FlowStep& step) {
    BlockIds::Record record{};
    if (!flow_->prev(record)) {
        return false;
    }
    if (record.field1 >= block_times_.size()) {
        corrupt("block " + std::to_string(record.field1) + " in the control flow");
    }
    step = FlowStep{static_cast<std::uint32_t>(flow_->position() + 1), record.field1};
    return true;
}

std::uint32_t LabelStore::block_at(std::uint32_t t) {
    flow_->seek(t - 1);
    FlowStep step;
    flow_next(step);
    return step.block;
}

std::optional<std::uint64_t> LabelStore::block_execution(std::uint32_t block, std::uint32_t t) {
    if (!block_times_[block]) {
        return std::nullopt;
    }
    return find_time(*block_times_[block], t);
}

std::uint32_t LabelStore::control_parent(std::uint32_t block, std::uint64_t index, std::uint32_t t) {
    const std::uint32_t distance = record_at(*block_parents_[block], index).field1;
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
        return block_execution(node_block_[node], t);
    default:
        return find_time(*node_times_[node], t);
    }
}

std::uint64_t LabelStore::node_executions(std::uint32_t node) const {
    switch (times_of(node)) {
    case Times::never:
        return 0;
    case Times::block:
        return size_of(block_times_[node_block_[node]]);
    default:
        return node_times_[node]->size();
    }
}

std::vector<std::uint32_t> LabelStore::node_times(std::uint32_t node) {
    switch (times_of(node)) {
    case Times::never:
        return {};
    case Times::block:
        return all_records<NodeTimestamps, std::uint32_t>(*block_times_[node_block_[node]]);
    default:
        return all_records<NodeTimestamps, std::uint32_t>(*node_times_[node]);
    }
}

std::vector<std::uint64_t> LabelStore::node_values(std::uint32_t node) {
    return values_[node] ? all_records<NodeValues, std::uint64_t>(*values_[node]) : std::vector<std::uint64_t>{};
}

std::vector<std::uint64_t> LabelStore::node_addresses(std::uint32_t node) {
    return addresses_[node] ? all_records<NodeAddresses, std::uint64_t>(*addresses_[node])
                            : std::vector<std::uint64_t>{};
}

std::optional<Def> LabelStore::def_at(std::uint32_t node, std::uint64_t index, std::uint32_t t) {
    if (!defs_[node]) {
        return std::nullopt;
    }
    const LoadDefs::Record record = record_at(*defs_[node], index);
    if (record.field1 == 0) {
        return std::nullopt;
    }
    if (record.field1 > node_block_.size() || record.field2 > t) {
        corrupt("def of node " + std::to_string(node) + " at t " + std::to_string(t));
    }
    return Def{record.field1 - 1, t - record.field2};
}

std::vector<LabelStats> LabelStore::stats(std::uint64_t events, std::uint64_t edges) const {
    std::vector<LabelStats> rows;
    rows.push_back({"control flow", executed_, 4ull * executed_, 8 + flow_->save().size(), flow_->memory_bytes()});
    rows.push_back({"block timestamps", executed_, 4ull * executed_, saved_bytes(block_times_), held_bytes(block_times_)});
    std::uint64_t node_saved = node_mode_.size();
    for (const auto& stream : node_times_) {
        node_saved += stream ? 8 + stream->save().size() : 0;
    }
    rows.push_back({"node timestamps", events, 4 * events, node_saved, held_bytes(node_times_) + node_mode_.capacity()});
    rows.push_back({"values", events, 8 * events, saved_bytes(values_), held_bytes(values_)});
    rows.push_back({"addresses", events, 8 * events, saved_bytes(addresses_), held_bytes(addresses_)});
    rows.push_back({"data dependences", edges, 8 * edges, saved_bytes(defs_), held_bytes(defs_)});
    // A control dependence instance is the pair (t, parent_t), as the paper
    // counts an edge label; executions with no parent carry no label.
    const std::uint64_t controlled = control_dependences_;
    rows.push_back({"control dependences", controlled, 8 * controlled, saved_bytes(block_parents_),
                    held_bytes(block_parents_)});
    return rows;
}

std::size_t LabelStore::memory_bytes() const {
    std::size_t bytes = sizeof(*this) + node_block_.capacity() * 4 + node_mode_.capacity() + flow_->memory_bytes();
    bytes += held_bytes(block_times_) + held_bytes(block_parents_) + held_bytes(node_times_) + held_bytes(values_) +
             held_bytes(addresses_) + held_bytes(defs_);
    return bytes;
}

}  // namespace tcgen::wet
