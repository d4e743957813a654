#pragma once
// LabelStore: every dynamic label of a WET, compressed (tier 1: the paper's
// §3 grouping and inference, then one bidirectional stream per label
// sequence, §4). The only class that knows how labels are laid out: packing
// short streams together or adding checkpoints changes this class alone.
//
// Layout
// - flow: the block id at each t, the control-flow trace, as successor
// ranks (flow_stream.hpp);
// Every stream is kept in chunks with a checkpoint at each chunk's start
// (chunked_stream.hpp; the flow likewise), so seeks cost a chunk, not the stream;
// - per block: how many times it ran (saved), and its timestamps, not
//   saved but derived from the flow (block b's k-th timestamp is the
//   position of b's k-th occurrence in it): read from the flow's index
//   (flow_index.hpp) near where a query is, and from a copy held as
//   differences (block_times.hpp) made when built, or by a walk of the
//   flow when a query first needs one far off after a load;
//   and, per execution, t - parent_t of its dynamic control parent
//   (ControlParents);
// - per node that executed: its values (NodeValues; their chunks, once
//   all are made, mostly moved into shared frames ordered by content,
//   shared_frames.hpp) and addresses (NodeAddresses: its own, or their
//   differences from an earlier node's of its block, address_siblings.hpp);
//   its timestamps (NodeTimestamps) only when they are not all of its
//   block's; per load with a def, per execution def node + 1 (0 none) and
//   0 when the def is the latest execution of that store before the load
//   that wrote the load's address (most are: inferred from the addresses),
//   else 1 + the def's rank among that store's executions before the load
//   (0 the latest) when below 64, else 65 + t_use - t_def (LoadDefs).
// Each per-block and per-node sequence is a Label (label.hpp): a stream, or
// a record and a count when all its records are equal, or nothing; each
// kind's saved labels are packed in one buffer (packed_labels.hpp) and made
// into objects only while queries use them.
//
// Threads: a LabelStore is one thread's. fork() makes another thread's
// store over the same labels: the saved labels, shared frames, flow frames
// and what is derived from them once (the flow's index table, the blocks'
// timestamps) are shared and never written once loaded; each store has its
// own cursors, opened labels, decoded frames and caches of defs, store
// columns and address indexes, so stores of one WET run queries at once
// without a lock.
//
// One file per job: label_store_build.cpp builds the labels from a raw
// trace, label_store_file.cpp saves, loads and checks them,
// label_store_queries.cpp walks them for queries, label_store_defs.cpp
// finds a load's def by a search per execution (def_encoding.hpp: how a def
// is kept), and label_store_sweep.cpp finds all of a load's defs in one
// sweep (def_sweep.hpp) and keeps them for lookups.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <tcgen/wet.hpp>
#include <tcgen/wet/raw_trace.hpp>
#include <tcgen/wet/whole_execution_trace.hpp>

#include "common/byte_io.hpp"
#include "wet/dependences/address_ranges.hpp"
#include "wet/dependences/def_sweep.hpp"
#include "wet/dependences/store_address_index.hpp"
#include "wet/flow/block_times.hpp"
#include "wet/flow/flow_index.hpp"
#include "wet/flow/flow_stream.hpp"
#include "wet/format/raw_flow.hpp"
#include "wet/labels/chunked_stream.hpp"
#include "wet/labels/def_questions.hpp"
#include "wet/labels/events_by_node.hpp"
#include "wet/labels/label.hpp"
#include "wet/labels/lru_cache.hpp"
#include "wet/labels/packed_labels.hpp"
#include "wet/labels/parents_by_block.hpp"

namespace tcgen::wet {

class LabelStore {
public:
    // Builds from a checked raw trace and its dynamic control parents
    // (parents[t-1] = parent_t, 0 none).
    // Every stream gets a checkpoint each `checkpoint_records` records.
    // `nodes`: raw's nodes, which the store keeps (shared with the WET).
    static LabelStore build(const RawTrace& raw, std::shared_ptr<const std::vector<RawNode>> nodes,
                            std::vector<std::uint32_t> parents, const WholeExecutionTrace::Progress& progress,
                            std::uint64_t checkpoint_records) {
        const EventsByNode events = EventsByNode::in_memory(raw.events, raw.nodes.size());
        GroupedParents grouped = group_parents(
            flow_pass(raw.flow.data(), raw.flow.size()), raw.flow.size(), raw.blocks.size(), "",
            [&](const auto& visit) {
                for (std::size_t t = 1; t <= parents.size() && t <= raw.flow.size(); ++t) {
                    visit(static_cast<std::uint32_t>(t), raw.flow[t - 1], parents[t - 1]);
                }
            },
            "raw");
        return build(raw, events, RawFlow(&raw.flow), ask_defs(raw.nodes, RawEdges(&raw.edges), events),
                     std::move(nodes), std::move(grouped), progress, checkpoint_records);
    }
    // The same with raw's events read from `events`, its flow walked in
    // passes over `flow`, its edges asked by `questions` and its parents
    // grouped by block in `parents` (raw.events, raw.flow and raw.edges
    // unread): the same labels, the same bytes. `flow` is freed once its
    // stream is made, `parents` once the blocks' parents are, before the
    // defs' tables; `questions` once each edge's def is made
    // (defs_by_load.hpp), before the node labels.
    static LabelStore build(const RawTrace& raw, const EventsByNode& events, RawFlow flow, DefQuestions questions,
                            std::shared_ptr<const std::vector<RawNode>> nodes, GroupedParents parents,
                            const WholeExecutionTrace::Progress& progress, std::uint64_t checkpoint_records,
                            unsigned threads = 1);

    // The label sections of the saved form, in order, each with its tag.
    static constexpr const char* section_tags[] = {"FLOW", "BCNT", "BPAR", "NTIM", "VALS", "ADDR", "DEFS"};
    static constexpr std::size_t section_count = sizeof(section_tags) / sizeof(section_tags[0]);
    // Section `section`'s payload, to `writer` (whose sink may write it out
    // as it comes: a section is made again rather than held).
    void save_section(std::size_t section, ByteWriter& writer) const;
    std::vector<std::uint8_t> save_section(std::size_t section) const {  // the same, gathered
        ByteWriter writer;
        save_section(section, writer);
        return std::move(writer.data());
    }
    // For checked nodes (blocks below the block count, accesses L or S).
    LabelStore(std::uint32_t executed, std::shared_ptr<const std::vector<RawNode>> nodes, std::size_t blocks);
    void load_section(std::size_t section, ByteReader& reader);
    // After every section: stream lengths consistent with each other, and
    // META's counts (`events`, `loads_with_a_def`, the control dependences)
    // with what the labels hold.
    void check_loaded(const std::string& file, std::uint64_t events, std::uint64_t loads_with_a_def) const;

    // Another thread's store over the same labels (see Threads above). Reads
    // only what no query moves, so it may run while this store is queried.
    std::unique_ptr<LabelStore> fork() const;

    std::uint32_t executed() const { return executed_; }
    void set_name(const std::string& name) { name_ = name; }  // for messages
    // Executions that have a control parent (a count the saved META keeps).
    std::uint64_t control_dependences() const { return control_dependences_; }
    void set_control_dependences(std::uint64_t count) { control_dependences_ = count; }

    // Control flow. The cursor of the one flow stream.
    std::uint32_t flow_position() const;
    void flow_seek(std::uint32_t position);
    bool flow_next(FlowStep& step);
    bool flow_prev(FlowStep& step);
    std::uint32_t block_at(std::uint32_t t);
    // The flow's index of the blocks' timestamps (flow_index.hpp), made by
    // a walk of the flow on the first lookup that needs it: slices walk
    // back through its segments, and lookups of a block's timestamps use it
    // where it holds the segment decoded.
    FlowIndex& flow_index();

    // Blocks: the index of t among block b's executions (nullopt: b did not run at t).
    std::optional<std::uint64_t> block_execution(std::uint32_t block, std::uint32_t t);
    // parent_t of block b's execution number `index`, which ran at t.
    std::uint32_t control_parent(std::uint32_t block, std::uint64_t index, std::uint32_t t);

    // Nodes: the index of t among node n's executions.
    std::optional<std::uint64_t> node_execution(std::uint32_t node, std::uint32_t t);
    // How a node's timestamps are known: it never ran, it ran at every
    // execution of its block (none stored), or at the ones its own stream lists.
    enum class Times : std::uint8_t { never = 0, block = 1, own = 2 };
    Times times_of(std::uint32_t node) const { return static_cast<Times>(node_mode_[node]); }
    std::uint64_t node_executions(std::uint32_t node) const;
    // Node n's executions (its block's or its own; n ran): how many ran
    // before t, and the timestamp of execution number `index`.
    std::uint64_t times_count_below(std::uint32_t node, std::uint64_t t);
    std::uint32_t times_at(std::uint32_t node, std::uint64_t index);
    std::vector<std::uint32_t> node_times(std::uint32_t node);
    std::vector<std::uint64_t> node_values(std::uint32_t node);
    // A node's whole access trace, each label decoded once (node_values
    // alone decodes a load's timestamps and addresses for its defs too).
    struct NodeAccesses {
        std::vector<std::uint32_t> times;
        std::vector<std::uint64_t> values;
        std::vector<std::uint64_t> addresses;
    };
    NodeAccesses node_accesses(std::uint32_t node);
    std::vector<std::uint64_t> node_addresses(std::uint32_t node);
    // Node n's address at its execution number `index`.
    std::uint64_t address_at(std::uint32_t node, std::uint64_t index);
    // The def of node n's execution number `index`, which ran at t: a
    // lookup in the load's swept defs when they are held, or once enough of
    // the load's defs were asked for to pay for a sweep (def_requests_);
    // else a search (searched_def).
    std::optional<Def> def_at(std::uint32_t node, std::uint64_t index, std::uint32_t t);
    // The same def found by a search of its own, whatever is held.
    std::optional<Def> searched_def(std::uint32_t node, std::uint64_t index, std::uint32_t t);
    // Every def of load n, found by one sweep and kept (null: n has no
    // defs, or its sweep would not fit the budget of swept defs).
    const SweptDefs* swept_defs(std::uint32_t node);

    // Rows of WholeExecutionTrace::stats() for the dynamic labels.
    std::vector<LabelStats> stats(std::uint64_t events, std::uint64_t edges) const;
    std::size_t memory_bytes() const;

private:
    [[noreturn]] void corrupt(const std::string& what) const;
    // Every block's timestamps, derived from the flow on first need after a
    // load (checked against the saved counts).
    const BlockTimes& block_times();
    // Block b's timestamps whole: from the flow's index, a decode of the
    // segments b runs in, for the first few blocks asked for; then from
    // block_times(), derived once for all.
    std::vector<std::uint32_t> whole_block_times(std::uint32_t block);
    static constexpr unsigned walks_for_single_blocks = 2;
    template <class Visit>
    void walk_flow(const Visit& visit);  // visit(block, t) for every t, in one direction
    // A def as the store's execution number and its timestamp.
    struct DefExecution {
        std::uint32_t store;
        std::uint64_t execution;
        std::uint32_t t;
    };
    // `load_address`: the load's address at `index`, when the caller holds it.
    std::optional<DefExecution> def_execution(std::uint32_t node, std::uint64_t index, std::uint32_t t,
                                              std::optional<std::uint64_t> load_address = std::nullopt);
    // The address and value of a store's execution (from its address index
    // when held: a def far back is often read again).
    StoreAddressIndex::Access store_access(std::uint32_t store, std::uint64_t execution);
    // The inferred def of a load of `address` whose store node `store` ran
    // `before` times before it: the latest of those executions that wrote
    // the address (nullopt: none did, a corrupt file).
    // The last walked_executions are walked back; older ones are found in
    // the store's address index (made on first need, kept in a budget).
    // Only executions from number `floor` on are asked about.
    std::optional<DefExecution> inferred_def(std::uint32_t store, std::uint64_t before, std::uint64_t address,
                                             std::uint64_t floor = 0);
    // A load's writers: the store nodes among which its defs kept as
    // by_writers are found, as [first, second).
    using Writers = std::pair<const std::uint32_t*, const std::uint32_t*>;
    Writers writers_of(std::uint32_t load) const;
    // The latest write before `load` ran at t that covers `address`, among
    // `writers` (of two in one block execution, the later node's); a corrupt
    // file when none did (`where` names the def).
    template <class Where>
    DefExecution latest_write(std::uint32_t load, std::uint32_t t, Writers writers, std::uint64_t address,
                              const Where& where);
    // How many of a store's executions ran below `horizon` (from its index when held).
    std::uint64_t executions_below(std::uint32_t store, std::uint64_t horizon, const StoreAddressIndex* indexed);
    // The timestamp of a store's execution (from its index when it holds times).
    std::uint32_t execution_time(std::uint32_t store, std::uint64_t execution, const StoreAddressIndex* indexed);
    static constexpr std::uint64_t walked_executions = 64;
    // Before a load's values are read whole: the stores its defs name are
    // indexed when no larger than indexed_store_ratio times its `executions`
    // (one pass over the store's labels, kept in the budget), so each def is
    // found by binary searches and array reads, not by steps of the store's
    // labels: about a microsecond each, where an index costs a fifth of that
    // per store execution (measured on sqlite3's and bzip2's load traces).
    void index_def_stores(std::uint32_t load, std::uint64_t executions);
    static constexpr std::uint64_t indexed_store_ratio = 8;
    // A load's defs by one sweep (label_store_sweep.cpp): the stores its
    // records name, decoded whole, and what the sweep found.
    // A store's timestamps and addresses decoded whole for sweeps, and its
    // values once a load trace needs them; shared, so that a sweep keeps
    // what it reads while the cache drops it.
    struct StoreColumns {
        std::vector<std::uint32_t> times;
        std::vector<std::uint64_t> addresses;
        DefSweep::AddressRange range;
        std::vector<std::uint64_t> values;  // empty until asked for
    };
    struct LoadSweep {
        std::vector<std::uint32_t> stores;  // nodes, the load's writers first
        std::vector<DefSweep::Record> records;
        std::vector<std::uint16_t> writers;
        std::vector<std::shared_ptr<StoreColumns>> columns;  // per store
        DefSweep::Result result;
    };
    // Most stores write for several loads (a python3 load's writers ran 16
    // times as often as it, summed over its loads): their columns are
    // decoded once and kept in a budget, least recently used out; each
    // costs 20 bytes an execution, its values counted before they are
    // decoded.
    std::shared_ptr<StoreColumns> store_columns(std::uint32_t store);
    static constexpr std::size_t store_columns_budget = std::size_t{64} << 20;
    LruCache<std::shared_ptr<StoreColumns>> store_columns_{store_columns_budget};
    const std::vector<std::uint64_t>& store_values(StoreColumns& columns, std::uint32_t store);
    // The stores and records alone (nullopt: more stores than a sweep can
    // name); then run_sweep() decodes the stores and sweeps.
    std::optional<LoadSweep> plan_sweep(std::uint32_t load);
    void run_sweep(std::uint32_t load, LoadSweep& sweep, const std::vector<std::uint32_t>& times,
                   const std::vector<std::uint64_t>& addresses);
    // The store executions a sweep of `load` walks through, and the load's.
    std::uint64_t sweep_steps(std::uint32_t load, const LoadSweep& sweep) const;
    // A load trace sweeps the load's defs when its stores run at most this
    // many times as often as the load, times the number of its writers: a
    // search costs about as much as a sweep's steps through that many
    // store executions (measured on the python3 run's load traces), and an
    // index made for searches more; a search among the writers asks each
    // (on the bzip2 run, memcpy's loads with 17-27 writers searched at
    // 7 us an execution, 20 times what their sweeps cost).
    static constexpr std::uint64_t traced_sweep_ratio = 16;
    // A slice (any caller of def_at) sweeps a load once its searches have
    // cost about what the sweep would: after sweep_steps / steps_per_search
    // searches, so a query that asks for a few defs of a long-running load
    // makes no sweep, and one that asks for many pays at most about twice
    // what the better of the two would have cost.
    static constexpr std::uint64_t steps_per_search = 128;
    std::vector<std::uint32_t> def_requests_;  // per node: searches so far
    std::vector<std::uint32_t> sweep_after_;   // per node: then sweep (0: not yet estimated)
    bool sweep_due(std::uint32_t load, std::uint64_t index);
    // Swept defs, 6 bytes per load execution, least recently used out past
    // the budget; a load whose defs would not fit it is never swept for
    // lookups (its searches go on).
    static constexpr std::size_t swept_defs_budget = std::size_t{128} << 20;
    LruCache<SweptDefs> swept_{swept_defs_budget};  // costs: their bytes
    const SweptDefs* keep_swept(std::uint32_t load, LoadSweep& sweep);
    // A load's values (each XOR its def's, value_from_def) with its defs
    // found by a sweep: false, the values untouched, when its stores run
    // too often for a sweep to pay (traced_sweep_ratio).
    bool values_by_sweep(std::uint32_t load, std::vector<std::uint64_t>& values,
                         const std::vector<std::uint32_t>& times, const std::vector<std::uint64_t>& addresses);
    // Store node n's address index; null when it would not fit the budget.
    const StoreAddressIndex* store_index(std::uint32_t store);
    static constexpr std::size_t store_index_budget = std::size_t{256} << 20;

    std::string name_ = "WET";
    std::uint32_t executed_ = 0;
    std::uint64_t control_dependences_ = 0;
    // The WET's nodes: the labels read each one's block, size and access.
    std::shared_ptr<const std::vector<RawNode>> nodes_;
    const RawNode& shape_of(std::uint32_t node) const { return (*nodes_)[node]; }
    std::optional<FlowStream> flow_;
    std::vector<std::uint32_t> block_counts_;       // executions per block
    // What every thread's store derives alike from the labels, made once by
    // the first store to need it (std::call_once: the others wait for it,
    // then share it) and never written again.
    struct Derived {
        std::once_flag index_once;
        std::shared_ptr<const FlowIndex::Table> index_table;
        std::once_flag times_once;
        std::optional<BlockTimes> block_times;
        std::atomic<bool> times_made{false};
    };
    std::shared_ptr<Derived> derived_ = std::make_shared<Derived>();
    const BlockTimes* block_times_ = nullptr;       // derived_'s, once this store has seen them made
    const BlockTimes* held_block_times();           // block_times_, or derived_'s if another store made them
    unsigned flow_walks_ = 0;                       // single blocks' timestamps read from the flow's index
    // Single lookups far from the segments the flow's index holds: the
    // first few decode their segment (about a millisecond each), the rest
    // use block_times(), made once (0.1-0.4 s and 1-2 bytes a block
    // execution on the corpus runs): a small query makes no copy, a large
    // slice does not decode the same segments again and again.
    static constexpr unsigned far_lookups_by_index = 128;
    unsigned far_lookups_ = 0;
    bool by_index(bool near);                         // whether a lookup uses the flow's index
    std::unique_ptr<FlowIndex> flow_index_;           // reads flow_, made on first need
    // The saved labels, packed per kind (packed_labels.hpp). The values' and
    // the addresses' carry the shared frames that hold most of their chunks
    // (shared_frames.hpp), saved at the start of VALS, ADDR.
    PackedLabels<ControlParents> block_parents_{"control parents of block "};
    std::vector<std::uint8_t> node_mode_;  // Times
    PackedLabels<NodeTimestamps> node_times_{"timestamps of node ", true};  // nodes of Times::own
    PackedLabels<NodeValues> values_{"values of node "};
    PackedLabels<NodeAddresses> addresses_{"addresses of node "};
    // Nodes whose addresses are kept as differences from an earlier node's
    // of their block (address_siblings.hpp), by node; saved at the end of ADDR.
    struct AddressSibling {
        std::uint32_t node;
        std::uint32_t sibling;
    };
    std::vector<AddressSibling> address_siblings_;
    std::vector<bool> has_address_sibling_;  // per node, so that most reads skip the search
    void mark_address_siblings();
    std::optional<std::uint32_t> address_sibling(std::uint32_t node) const;
    std::size_t address_siblings_bytes() const {
        return address_siblings_.capacity() * sizeof(AddressSibling) + has_address_sibling_.capacity() / 8;
    }
    PackedLabels<LoadDefs> defs_{"defs of node "};
    // Loads whose defs may be found among their writers, by node, and their
    // writers: writers_[writer_first_[i] .. writer_first_[i + 1]) are
    // writer_loads_[i]'s, increasing. Saved at the end of DEFS.
    std::vector<std::uint32_t> writer_loads_;
    std::vector<std::uint32_t> writer_first_{0};
    std::vector<std::uint32_t> writers_;
    std::size_t writers_bytes() const {
        return 4 * (writer_loads_.capacity() + writer_first_.capacity() + writers_.capacity());
    }
    LruCache<StoreAddressIndex> store_indexes_{store_index_budget};  // costs: their bytes
    // Stores too large for that budget: each chunk's address range, made on
    // the first walk back through the store (16 bytes per 4096 executions).
    std::unordered_map<std::uint32_t, AddressRanges> address_ranges_;
};

}  // namespace tcgen::wet
