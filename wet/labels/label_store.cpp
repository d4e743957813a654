// The compressed labels of a WET: building them from a raw trace, saving and
// loading them section by section, and walking their cursors for queries.

#include "wet/labels/label_store.hpp"

#include "wet/labels/address_siblings.hpp"
#include "wet/labels/grouping.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

namespace tcgen::wet {
namespace {

// The executions of store node `store` that ran before load node `load`
// executed at t are those at timestamps below the returned one: a store in
// the same block execution runs before the load when its id is lower (ids
// follow execution order within a block, docs/wet-streams.md).
std::uint64_t store_horizon(std::uint32_t store, std::uint32_t load, std::uint32_t t) {
    return store < load ? std::uint64_t{t} + 1 : t;
}

// A def's second field: 0 when the def is inferred from the addresses (the
// latest execution of the store node before the load whose bytes cover the
// load's first byte: LabelStore::inferred_def); else 1 + its
// rank when below ranked_defs, else 1 + ranked_defs + t_use - t_def (or
// 1 + the rank, if that sum would not fit). A distance is at least the rank
// (each execution of the store has its own timestamp), so the two ranges
// never meet.
constexpr std::uint32_t inferred_field2 = 0;
constexpr std::uint32_t ranked_defs = 64;
constexpr std::uint32_t first_rank = 1;
constexpr std::uint32_t first_distance = first_rank + ranked_defs;

std::uint32_t encode_def(std::uint64_t rank, std::uint32_t distance) {
    const bool ranked = rank < ranked_defs || distance > UINT32_MAX - first_distance;
    return ranked ? first_rank + static_cast<std::uint32_t>(rank) : first_distance + distance;
}

// Stores wider than this are never inferred from (build looks up each
// possible start address of a store that covers the load's first byte).
constexpr std::uint16_t widest_inferred_store = 64;

// A def's first field: 0 none; 1 the latest write among its load's writers
// (load_writers below) that covers the load's first byte, its second
// field 0; else 2 + its store node, and the second field as above.
constexpr std::uint32_t by_writers_field1 = 1;
constexpr std::uint32_t first_def_store = 2;
// A load with more writers keeps its store node with each def: a reader
// asks every writer for each def it finds among them.
constexpr std::size_t max_load_writers = 32;

// Whether a store of `size` bytes at `store_address` wrote the byte at `address`.
bool covers(std::uint64_t store_address, std::uint64_t size, std::uint64_t address) {
    return address >= store_address && address - store_address < size;
}

// A load's value as its def wrote it: the load's bytes (its first
// min(size, 8)) taken from the store's recorded value (the store's first
// min(size, 8) bytes) when they all lie within it, else 0 (unknown). A load
// with defs keeps its values XOR this prediction: a load that reads back what
// its def wrote keeps a 0 (most do).
std::uint64_t value_from_def(std::uint64_t store_value, std::uint64_t store_address, std::uint16_t store_size,
                             std::uint64_t load_address, std::uint16_t load_size) {
    const std::uint64_t stored = std::min<std::uint16_t>(store_size, 8);
    const std::uint64_t loaded = std::min<std::uint16_t>(load_size, 8);
    if (load_address < store_address || load_address - store_address >= stored ||
        loaded > stored - (load_address - store_address)) {
        return 0;
    }
    const std::uint64_t value = store_value >> (8 * (load_address - store_address));
    return loaded == 8 ? value : value & ((std::uint64_t{1} << (8 * loaded)) - 1);
}

// Per load node, its writers: the store nodes its defs name, sorted, when
// there are 2 to max_load_writers of them and each can be inferred from
// (its size at most widest_inferred_store); else none.
std::vector<std::vector<std::uint32_t>> load_writers(const RawTrace& raw) {
    std::vector<std::vector<std::uint32_t>> writers(raw.nodes.size());
    for (const RawEdge& edge : raw.edges) {
        std::vector<std::uint32_t>& stores = writers[edge.use];
        if (std::find(stores.begin(), stores.end(), edge.def) == stores.end() && stores.size() <= max_load_writers) {
            stores.push_back(edge.def);
        }
    }
    for (std::vector<std::uint32_t>& stores : writers) {
        const bool inferable = std::all_of(stores.begin(), stores.end(), [&](std::uint32_t store) {
            return raw.nodes[store].size != 0 && raw.nodes[store].size <= widest_inferred_store;
        });
        if (stores.size() < 2 || stores.size() > max_load_writers || !inferable) {
            stores.clear();
        }
        std::sort(stores.begin(), stores.end());
    }
    return writers;
}

// How a reader finds each def of a raw trace (LoadDefs): as the latest write
// among its load's writers that covers the load's first byte (by_writers),
// as the latest such write of its own store node (by_store), or only from
// a rank or a distance kept with it (kept). edge_event[e]: the load event of
// edge e; node_order[node_first[n] ...]: node n's events in order. Per store
// node, its executions are walked in order keeping the latest at each
// address, and the edges that ask it (its own defs, and every def of the
// loads it is a writer of; in the order of their horizons) answered as the
// walk reaches them: per edge, the latest answer (t, then the higher store
// id: the later in a block execution) against the def.
enum class DefFound : std::uint8_t { kept, by_store, by_writers };
std::vector<DefFound> find_defs(const RawTrace& raw, const std::vector<std::size_t>& edge_event,
                                const std::vector<std::size_t>& node_first, const std::vector<std::size_t>& node_order,
                                const std::vector<std::vector<std::uint32_t>>& writers) {
    const Grouping<std::size_t> by_store = group_items<std::size_t>(
        raw.edges.size(), raw.nodes.size(), [&](std::size_t edge) { return raw.edges[edge].def; });
    const Grouping<std::size_t> by_load = group_items<std::size_t>(
        raw.edges.size(), raw.nodes.size(), [&](std::size_t edge) { return raw.edges[edge].use; });
    std::vector<std::vector<std::uint32_t>> written_by(raw.nodes.size());  // store -> loads it is a writer of
    for (std::uint32_t load = 0; load < raw.nodes.size(); ++load) {
        for (const std::uint32_t store : writers[load]) {
            written_by[store].push_back(load);
        }
    }
    struct Latest {
        std::uint32_t t = 0;  // 0: none found (timestamps start at 1)
        std::uint32_t store = 0;
    };
    std::vector<Latest> latest_write(raw.edges.size());
    std::vector<bool> own_store(raw.edges.size(), false);
    std::unordered_map<std::uint64_t, std::uint64_t> latest;  // address -> execution index
    std::vector<std::pair<std::uint64_t, std::size_t>> asked;  // (horizon, edge), by horizon
    for (std::uint32_t store = 0; store < raw.nodes.size(); ++store) {
        const std::uint16_t size = raw.nodes[store].size;
        if (size == 0 || size > widest_inferred_store) {
            continue;
        }
        asked.clear();
        const auto ask = [&](std::size_t edge) {
            asked.emplace_back(store_horizon(store, raw.edges[edge].use, raw.edges[edge].t_use), edge);
        };
        for (std::size_t at = by_store.first[store]; at < by_store.first[store + 1]; ++at) {
            if (writers[raw.edges[by_store.order[at]].use].empty()) {
                ask(by_store.order[at]);
            }
        }
        for (const std::uint32_t load : written_by[store]) {
            for (std::size_t at = by_load.first[load]; at < by_load.first[load + 1]; ++at) {
                ask(by_load.order[at]);
            }
        }
        if (asked.empty()) {
            continue;
        }
        // The walk needs the horizons in order only (each edge is asked once).
        std::sort(asked.begin(), asked.end());
        latest.clear();
        const std::size_t* executions = node_order.data() + node_first[store];
        const std::uint64_t execution_count = node_first[store + 1] - node_first[store];
        std::uint64_t before = 0;
        for (const auto& [horizon, edge] : asked) {
            for (; before < execution_count && raw.events[executions[before]].t < horizon; ++before) {
                latest[raw.events[executions[before]].address] = before;
            }
            const std::uint64_t address = raw.events[edge_event[edge]].address;
            std::optional<std::uint64_t> found;
            for (std::uint64_t back = 0; back < size && back <= address; ++back) {
                const auto entry = latest.find(address - back);
                if (entry != latest.end() && (!found || entry->second > *found)) {
                    found = entry->second;
                }
            }
            if (!found) {
                continue;
            }
            const std::uint32_t t = raw.events[executions[*found]].t;
            if (store == raw.edges[edge].def) {
                own_store[edge] = t == raw.edges[edge].t_def;
            }
            Latest& write = latest_write[edge];
            if (t > write.t || (t == write.t && store > write.store)) {
                write = Latest{t, store};
            }
        }
    }
    std::vector<DefFound> found(raw.edges.size(), DefFound::kept);
    for (std::size_t edge = 0; edge < raw.edges.size(); ++edge) {
        const RawEdge& def = raw.edges[edge];
        const Latest& write = latest_write[edge];
        if (!writers[def.use].empty() && write.t == def.t_def && write.store == def.def) {
            found[edge] = DefFound::by_writers;
        } else if (own_store[edge]) {
            found[edge] = DefFound::by_store;
        }
    }
    return found;
}

template <class Stream, class Source, class Field>
Label<Stream> make_label(const Source& source, Field field, std::uint64_t chunk_records,
                         int planes_level = byte_planes::level) {
    std::vector<typename Stream::Record> records(source.size());
    for (std::size_t index = 0; index < source.size(); ++index) {
        records[index] = field(source[index]);
    }
    return Label<Stream>::make(records, chunk_records, planes_level);
}

// Moves the planes chunks of `labels` into shared frames, ordered by
// content: chunks sorted by a min-hash of their records (the least of
// record * a 64-bit odd constant, top bits), so that chunks that hold the
// same values, whatever node they belong to, share a frame. Kept only when
// the frames and the chunks' places take fewer bytes than the chunks did;
// returns the frames, or null. records_of(node): node n's records.
template <class Stream, class RecordsOf>
std::shared_ptr<SharedFrames> share_frames(std::vector<Label<Stream>>& labels, const RecordsOf& records_of,
                                           std::uint64_t chunk_records) {
    using Record = typename Stream::Record;
    struct Candidate {
        std::uint64_t key;
        std::size_t node;
        std::size_t chunk;
        std::size_t first;
        std::size_t count;
    };
    std::vector<Candidate> candidates;
    std::uint64_t own_bytes = 0;
    // Plain labels of a few records stay plain: a chunk's checkpoint and
    // place cost more than its records.
    constexpr std::uint64_t least_shared_records = 8;
    std::vector<std::size_t> were_plain;
    for (std::size_t node = 0; node < labels.size(); ++node) {
        if (labels[node].is_plain() && labels[node].size() >= least_shared_records) {
            were_plain.push_back(node);
            own_bytes += labels[node].saved_bytes();
            labels[node].make_chunked(chunk_records);
            own_bytes -= labels[node].saved_bytes();
        }
        if (ChunkedStream<Stream>* chunks = labels[node].chunks()) {
            chunks->each_unshared_chunk([&](std::size_t chunk, std::uint64_t first, std::size_t count) {
                candidates.push_back(Candidate{0, node, chunk, static_cast<std::size_t>(first), count});
                own_bytes += chunks->chunk_saved_bytes(chunk);
            });
        }
    }
    const auto keep_unshared = [&] {
        for (const std::size_t node : were_plain) {
            labels[node] = Label<Stream>::make(labels[node].all(), chunk_records);
        }
        return nullptr;
    };
    if (candidates.empty()) {
        return keep_unshared();
    }
    // The records of every candidate, laid end to end, node by node.
    std::vector<Record> records;
    std::vector<std::size_t> at(candidates.size());
    for (std::size_t index = 0; index < candidates.size();) {
        const std::vector<Record> node_records = records_of(candidates[index].node);
        for (const std::size_t node = candidates[index].node; index < candidates.size() && candidates[index].node == node;
             ++index) {
            Candidate& candidate = candidates[index];
            at[index] = records.size();
            records.insert(records.end(), node_records.begin() + static_cast<std::ptrdiff_t>(candidate.first),
                           node_records.begin() + static_cast<std::ptrdiff_t>(candidate.first + candidate.count));
            std::uint64_t key = ~std::uint64_t{0};
            for (std::size_t i = at[index]; i < records.size(); ++i) {
                std::uint64_t value = 0;
                std::memcpy(&value, &records[i], std::min(sizeof(value), sizeof(Record)));
                key = std::min(key, (value * std::uint64_t{0x9E3779B97F4A7C15}) >> 11);
            }
            candidate.key = key;
        }
    }
    std::vector<std::size_t> order(candidates.size());
    for (std::size_t index = 0; index < order.size(); ++index) {
        order[index] = index;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return candidates[a].key < candidates[b].key; });
    std::vector<SharedFrames::Piece> pieces;
    for (const std::size_t index : order) {
        pieces.push_back(SharedFrames::Piece{reinterpret_cast<const std::uint8_t*>(records.data() + at[index]),
                                             candidates[index].count, sizeof(Record)});
    }
    std::vector<SharedFrames::Place> places;
    std::shared_ptr<SharedFrames> frames = SharedFrames::build(pieces, places);
    if (frames->saved_bytes() + 8 * candidates.size() >= own_bytes) {
        return keep_unshared();
    }
    for (std::size_t piece = 0; piece < order.size(); ++piece) {
        const Candidate& candidate = candidates[order[piece]];
        labels[candidate.node].chunks()->share(candidate.chunk, frames, places[piece]);
    }
    return frames;
}

void save_frames(ByteWriter& writer, const std::shared_ptr<SharedFrames>& frames) {
    if (frames) {
        frames->save(writer);
    } else {
        writer.u64(0);
    }
}

std::shared_ptr<SharedFrames> load_frames(ByteReader& reader, const std::string& what) {
    std::shared_ptr<SharedFrames> frames = SharedFrames::load(reader, what);
    return frames->size() != 0 ? frames : nullptr;
}

template <class Stream, class Value>
std::vector<Value> first_fields(Label<Stream>& label) {
    std::vector<Value> values;
    for (const auto& record : label.all()) {
        values.push_back(static_cast<Value>(record.field1));
    }
    return values;
}

}  // namespace

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

const BlockTimes& LabelStore::block_times() {
    if (!block_times_) {
        // The records the walk decodes, not what the file claims, bound what
        // is allocated.
        std::vector<std::uint32_t> flow;
        flow.reserve(std::min<std::size_t>(executed_, std::size_t{1} << 20));
        bool backward = false;
        walk_flow([&](std::uint32_t executed, std::uint32_t t) {
            backward = t != flow.size() + 1;
            flow.push_back(executed);
        });
        if (backward) {
            std::reverse(flow.begin(), flow.end());
        }
        block_times_.emplace(group_by_block(flow.data(), flow.size(), block_counts_.size()));
    }
    return *block_times_;
}

std::vector<std::uint32_t> LabelStore::whole_block_times(std::uint32_t block) {
    // One block's timestamps from the flow's index cost a decode of the
    // segments it runs in, at most a walk of the flow, a fraction of
    // deriving every block's; a query that needs more blocks whole pays for
    // all of them at once.
    if (!block_times_ && flow_walks_ < walks_for_single_blocks) {
        ++flow_walks_;
        return flow_index().times(block);
    }
    return block_times().times(block);
}

LabelStore::LabelStore(std::uint32_t executed, std::shared_ptr<const std::vector<RawNode>> nodes, std::size_t blocks)
    : executed_(executed), nodes_(std::move(nodes)), block_counts_(blocks, 0), node_mode_(nodes_->size(), 0) {}

LabelStore LabelStore::build(const RawTrace& raw, std::shared_ptr<const std::vector<RawNode>> nodes,
                             const std::vector<std::uint32_t>& parents, const WholeExecutionTrace::Progress& progress,
                             std::uint64_t checkpoint_records) {
    const auto report = [&](std::string_view step, std::uint64_t done, std::uint64_t total) {
        if (progress) {
            progress(step, done, total);
        }
    };
    LabelStore store(static_cast<std::uint32_t>(raw.flow.size()), std::move(nodes), raw.blocks.size());

    for (const std::uint32_t parent : parents) {
        store.control_dependences_ += parent != 0 ? 1 : 0;
    }
    report("control flow", 0, 1);
    store.flow_ = FlowStream::build(raw.flow.data(), raw.flow.size(), raw.blocks.size(), checkpoint_records);

    // Blocks: their executions grouped per block, the same way load() derives them.
    const BlockExecutions executions = group_by_block(raw.flow.data(), raw.flow.size(), raw.blocks.size());
    for (std::size_t block = 0; block < raw.blocks.size(); ++block) {
        store.block_counts_[block] = static_cast<std::uint32_t>(executions.first[block + 1] - executions.first[block]);
    }
    store.block_times_.emplace(executions);
    for (std::size_t block = 0; block < raw.blocks.size(); ++block) {
        store.block_parents_.add(make_label<ControlParents>(
            executions.times(block), [&](std::uint32_t t) { return ControlParents::Record{t - parents[t - 1]}; },
            checkpoint_records));
    }
    store.block_parents_.shrink();
    const auto& block_first = executions.first;

    // Nodes: their events grouped per node, each event with its def.
    const Grouping<std::size_t> by_node = group_items<std::size_t>(
        raw.events.size(), raw.nodes.size(), [&](std::size_t event) { return raw.events[event].node; });
    const std::vector<std::size_t>& node_first = by_node.first;
    const std::vector<std::size_t>& node_order = by_node.order;
    // A def is kept as its store node and, for a recent def, its rank among
    // that node's executions before the load (0: the latest), not as
    // t_use - t_def: a load that reads what a loop stored a few iterations
    // ago has one rank, but a distance that grows with the loop's body. An
    // older def keeps its distance (encode_def): finding it by rank would
    // walk the store's timestamps back that far and, in a slice, forth again.
    const auto executions_before = [&](std::uint32_t node, std::uint64_t t) {
        const auto first = node_order.begin() + static_cast<std::ptrdiff_t>(node_first[node]);
        const auto last = node_order.begin() + static_cast<std::ptrdiff_t>(node_first[node + 1]);
        const auto found = std::lower_bound(first, last, t, [&](std::size_t event, std::uint64_t value) {
            return raw.events[event].t < value;
        });
        return static_cast<std::uint64_t>(found - first);
    };
    // Most defs need neither: the store's addresses give them (inferred_field2).
    // And most loads read what their def wrote: their values are kept XOR
    // the def's (value_from_def).
    std::vector<LoadDefs::Record> event_defs(raw.events.size(), LoadDefs::Record{0, 0});
    std::vector<std::uint64_t> predicted(raw.events.size(), 0);
    {
        std::vector<std::size_t> edge_event(raw.edges.size());
        std::size_t edge = 0;
        for (std::size_t index = 0; index < raw.events.size() && edge < raw.edges.size(); ++index) {
            const RawEdge& def = raw.edges[edge];
            if (def.use == raw.events[index].node && def.t_use == raw.events[index].t) {
                edge_event[edge++] = index;
            }
        }
        const std::vector<std::vector<std::uint32_t>> writers = load_writers(raw);
        const std::vector<DefFound> found = find_defs(raw, edge_event, node_first, node_order, writers);
        for (std::uint32_t load = 0; load < writers.size(); ++load) {
            if (!writers[load].empty()) {
                store.writer_loads_.push_back(load);
                store.writers_.insert(store.writers_.end(), writers[load].begin(), writers[load].end());
                store.writer_first_.push_back(static_cast<std::uint32_t>(store.writers_.size()));
            }
        }
        for (edge = 0; edge < raw.edges.size(); ++edge) {
            const RawEdge& def = raw.edges[edge];
            const std::uint64_t def_index = executions_before(def.def, def.t_def);
            LoadDefs::Record record{def.def + first_def_store, inferred_field2};
            if (found[edge] == DefFound::by_writers) {
                record.field1 = by_writers_field1;
            } else if (found[edge] == DefFound::kept) {
                const std::uint64_t before = executions_before(def.def, store_horizon(def.def, def.use, def.t_use));
                record.field2 = encode_def(before - 1 - def_index, def.t_use - def.t_def);
            }
            event_defs[edge_event[edge]] = record;
            const RawEvent& load = raw.events[edge_event[edge]];
            const RawEvent& stored = raw.events[node_order[node_first[def.def] + def_index]];
            predicted[edge_event[edge]] = value_from_def(stored.value, stored.address, raw.nodes[def.def].size,
                                                         load.address, raw.nodes[load.node].size);
        }
    }
    // The values' and the addresses' chunks go into shared frames (below)
    // once every node's are made.
    const auto node_records = [&](std::size_t node, auto field) {
        using Record = decltype(field(std::size_t{0}));
        std::vector<Record> records;
        for (std::size_t index = node_first[node]; index < node_first[node + 1]; ++index) {
            records.push_back(field(node_order[index]));
        }
        return records;
    };
    const auto value_of = [&](std::size_t event) {
        return NodeValues::Record{raw.events[event].value ^ predicted[event]};
    };
    // Addresses: a node's own, or their differences from its sibling's
    // (address_siblings.hpp).
    // A node's executions are a subset of its block's: as many means the same.
    const auto ran_every_execution = [&](std::size_t node) {
        const std::uint32_t block = raw.nodes[node].block;
        return node_first[node + 1] != node_first[node] &&
               node_first[node + 1] - node_first[node] == block_first[block + 1] - block_first[block];
    };
    const auto own_addresses = [&](std::size_t node) {
        std::vector<std::uint64_t> addresses;
        for (std::size_t index = node_first[node]; index < node_first[node + 1]; ++index) {
            addresses.push_back(raw.events[node_order[index]].address);
        }
        return addresses;
    };
    std::vector<bool> every_execution(raw.nodes.size());
    for (std::size_t node = 0; node < raw.nodes.size(); ++node) {
        every_execution[node] = ran_every_execution(node);
    }
    report("address siblings", 0, 1);
    const std::vector<std::uint32_t> siblings = choose_address_siblings(
        raw.nodes, every_execution, raw.blocks.size(), own_addresses, [&](const std::vector<std::uint64_t>& addresses) {
            return make_label<NodeAddresses>(
                       addresses, [](std::uint64_t address) { return NodeAddresses::Record{address}; },
                       checkpoint_records)
                .saved_bytes();
        });
    const auto address_records = [&](std::size_t node) {
        std::vector<NodeAddresses::Record> records;
        const std::size_t first = node_first[node];
        const std::size_t sibling_first = siblings[node] != 0 ? node_first[siblings[node] - 1] : 0;
        for (std::size_t index = 0; index < node_first[node + 1] - first; ++index) {
            std::uint64_t address = raw.events[node_order[first + index]].address;
            if (siblings[node] != 0) {
                address -= raw.events[node_order[sibling_first + index]].address;
            }
            records.push_back(NodeAddresses::Record{address});
        }
        return records;
    };
    for (std::uint32_t node = 0; node < siblings.size(); ++node) {
        if (siblings[node] != 0) {
            store.address_siblings_.push_back({node, siblings[node] - 1});
        }
    }
    store.mark_address_siblings();
    // Values and addresses stay objects until their chunks are shared.
    std::vector<Label<NodeValues>> values(raw.nodes.size());
    std::vector<Label<NodeAddresses>> addresses(raw.nodes.size());
    for (std::size_t node = 0; node < raw.nodes.size(); ++node) {
        if (node % 256 == 0) {
            report("node labels", node, raw.nodes.size());
        }
        const std::vector<std::size_t> events(node_order.begin() + static_cast<std::ptrdiff_t>(node_first[node]),
                                              node_order.begin() + static_cast<std::ptrdiff_t>(node_first[node + 1]));
        const Times times = events.empty() ? Times::never : every_execution[node] ? Times::block : Times::own;
        store.node_mode_[node] = static_cast<std::uint8_t>(times);
        store.node_times_.add(times == Times::own
                                  ? make_label<NodeTimestamps>(
                                        events,
                                        [&](std::size_t index) { return NodeTimestamps::Record{raw.events[index].t}; },
                                        checkpoint_records)
                                  : Label<NodeTimestamps>{});
        values[node] = make_label<NodeValues>(events, value_of, checkpoint_records);
        addresses[node] = Label<NodeAddresses>::make(address_records(node), checkpoint_records);
        const bool has_defs = raw.nodes[node].access == 'L' &&
            std::any_of(events.begin(), events.end(), [&](std::size_t index) { return event_defs[index].field1 != 0; });
        store.defs_.add(has_defs ? make_label<LoadDefs>(events, [&](std::size_t index) { return event_defs[index]; },
                                                        checkpoint_records)
                                 : Label<LoadDefs>{});
    }
    store.node_times_.shrink();
    store.defs_.shrink();
    report("shared frames", 0, 1);
    std::shared_ptr<SharedFrames> value_frames =
        share_frames(values, [&](std::size_t node) { return node_records(node, value_of); }, checkpoint_records);
    std::shared_ptr<SharedFrames> address_frames = share_frames(addresses, address_records, checkpoint_records);
    store.values_ = PackedLabels<NodeValues>::pack(std::move(values), "values of node ", false, value_frames);
    store.addresses_ =
        PackedLabels<NodeAddresses>::pack(std::move(addresses), "addresses of node ", false, address_frames);
    report("done", 1, 1);
    return store;
}

std::vector<std::uint8_t> LabelStore::save_section(std::size_t section) const {
    ByteWriter writer;
    switch (section) {
    case 0:
        flow_->save(writer);
        break;
    case 1:
        for (const std::uint32_t count : block_counts_) {
            writer.u32(count);
        }
        break;
    case 2:
        block_parents_.save(writer);
        break;
    case 3:
        for (std::size_t node = 0; node < node_mode_.size(); ++node) {
            writer.u8(node_mode_[node]);
            if (node_mode_[node] == static_cast<std::uint8_t>(Times::own)) {
                node_times_.save(writer, node);
            }
        }
        break;
    case 4:
        save_frames(writer, values_.frames());
        values_.save(writer);
        break;
    case 5:
        save_frames(writer, addresses_.frames());
        addresses_.save(writer);
        writer.u64(address_siblings_.size());
        for (const AddressSibling& pair : address_siblings_) {
            writer.u32(pair.node);
            writer.u32(pair.sibling);
        }
        break;
    default:
        defs_.save(writer);
        writer.u64(writer_loads_.size());
        for (std::size_t at = 0; at < writer_loads_.size(); ++at) {
            writer.u32(writer_loads_[at]);
            writer.u32(writer_first_[at + 1] - writer_first_[at]);
            for (std::uint32_t index = writer_first_[at]; index < writer_first_[at + 1]; ++index) {
                writer.u32(writers_[index]);
            }
        }
        break;
    }
    return std::move(writer.data());
}

void LabelStore::load_section(std::size_t section, ByteReader& reader) {
    const auto load_all = [&](auto& labels, std::size_t owners) {
        labels.reserve(owners, reader.remaining());
        for (std::size_t owner = 0; owner < owners; ++owner) {
            labels.add(reader);
        }
        labels.shrink();
    };
    switch (section) {
    case 0: {
        flow_ = FlowStream::load(reader, block_counts_.size());
        break;
    }
    case 1:
        for (std::uint32_t& count : block_counts_) {
            count = reader.u32();
        }
        break;
    case 2:
        load_all(block_parents_, block_counts_.size());
        break;
    case 3:
        node_times_.reserve(node_mode_.size(), reader.remaining());
        for (std::size_t node = 0; node < node_mode_.size(); ++node) {
            node_mode_[node] = reader.u8();
            if (node_mode_[node] > static_cast<std::uint8_t>(Times::own)) {
                reader.fail("node " + std::to_string(node) + ": unknown timestamp mode " +
                            std::to_string(node_mode_[node]));
            }
            if (node_mode_[node] != static_cast<std::uint8_t>(Times::own)) {
                node_times_.add_absent();
                continue;
            }
            node_times_.add(reader);
            if (node_times_.empty(node)) {
                reader.fail("node " + std::to_string(node) + ": its timestamps are missing");
            }
        }
        node_times_.shrink();
        break;
    case 4:
        values_.set_frames(load_frames(reader, "values"));
        load_all(values_, node_mode_.size());
        break;
    case 5:
        addresses_.set_frames(load_frames(reader, "addresses"));
        load_all(addresses_, node_mode_.size());
        address_siblings_.resize(reader.count(8));
        for (AddressSibling& pair : address_siblings_) {
            pair.node = reader.u32();
            pair.sibling = reader.u32();
        }
        mark_address_siblings();
        break;
    default:
        load_all(defs_, node_mode_.size());
        writer_loads_.resize(reader.count(12));  // node, count, one writer at least
        writer_first_.assign(1, 0);
        writers_.clear();
        for (std::uint32_t& load : writer_loads_) {
            load = reader.u32();
            const std::uint32_t count = reader.u32();
            if (count < 2 || count > max_load_writers) {
                reader.fail("load node " + std::to_string(load) + " has " + std::to_string(count) + " writers");
            }
            for (std::uint32_t index = 0; index < count; ++index) {
                writers_.push_back(reader.u32());
            }
            writer_first_.push_back(static_cast<std::uint32_t>(writers_.size()));
        }
        break;
    }
    reader.expect_end();
}

void LabelStore::check_loaded(const std::string& file, std::uint64_t events) const {
    const auto fail = [&](const std::string& what) { throw WetError(file, "inconsistent labels: " + what); };
    if (!flow_ || flow_->size() != executed_) {
        fail("the control flow does not hold " + std::to_string(executed_) + " timestamps");
    }
    std::uint64_t block_executions = 0;
    for (std::size_t block = 0; block < block_counts_.size(); ++block) {
        if (block_counts_[block] != block_parents_.records(block)) {
            fail("block " + std::to_string(block) + " has not as many executions as control parents");
        }
        block_executions += block_counts_[block];
    }
    if (block_executions != executed_) {
        fail("the blocks' counts do not add up to the " + std::to_string(executed_) + " executed blocks");
    }
    for (std::size_t index = 0; index < address_siblings_.size(); ++index) {
        const AddressSibling& pair = address_siblings_[index];
        const auto every_execution = [&](std::uint32_t node) {
            return node < node_mode_.size() && times_of(node) == Times::block;
        };
        if ((index != 0 && pair.node <= address_siblings_[index - 1].node) || pair.sibling >= pair.node ||
            !every_execution(pair.node) || !every_execution(pair.sibling) ||
            shape_of(pair.node).block != shape_of(pair.sibling).block || address_sibling(pair.sibling)) {
            fail("address sibling " + std::to_string(index) + " (node " + std::to_string(pair.node) + ", sibling " +
                 std::to_string(pair.sibling) + ") is not an earlier node of the same block that keeps its own");
        }
    }
    for (std::size_t at = 0; at < writer_loads_.size(); ++at) {
        const std::uint32_t load = writer_loads_[at];
        if ((at != 0 && load <= writer_loads_[at - 1]) || load >= node_mode_.size() || defs_.empty(load)) {
            fail("writers " + std::to_string(at) + " are not of a load with defs, after the one before");
        }
        for (std::uint32_t index = writer_first_[at]; index < writer_first_[at + 1]; ++index) {
            const std::uint32_t store = writers_[index];
            if ((index != writer_first_[at] && store <= writers_[index - 1]) || store >= node_mode_.size() ||
                shape_of(store).access != 'S' || times_of(store) == Times::never ||
                shape_of(store).size > widest_inferred_store) {
                fail("writer " + std::to_string(store) + " of load node " + std::to_string(load) +
                     " is not a store that ran, after the one before");
            }
        }
    }
    std::uint64_t node_events = 0;
    for (std::size_t node = 0; node < node_mode_.size(); ++node) {
        const std::uint64_t count = node_executions(node);
        if (values_.records(node) != count || addresses_.records(node) != count ||
            (!defs_.empty(node) && defs_.records(node) != count) ||
            (node_mode_[node] != static_cast<std::uint8_t>(Times::never) && count == 0)) {
            fail("node " + std::to_string(node) + "'s labels differ in length");
        }
        if (!defs_.empty(node) && shape_of(node).access != 'L') {
            fail("node " + std::to_string(node) + " has defs but is not a load");
        }
        node_events += count;
    }
    if (node_events != events) {
        fail("the nodes' executions are not " + std::to_string(events));
    }
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
            flow_index_ = std::make_unique<FlowIndex>(*flow_, block_counts_,
                                                      [this](const std::string& what) { corrupt(what); });
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
    if (near || block_times_) {
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
        return first_fields<NodeTimestamps, std::uint32_t>(node_times_.open(node));
    }
}

std::vector<std::uint64_t> LabelStore::node_values(std::uint32_t node) {
    std::vector<std::uint64_t> values = first_fields<NodeValues, std::uint64_t>(values_.open(node));
    if (defs_.empty(node)) {
        return values;
    }
    // A load with defs keeps each value XOR its def's (value_from_def).
    const std::vector<std::uint32_t> times = node_times(node);
    const std::vector<std::uint64_t> addresses = node_addresses(node);
    index_def_stores(node, values.size());
    for (std::uint64_t index = 0; index < values.size(); ++index) {
        if (const std::optional<DefExecution> def = def_execution(node, index, times[index], addresses[index])) {
            const StoreAddressIndex::Access stored = store_access(def->store, def->execution);
            values[index] ^= value_from_def(stored.value, stored.address, shape_of(def->store).size, addresses[index],
                                            shape_of(node).size);
        }
    }
    return values;
}

void LabelStore::index_def_stores(std::uint32_t load, std::uint64_t executions) {
    std::vector<std::uint32_t> fields = first_fields<LoadDefs, std::uint32_t>(defs_.open(load));
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

StoreAddressIndex::Access LabelStore::store_access(std::uint32_t store, std::uint64_t execution) {
    if (const StoreAddressIndex* index = store_indexes_.find(store)) {
        return index->access(static_cast<std::uint32_t>(execution));
    }
    return {address_at(store, execution), values_.open(store).at(execution).field1};
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
    std::vector<std::uint64_t> addresses = first_fields<NodeAddresses, std::uint64_t>(addresses_.open(node));
    if (const std::optional<std::uint32_t> sibling = address_sibling(node)) {
        const std::vector<std::uint64_t> base = first_fields<NodeAddresses, std::uint64_t>(addresses_.open(*sibling));
        for (std::size_t index = 0; index < addresses.size(); ++index) {
            addresses[index] += base[index];
        }
    }
    return addresses;
}

std::optional<Def> LabelStore::def_at(std::uint32_t node, std::uint64_t index, std::uint32_t t) {
    const std::optional<DefExecution> def = def_execution(node, index, t);
    return def ? std::optional<Def>(Def{def->store, def->t}) : std::nullopt;
}

std::optional<LabelStore::DefExecution> LabelStore::def_execution(std::uint32_t node, std::uint64_t index,
                                                                  std::uint32_t t,
                                                                  std::optional<std::uint64_t> load_address) {
    if (defs_.empty(node)) {
        return std::nullopt;
    }
    const LoadDefs::Record record = defs_.open(node).at(index);
    if (record.field1 == 0) {
        return std::nullopt;
    }
    // Made only for a message: a slice asks for millions of defs.
    const auto where = [&] { return "def of node " + std::to_string(node) + " at t " + std::to_string(t); };
    const auto address = [&] { return load_address ? *load_address : address_at(node, index); };
    if (record.field1 == by_writers_field1) {
        const Writers writers = writers_of(node);
        if (writers.first == writers.second || record.field2 != inferred_field2) {
            corrupt(where() + ": found among the writers of a load that has none");
        }
        return latest_write(node, t, writers, address(), where);
    }
    const std::uint32_t store = record.field1 - first_def_store;
    if (store >= nodes_->size() || shape_of(store).access != 'S' || times_of(store) == Times::never) {
        corrupt(where() + ": node " + std::to_string(store) + " is not a store that ran");
    }
    if (record.field2 >= first_distance) {
        const std::uint32_t distance = record.field2 - first_distance;
        const std::optional<std::uint64_t> execution =
            distance <= t ? node_execution(store, t - distance) : std::nullopt;
        if (!execution) {
            corrupt(where() + ": store node " + std::to_string(store) + " did not run a distance of " +
                    std::to_string(distance) + " before");
        }
        return DefExecution{store, *execution, t - distance};
    }
    if (record.field2 == inferred_field2) {
        return latest_write(node, t, Writers{&store, &store + 1}, address(), where);
    }
    // A rank counts back from the store's latest execution before the load.
    const StoreAddressIndex* indexed = store_indexes_.find(store);
    const std::uint64_t before = executions_below(store, store_horizon(store, node, t), indexed);
    const std::uint64_t rank = record.field2 - first_rank;
    if (rank >= before) {
        corrupt(where() + ": rank " + std::to_string(rank) + " of " + std::to_string(before) + " earlier executions");
    }
    const std::uint64_t execution = before - 1 - rank;
    return DefExecution{store, execution, execution_time(store, execution, indexed)};
}

std::uint64_t LabelStore::executions_below(std::uint32_t store, std::uint64_t horizon,
                                           const StoreAddressIndex* indexed) {
    return indexed != nullptr && indexed->has_times() ? indexed->count_below(horizon)
                                                      : times_count_below(store, horizon);
}

std::uint32_t LabelStore::execution_time(std::uint32_t store, std::uint64_t execution,
                                         const StoreAddressIndex* indexed) {
    return indexed != nullptr && indexed->has_times() ? indexed->time(static_cast<std::uint32_t>(execution))
                                                      : times_at(store, execution);
}

template <class Where>
LabelStore::DefExecution LabelStore::latest_write(std::uint32_t load, std::uint32_t t, Writers writers,
                                                  std::uint64_t address, const Where& where) {
    // Each writer's executions before the load, asked latest last execution
    // first: once a write is found, a writer whose last execution is older
    // cannot beat it, and the others are asked only about their executions
    // after it (most loads read what was written last: one writer's search).
    // Writers that run at every execution of one block (several stores of
    // an unrolled loop) have the same executions: counted once.
    struct Asked {
        std::uint32_t store;
        std::uint64_t before;   // its executions before the load
        std::uint32_t last_t;   // the latest of them
        std::uint64_t horizon;  // before it
        bool with_block;        // runs at every execution of its block
    };
    std::array<Asked, max_load_writers> asked;
    std::size_t count = 0;
    std::uint64_t executions = 0;  // for a message
    for (const std::uint32_t* store = writers.first; store != writers.second; ++store) {
        const std::uint64_t horizon = store_horizon(*store, load, t);
        const bool with_block = times_of(*store) == Times::block;
        const auto same =
            std::find_if(asked.begin(), asked.begin() + static_cast<std::ptrdiff_t>(count), [&](const Asked& other) {
                return with_block && other.with_block && other.horizon == horizon &&
                       shape_of(other.store).block == shape_of(*store).block;
            });
        if (same != asked.begin() + static_cast<std::ptrdiff_t>(count)) {
            executions += same->before;
            asked[count++] = Asked{*store, same->before, same->last_t, horizon, true};
            continue;
        }
        const StoreAddressIndex* indexed = store_indexes_.find(*store);
        const std::uint64_t before = executions_below(*store, horizon, indexed);
        executions += before;
        if (before != 0) {
            const std::uint32_t last_t =
                writers.second - writers.first == 1 ? 0 : execution_time(*store, before - 1, indexed);
            asked[count++] = Asked{*store, before, last_t, horizon, with_block};
        }
    }
    std::sort(asked.begin(), asked.begin() + static_cast<std::ptrdiff_t>(count), [](const Asked& a, const Asked& b) {
        return a.last_t != b.last_t ? a.last_t > b.last_t : a.store > b.store;
    });
    // The later write; of two in one block execution, the later node's.
    const auto later = [](std::uint32_t t_a, std::uint32_t store_a, const DefExecution& b) {
        return t_a > b.t || (t_a == b.t && store_a > b.store);
    };
    std::optional<DefExecution> latest;
    for (std::size_t at = 0; at < count; ++at) {
        const Asked& writer = asked[at];
        if (latest && !later(writer.last_t, writer.store, *latest)) {
            break;
        }
        // Its executions that would be later than the write found.
        const std::uint64_t floor =
            latest ? executions_below(writer.store, latest->t + (writer.store > latest->store ? 0 : 1),
                                      store_indexes_.find(writer.store))
                   : 0;
        if (floor < writer.before) {
            if (const std::optional<DefExecution> write = inferred_def(writer.store, writer.before, address, floor)) {
                latest = write;
            }
        }
    }
    if (!latest) {
        std::string stores;
        for (const std::uint32_t* store = writers.first; store != writers.second; ++store) {
            stores += (stores.empty() ? "" : ", ") + std::to_string(*store);
        }
        corrupt(where() + ": none of store node" + (writers.second - writers.first > 1 ? "s " : " ") + stores + "'s " +
                std::to_string(executions) + " executions before it wrote address " + std::to_string(address));
    }
    return *latest;
}

LabelStore::Writers LabelStore::writers_of(std::uint32_t load) const {
    const auto found = std::lower_bound(writer_loads_.begin(), writer_loads_.end(), load);
    if (found == writer_loads_.end() || *found != load) {
        return {nullptr, nullptr};
    }
    const auto at = static_cast<std::size_t>(found - writer_loads_.begin());
    return {writers_.data() + writer_first_[at], writers_.data() + writer_first_[at + 1]};
}

std::optional<LabelStore::DefExecution> LabelStore::inferred_def(std::uint32_t store, std::uint64_t before,
                                                                 std::uint64_t address, std::uint64_t floor) {
    const std::uint16_t size = shape_of(store).size;
    // Execution j's address and timestamp: array reads when the store is
    // indexed, else steps of its labels (the address label's cursor walks
    // back from where times_count_below left the timestamps').
    const StoreAddressIndex* index = store_indexes_.find(store);
    Label<NodeAddresses>* stored = index != nullptr ? nullptr : &addresses_.open(store);
    const std::optional<std::uint32_t> sibling = address_sibling(store);
    Label<NodeAddresses>* base = stored != nullptr && sibling ? &addresses_.open(*sibling) : nullptr;
    const auto address_of = [&](std::uint64_t execution) {
        return index != nullptr ? index->access(static_cast<std::uint32_t>(execution)).address
                                : stored->at(execution).field1 + (base != nullptr ? base->at(execution).field1 : 0);
    };
    const auto def = [&](std::uint64_t execution) {
        return DefExecution{store, execution, execution_time(store, execution, index)};
    };
    const std::uint64_t span = before - floor;  // the executions asked about
    const std::uint64_t walked = std::min<std::uint64_t>(span, walked_executions);
    for (std::uint64_t back = 1; back <= walked; ++back) {
        if (covers(address_of(before - back), size, address)) {
            return def(before - back);
        }
    }
    if (walked == span) {
        return std::nullopt;
    }
    if (index == nullptr) {
        index = store_index(store);  // its own cache: `stored` and `base` stay open
    }
    if (index != nullptr) {
        const std::optional<std::uint32_t> execution = index->latest_covering(address, size, before - walked);
        return execution && *execution >= floor ? std::optional<DefExecution>(def(*execution)) : std::nullopt;
    }
    // A store too large for the budget of indexes: walked all the way.
    for (std::uint64_t back = walked + 1; back <= span; ++back) {
        if (covers(address_of(before - back), size, address)) {
            return def(before - back);
        }
    }
    return std::nullopt;
}

const StoreAddressIndex* LabelStore::store_index(std::uint32_t store) {
    if (const StoreAddressIndex* index = store_indexes_.find(store)) {
        return index;
    }
    // A store that runs with its block has its timestamps in the flow's
    // index: the index holds no copy.
    const bool with_times = times_of(store) != Times::block;
    const std::size_t bytes = StoreAddressIndex::bytes_for(node_executions(store), with_times);
    if (bytes > store_indexes_.budget()) {
        return nullptr;
    }
    return &store_indexes_.insert(
        store,
        StoreAddressIndex(node_addresses(store), with_times ? node_times(store) : std::vector<std::uint32_t>(),
                          node_values(store)),
        bytes);
}

std::vector<LabelStats> LabelStore::stats(std::uint64_t events, std::uint64_t edges) const {
    std::vector<LabelStats> rows;
    rows.push_back({"control flow", executed_, 4ull * executed_, flow_->saved_bytes(), flow_->memory_bytes()});
    // Only the counts are saved; the timestamps are derived from the control flow.
    rows.push_back({"block timestamps", executed_, 4ull * executed_, 4 * block_counts_.size(),
                    block_counts_.capacity() * 4 + (block_times_ ? block_times_->memory_bytes() : 0) +
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
    bytes += (block_times_ ? block_times_->memory_bytes() : 0) + block_parents_.memory_bytes() +
             node_times_.memory_bytes() + values_.memory_bytes() + addresses_.memory_bytes() +
             address_siblings_bytes() + defs_.memory_bytes() + writers_bytes() +
             store_indexes_.memory_bytes([](const StoreAddressIndex& index) { return index.memory_bytes(); });
    for (const auto* frames : {values_.frames().get(), addresses_.frames().get()}) {
        bytes += frames ? frames->memory_bytes() : 0;
    }
    return bytes;
}

}  // namespace tcgen::wet
