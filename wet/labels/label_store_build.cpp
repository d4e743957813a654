// Building the compressed labels of a WET from a raw trace (label_store.hpp):
// the flow, the blocks' control parents, each node's timestamps, values,
// addresses and defs, and the frames their chunks share.

#include "wet/labels/label_store.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_map>

#include "runtime/task_pool.hpp"
#include "wet/format/raw_files.hpp"
#include "wet/labels/address_siblings.hpp"
#include "wet/labels/asks_by_node.hpp"
#include "wet/labels/asks_in_horizon_order.hpp"
#include "wet/labels/def_encoding.hpp"
#include "wet/labels/def_questions.hpp"
#include "wet/labels/defs_by_load.hpp"
#include "wet/labels/event_walk.hpp"

namespace tcgen::wet {

using namespace def_encoding;

namespace {

// How a reader finds each def of a raw trace (LoadDefs): as the latest write
// among its load's writers that covers the load's first byte (by_writers),
// as the latest such write of its own store node (by_store), or only from
// a rank or a distance kept with it (kept). Per store node, its executions
// (its run of `events`) are walked in order keeping the latest at each
// address, and the edges that ask it (`questions`: its own defs, and every
// def of the loads it is a writer of) answered in the order of their horizons
// as the walk reaches them, both a piece at a time (asks_in_horizon_order.hpp,
// event_walk.hpp): per edge, whether its own store's answer is its
// def, and whether another writer's answer is later (t, then the higher
// store id: the later in a block execution), two bits an edge.
enum class DefFound : std::uint8_t { kept, by_store, by_writers };

// A bit an edge, set by the stores' tasks side by side: two stores' edges
// may share a word, so a bit is set with an atomic OR.
class EdgeBits {
public:
    explicit EdgeBits(std::size_t edges) : words_(new std::atomic<std::uint64_t>[(edges + 63) / 64]()) {}
    void set(std::size_t edge) {
        words_[edge / 64].fetch_or(std::uint64_t{1} << (edge % 64), std::memory_order_relaxed);
    }
    bool operator[](std::size_t edge) const {
        return (words_[edge / 64].load(std::memory_order_relaxed) >> (edge % 64) & 1) != 0;
    }

private:
    std::unique_ptr<std::atomic<std::uint64_t>[]> words_;
};

struct DefAnswers {
    EdgeBits own_store;
    EdgeBits written_later;

    DefFound found(const DefAsk& ask, bool has_writers) const {
        if (has_writers && own_store[ask.edge] && !written_later[ask.edge]) {
            return DefFound::by_writers;
        }
        return own_store[ask.edge] ? DefFound::by_store : DefFound::kept;
    }
};

// The asks of one store answered into `answers`.
void answer_store(std::uint32_t store, std::uint16_t size, const DefQuestions& questions, const EventsByNode& events,
                  DefAnswers& answers) {
    AsksInHorizonOrder asked(questions, store);
    if (asked.empty()) {
        return;
    }
    // Address -> the timestamp of the store's latest execution that wrote there.
    std::unordered_map<std::uint64_t, std::uint32_t> latest;
    EventWalk executions(events, store);
    DefAsk ask;
    while (asked.next(ask)) {
        executions.walk_to(store_horizon(store, ask.use, ask.t_use),
                           [&](const NodeEvent& execution) { latest[execution.address] = execution.t; });
        const std::uint64_t address = ask.address;
        std::optional<std::uint32_t> found;  // the latest write that covers the address
        for (std::uint64_t back = 0; back < size && back <= address; ++back) {
            const auto entry = latest.find(address - back);
            if (entry != latest.end() && (!found || entry->second > *found)) {
                found = entry->second;
            }
        }
        if (!found) {
            continue;
        }
        const std::uint32_t t = *found;
        if (store == ask.def) {
            if (t == ask.t_def) {
                answers.own_store.set(ask.edge);
            }
        } else if (t > ask.t_def || (t == ask.t_def && store > ask.def)) {
            answers.written_later.set(ask.edge);
        }
    }
}

// Every store's asks answered, a store a task (the stores with the most
// executions first, so that the longest tasks do not start last): the same
// answers on any number of threads.
DefAnswers find_defs(const std::vector<RawNode>& nodes, const DefQuestions& questions, const EventsByNode& events,
                     tcgen_runtime::TaskPool& pool) {
    DefAnswers answers{EdgeBits(questions.edge_count), EdgeBits(questions.edge_count)};
    std::vector<std::uint32_t> stores;
    for (std::uint32_t store = 0; store < nodes.size(); ++store) {
        const std::uint16_t size = nodes[store].size;
        // (A load's asks are kept under it too: for its writers to read.)
        if (nodes[store].access == 'S' && size != 0 && size <= widest_inferred_store) {
            stores.push_back(store);
        }
    }
    std::stable_sort(stores.begin(), stores.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return events.count(a) > events.count(b); });
    tcgen_runtime::TaskPool::run(&pool, stores.size(), [&](std::size_t index) {
        answer_store(stores[index], nodes[stores[index]].size, questions, events, answers);
    });
    return answers;
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
// returns the frames, or null. records_in(node, first, count): node n's
// records from its first-th, count of them, made again whenever asked, so
// that the records of every chunk are never held at once. The chunks' keys
// and the frames are made on the pool's threads.
template <class Stream, class RecordsIn>
std::shared_ptr<SharedFrames> share_frames(std::vector<Label<Stream>>& labels, const RecordsIn& records_in,
                                           std::uint64_t chunk_records, tcgen_runtime::TaskPool& pool,
                                           const HeldBytes::Spill& spill) {
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
        // Labels whose chunks' bytes were dropped once made are made again,
        // a piece at a time, as they were first made.
        constexpr std::uint64_t piece_records = std::uint64_t{1} << 16;
        for (std::size_t node = 0; node < labels.size(); ++node) {
            const ChunkedStream<Stream>* chunks = labels[node].chunks();
            if (chunks == nullptr || !chunks->has_dropped_bytes()) {
                continue;
            }
            const std::uint64_t count = labels[node].size();
            typename Label<Stream>::Builder label(chunk_records);
            for (std::uint64_t first = 0; first < count; first += piece_records) {
                label.add(records_in(node, static_cast<std::size_t>(first),
                                     static_cast<std::size_t>(std::min(piece_records, count - first))));
            }
            labels[node] =
                label.finish([&] { return records_in(node, std::size_t{0}, static_cast<std::size_t>(count)); });
        }
        return nullptr;
    };
    if (candidates.empty()) {
        return keep_unshared();
    }
    constexpr std::size_t task_candidates = 256;
    pool.run((candidates.size() + task_candidates - 1) / task_candidates, [&](std::size_t task) {
        const std::size_t end = std::min(candidates.size(), (task + 1) * task_candidates);
        for (std::size_t index = task * task_candidates; index < end; ++index) {
            Candidate& candidate = candidates[index];
            const std::vector<Record> records = records_in(candidate.node, candidate.first, candidate.count);
            std::uint64_t key = ~std::uint64_t{0};
            for (const Record& record : records) {
                std::uint64_t value = 0;
                std::memcpy(&value, &record, std::min(sizeof(value), sizeof(Record)));
                key = std::min(key, (value * std::uint64_t{0x9E3779B97F4A7C15}) >> 11);
            }
            candidate.key = key;
        }
    });
    std::vector<std::size_t> order(candidates.size());
    for (std::size_t index = 0; index < order.size(); ++index) {
        order[index] = index;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return candidates[a].key < candidates[b].key; });
    std::vector<SharedFrames::Piece> pieces;
    for (const std::size_t index : order) {
        pieces.push_back(SharedFrames::Piece{nullptr, candidates[index].count, sizeof(Record)});
    }
    std::vector<SharedFrames::Place> places;
    std::shared_ptr<SharedFrames> frames = SharedFrames::build(
        pieces, places,
        [&](std::size_t piece, std::vector<std::uint8_t>& out) {
            const Candidate& candidate = candidates[order[piece]];
            const std::vector<Record> records = records_in(candidate.node, candidate.first, candidate.count);
            const auto* bytes = reinterpret_cast<const std::uint8_t*>(records.data());
            out.insert(out.end(), bytes, bytes + records.size() * sizeof(Record));
        },
        &pool, spill);
    if (frames->saved_bytes() + 8 * candidates.size() >= own_bytes) {
        return keep_unshared();
    }
    for (std::size_t piece = 0; piece < order.size(); ++piece) {
        const Candidate& candidate = candidates[order[piece]];
        labels[candidate.node].chunks()->share(candidate.chunk, frames, places[piece]);
    }
    return frames;
}

// Labels of one kind made a node at a time in any order (on a pool's
// threads), saved as they are made (in a temporary file when the build
// spills), then packed in node order.
struct MadeLabels {
    std::mutex adding;
    HeldBytes saved;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> where;  // per node: at, size (0: absent)
    MadeLabels(std::size_t nodes, const HeldBytes::Spill& spill) : where(nodes, {0, 0}) {
        saved.spill(spill, "the node labels made");
    }
    template <class Stream>
    void add(std::size_t node, const Label<Stream>& label) {
        ByteWriter writer;
        label.save(writer);
        const std::lock_guard<std::mutex> lock(adding);
        where[node] = {saved.size(), writer.data().size()};
        saved.append(writer.data().data(), writer.data().size());
    }
    template <class Stream>
    void pack(PackedLabels<Stream>& packed) {
        std::vector<std::uint8_t> scratch;
        for (const auto& [at, size] : where) {
            if (size == 0) {
                packed.add_absent();
            } else {
                packed.add_saved(saved.view(at, static_cast<std::size_t>(size), scratch),
                                 static_cast<std::size_t>(size));
            }
        }
        packed.shrink();
        saved = HeldBytes();
        where = {};
    }
};

}  // namespace

LabelStore LabelStore::build(const RawTrace& raw, const EventsByNode& events, RawFlow flow, DefQuestions questions,
                             std::shared_ptr<const std::vector<RawNode>> nodes, GroupedParents parents,
                             const WholeExecutionTrace::Progress& progress, std::uint64_t checkpoint_records,
                             unsigned threads) {
    // The nodes' labels and the shared frames are made side by side, each
    // node's and each frame's on its own: the same bytes on any number of threads.
    tcgen_runtime::TaskPool pool(threads == 0 ? tcgen_runtime::hardware_threads() : threads);
    const auto report = [&](std::string_view step, std::uint64_t done, std::uint64_t total) {
        if (progress) {
            progress(step, done, total);
        }
    };
    LabelStore store(static_cast<std::uint32_t>(flow.size()), std::move(nodes), raw.blocks.size());
    // Under a memory cap, the labels made go to temporary files as they are
    // made (held_bytes.hpp): they are what grows with the run.
    const HeldBytes::Spill& spill = events.temporaries().labels;
    store.block_parents_.spill(spill);
    store.node_times_.spill(spill);
    store.defs_.spill(spill);
    store.values_.spill(spill);
    store.addresses_.spill(spill);

    store.control_dependences_ = parents.dependences;
    report("control flow", 0, 1);
    try {
        store.flow_ = FlowStream::build(flow.passes(), flow.size(), raw.blocks.size(), checkpoint_records,
                                        FlowStream::target_frame_records, &pool);
    } catch (const std::invalid_argument&) {
        flow.refuse_changed();
    }
    {
        const RawFlow done = std::move(flow);  // held in memory: 4 bytes a timestamp, not needed again
    }
    // Blocks: their execution counts, the lengths of their parents' runs.
    // Their timestamps are not held through the build (4 bytes a timestamp
    // grouped, 1 to 2 as BlockTimes): a query that needs them derives them
    // from the flow's stream, as it does on a loaded WET.
    for (std::size_t block = 0; block < raw.blocks.size(); ++block) {
        store.block_counts_[block] = static_cast<std::uint32_t>(parents.by_block.count(block));
    }
    for (std::size_t block = 0; block < raw.blocks.size(); ++block) {
        store.block_parents_.add(Label<ControlParents>::make(parents.by_block.read(block), checkpoint_records));
    }
    store.block_parents_.shrink();
    {
        const GroupedParents done = std::move(parents);  // its file closed, its memory freed
    }

    // Nodes: their events grouped per node (`events`, read a node's run at
    // a time), each event with its def.
    // (Indexes of 32 bits: the raw trace has fewer than 2^32 events and edges.)
    // A def is kept as its store node and, for a recent def, its rank among
    // that node's executions before the load (0: the latest), not as
    // t_use - t_def: a load that reads what a loop stored a few iterations
    // ago has one rank, but a distance that grows with the loop's body. An
    // older def keeps its distance (encode_def): finding it by rank would
    // walk the store's timestamps back that far and, in a slice, forth again.
    // Most defs need neither: the store's addresses give them (inferred_field2).
    // And most loads read what their def wrote: their values are kept XOR
    // the def's (value_from_def). The edges themselves are gone: each is an
    // ask of its store (`questions`, def_questions.hpp), read a store at a
    // time. A def's record and its load's predicted value are kept per edge,
    // not per event (most events are no load with a def), made from the
    // ask of its own store once find_defs has answered every ask, as a
    // store's executions are walked (a piece at a time, as the asks are
    // read), and handed to `defs`, which gives them back a load at a
    // time (through a temporary file when the events are in one): nothing
    // of 4 bytes or more an edge is held through the node labels.
    std::optional<DefsByLoad> defs;
    {
        const std::vector<std::vector<std::uint32_t>>& writers = questions.writers;
        for (std::uint32_t load = 0; load < writers.size(); ++load) {
            if (!writers[load].empty()) {
                store.writer_loads_.push_back(load);
                store.writers_.insert(store.writers_.end(), writers[load].begin(), writers[load].end());
                store.writer_first_.push_back(static_cast<std::uint32_t>(store.writers_.size()));
            }
        }
        const DefAnswers answers = find_defs(raw.nodes, questions, events, pool);
        // Each edge's def record and predicted value, from its ask of its own store.
        defs.emplace(std::move(questions.load_first), events.temporaries());
        std::vector<std::pair<std::uint32_t, EdgeDef>> store_defs;  // (load, def)
        constexpr std::uint32_t none = ~std::uint32_t{0};
        std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> first_missing{none, 0, 0};  // (edge, store, t_def)
        for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
            if (raw.nodes[node].access != 'S') {
                continue;
            }
            // Its own asks in the order of their horizons, each load's in
            // time order, as its executions are walked.
            AsksInHorizonOrder asked(questions, node);
            EventWalk run(events, node);
            DefAsk def;
            while (asked.next(def)) {
                if (def.def != node) {
                    continue;  // another writer's, read for the inference
                }
                const std::uint64_t before = run.walk_to(store_horizon(def.def, def.use, def.t_use));
                const std::uint64_t def_index = run.lower_bound(def.t_def);
                // A streamed raw trace's edges are checked for their store's
                // event here (raw_files.hpp): the first such edge is refused.
                const NodeEvent stored = def_index == run.size() ? NodeEvent{} : run.at(def_index);
                if (def_index == run.size() || stored.t != def.t_def) {
                    first_missing = std::min(first_missing, std::make_tuple(def.edge, def.def, def.t_def));
                    continue;
                }
                LoadDefs::Record record{def.def + first_def_store, inferred_field2};
                const DefFound found = answers.found(def, !writers[def.use].empty());
                if (found == DefFound::by_writers) {
                    record.field1 = by_writers_field1;
                } else if (found == DefFound::kept) {
                    record.field2 = encode_def(before - 1 - def_index, def.t_use - def.t_def);
                }
                const std::uint64_t predicted = value_from_def(stored.value, stored.address, raw.nodes[def.def].size,
                                                               def.address, raw.nodes[def.use].size);
                store_defs.emplace_back(def.use, EdgeDef{def.t_use, record, predicted});
                if (store_defs.size() >= EventWalk::piece_events) {
                    defs->add_store(node, store_defs);
                    store_defs.clear();
                }
            }
            defs->add_store(node, store_defs);
            store_defs.clear();
        }
        if (std::get<0>(first_missing) != none) {
            const auto [edge, store_node, t_def] = first_missing;
            throw WetError(questions.edges_name, store_event_missing(edge, store_node, t_def));
        }
        defs->finish();
        questions = DefQuestions();
    }
    constexpr std::size_t no_def = ~std::size_t{0};
    // each_event(run, node_defs, visit): visit(event, index of its def in
    // `node_defs` or no_def) for the events `run` of a node, whose defs over
    // the same times are `node_defs` (read_defs).
    const auto read_defs = [&](std::size_t node, const std::vector<NodeEvent>& run) {
        return run.empty() ? std::vector<EdgeDef>() : defs->read(node, run.front().t, run.back().t);
    };
    const auto each_event = [&](const std::vector<NodeEvent>& run, const std::vector<EdgeDef>& node_defs,
                                const auto& visit) {
        std::size_t next = 0;
        for (const NodeEvent& event : run) {
            std::size_t def = no_def;
            if (next != node_defs.size() && node_defs[next].t_use == event.t) {
                def = next++;
            }
            visit(event, def);
        }
    };
    // The values' and the addresses' chunks go into shared frames (below)
    // once every node's are made.
    const auto values_of = [&](const std::vector<NodeEvent>& run, const std::vector<EdgeDef>& node_defs) {
        std::vector<NodeValues::Record> records;
        records.reserve(run.size());
        each_event(run, node_defs, [&](const NodeEvent& load, std::size_t def) {
            records.push_back(NodeValues::Record{load.value ^ (def != no_def ? node_defs[def].predicted : 0)});
        });
        return records;
    };
    const auto value_records = [&](std::size_t node, std::size_t first, std::size_t count) {
        const std::vector<NodeEvent> run = events.read(node, first, count);
        return values_of(run, read_defs(node, run));
    };
    // Addresses: a node's own, or their differences from its sibling's
    // (address_siblings.hpp).
    // A node's executions are a subset of its block's: as many means the same.
    const auto ran_every_execution = [&](std::size_t node) {
        const std::uint32_t block = raw.nodes[node].block;
        return events.count(node) != 0 && events.count(node) == store.block_counts_[block];
    };
    const auto own_addresses = [&](std::size_t node, std::uint64_t first, std::uint64_t count) {
        std::vector<std::uint64_t> addresses;
        addresses.reserve(static_cast<std::size_t>(count));
        for (const NodeEvent& event : events.read(node, first, count)) {
            addresses.push_back(event.address);
        }
        return addresses;
    };
    std::vector<bool> every_execution(raw.nodes.size());
    for (std::size_t node = 0; node < raw.nodes.size(); ++node) {
        every_execution[node] = ran_every_execution(node);
    }
    report("address siblings", 0, 1);
    const std::vector<std::uint32_t> siblings = choose_address_siblings(
        raw.nodes, every_execution, raw.blocks.size(), [&](std::size_t node) { return events.count(node); },
        own_addresses,
        [&](const auto& pieces) {
            Label<NodeAddresses>::Builder label(checkpoint_records);
            pieces([&](const std::vector<std::uint64_t>& addresses) {
                std::vector<NodeAddresses::Record> records;
                records.reserve(addresses.size());
                for (const std::uint64_t address : addresses) {
                    records.push_back(NodeAddresses::Record{address});
                }
                label.add(records);
            });
            return label.saved_bytes();
        },
        &pool);
    // Node `node`'s address records of its events `run`, which start at its from-th.
    const auto addresses_of = [&](std::size_t node, const std::vector<NodeEvent>& run, std::size_t from) {
        std::vector<NodeAddresses::Record> records;
        records.reserve(run.size());
        std::vector<NodeEvent> sibling_run;
        if (siblings[node] != 0) {
            sibling_run = events.read(siblings[node] - 1, from, run.size());
        }
        for (std::size_t index = 0; index < run.size(); ++index) {
            std::uint64_t address = run[index].address;
            if (siblings[node] != 0) {
                address -= sibling_run[index].address;
            }
            records.push_back(NodeAddresses::Record{address});
        }
        return records;
    };
    const auto address_records = [&](std::size_t node, std::size_t from, std::size_t count) {
        return addresses_of(node, events.read(node, from, count), from);
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
    // A node's events are read a piece at a time, never its whole run (a
    // hot node's runs to tens of millions): each_piece(node, visit) calls
    // visit(first, run) for its events first .. first + run.size() - 1.
    constexpr std::uint64_t piece_events = std::uint64_t{1} << 16;
    const auto each_piece = [&](std::size_t node, const auto& visit) {
        for (std::uint64_t first = 0; first < events.count(node); first += piece_events) {
            visit(first, events.read(node, first, std::min(piece_events, events.count(node) - first)));
        }
    };
    // A node's records of one kind, made from each piece, all of them: a
    // label's plain form, only where they take fewer bytes than its chunks.
    const auto all_records = [&](std::size_t node, const auto& records_of) {
        std::vector<typename std::decay_t<decltype(records_of(0, std::vector<NodeEvent>()))>::value_type> all;
        each_piece(node, [&](std::uint64_t first, const std::vector<NodeEvent>& run) {
            const auto records = records_of(first, run);
            all.insert(all.end(), records.begin(), records.end());
        });
        return all;
    };
    // Each node's labels, the hottest nodes first (a thread that takes one
    // last would leave the others idle), then kept in node order: their
    // timestamps and defs saved as they are made (the values and addresses
    // wait for their frames), then added in order.
    MadeLabels times_labels(raw.nodes.size(), spill);
    MadeLabels defs_labels(raw.nodes.size(), spill);
    std::vector<std::uint32_t> hottest_first(raw.nodes.size());
    std::iota(hottest_first.begin(), hottest_first.end(), 0);
    std::stable_sort(hottest_first.begin(), hottest_first.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return events.count(a) > events.count(b); });
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<std::size_t> nodes_made{0};
    pool.run(hottest_first.size(), [&](std::size_t task) {
        const std::uint32_t node = hottest_first[task];
        const std::size_t made = nodes_made.fetch_add(1, std::memory_order_relaxed);
        if (made % 256 == 0 && std::this_thread::get_id() == caller) {
            report("node labels", made, raw.nodes.size());  // the progress callback on the build's thread only
        }
        const Times times = events.count(node) == 0 ? Times::never : every_execution[node] ? Times::block : Times::own;
        store.node_mode_[node] = static_cast<std::uint8_t>(times);
        const bool keeps_defs = raw.nodes[node].access == 'L' && defs->count(node) != 0;
        const auto timestamps_of = [&](std::uint64_t, const std::vector<NodeEvent>& run) {
            std::vector<NodeTimestamps::Record> records;
            records.reserve(run.size());
            for (const NodeEvent& event : run) {
                records.push_back(NodeTimestamps::Record{event.t});
            }
            return records;
        };
        // (The values and the defs of a piece share its defs, read once.)
        const auto node_values_of = [&](std::uint64_t, const std::vector<NodeEvent>& run) {
            return values_of(run, read_defs(node, run));
        };
        const auto node_addresses_of = [&](std::uint64_t first, const std::vector<NodeEvent>& run) {
            return addresses_of(node, run, static_cast<std::size_t>(first));
        };
        bool has_defs = false;
        const auto defs_with = [&](const std::vector<NodeEvent>& run, const std::vector<EdgeDef>& node_defs) {
            std::vector<LoadDefs::Record> records;
            records.reserve(run.size());
            each_event(run, node_defs, [&](const NodeEvent&, std::size_t def) {
                records.push_back(def == no_def ? LoadDefs::Record{0, 0} : node_defs[def].record);
                has_defs = has_defs || records.back().field1 != 0;
            });
            return records;
        };
        const auto defs_of = [&](std::uint64_t, const std::vector<NodeEvent>& run) {
            return defs_with(run, read_defs(node, run));
        };
        Label<NodeTimestamps>::Builder times_label(checkpoint_records);
        Label<NodeValues>::Builder values_label(checkpoint_records);
        Label<NodeAddresses>::Builder addresses_label(checkpoint_records);
        Label<LoadDefs>::Builder defs_label(checkpoint_records);
        each_piece(node, [&](std::uint64_t first, const std::vector<NodeEvent>& run) {
            if (times == Times::own) {
                times_label.add(timestamps_of(first, run));
            }
            const std::vector<EdgeDef> node_defs = read_defs(node, run);
            values_label.add(values_of(run, node_defs));
            addresses_label.add(node_addresses_of(first, run));
            if (keeps_defs) {
                defs_label.add(defs_with(run, node_defs));
            }
        });
        if (times == Times::own) {
            times_labels.add(node, times_label.finish([&] { return all_records(node, timestamps_of); }));
        }
        values[node] = values_label.finish([&] { return all_records(node, node_values_of); });
        addresses[node] = addresses_label.finish([&] { return all_records(node, node_addresses_of); });
        // Their chunks go into shared frames, made from the events again:
        // only their sizes are needed until then.
        if (ChunkedStream<NodeValues>* chunks = values[node].chunks()) {
            chunks->drop_unshared_bytes();
        }
        if (ChunkedStream<NodeAddresses>* chunks = addresses[node].chunks()) {
            chunks->drop_unshared_bytes();
        }
        if (has_defs) {
            defs_labels.add(node, defs_label.finish([&] { return all_records(node, defs_of); }));
        }
    });
    times_labels.pack(store.node_times_);
    defs_labels.pack(store.defs_);
    report("shared frames", 0, 1);
    store.values_.set_frames(share_frames(values, value_records, checkpoint_records, pool, spill));
    store.values_.add_all(std::move(values));
    store.addresses_.set_frames(share_frames(addresses, address_records, checkpoint_records, pool, spill));
    store.addresses_.add_all(std::move(addresses));
    report("done", 1, 1);
    return store;
}

}  // namespace tcgen::wet
