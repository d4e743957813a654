// A load's defs found by one sweep through time (DefSweep, kept as
// SweptDefs by LabelStore) against the search per execution
// (LabelStore::searched_def) and against the tracer's edges: on the
// synthetic run and on random runs of stores of several sizes, aligned or
// not, with several writers per load, an address sibling, loads of bytes
// no store wrote, and defs the tracer saw otherwise than the addresses say
// (kept as ranks and distances). Lookups start at an arbitrary execution
// and walk back, as a slice asks; the loads' values, which a trace finds
// through a sweep, are the tracer's.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <tcgen/wet.hpp>

#include "common/byte_io.hpp"
#include "synthetic_wet.hpp"
#include "tests/test_scale.hpp"
#include "wet/dependences/control_dependence.hpp"
#include "wet/dependences/def_sweep.hpp"
#include "wet/labels/label_store.hpp"

namespace {

using tcgen::wet::DefSweep;
using tcgen::wet::LabelStore;
using tcgen::wet::RawEdge;
using tcgen::wet::RawEvent;
using tcgen::wet::RawNode;
using tcgen::wet::RawTrace;
using tcgen::wet::WholeExecutionTrace;

std::shared_ptr<const std::vector<RawNode>> shared_nodes(const RawTrace& raw) {
    return std::make_shared<const std::vector<RawNode>>(raw.nodes);
}

std::vector<std::uint32_t> parents_of(const RawTrace& raw) {
    std::vector<tcgen::wet::BlockShape> shapes;
    for (const auto& block : raw.blocks) {
        shapes.push_back({block.pc, block.bytes, block.end});
    }
    return tcgen::wet::dynamic_control_parents(shapes, raw.flow.data(), raw.flow.size());
}

// A LabelStore built from `raw` and read back from its saved sections, as
// load() does.
LabelStore loaded_labels(const RawTrace& raw) {
    const LabelStore built = LabelStore::build(raw, shared_nodes(raw), parents_of(raw), nullptr, 64);
    LabelStore store(static_cast<std::uint32_t>(raw.flow.size()), shared_nodes(raw), raw.blocks.size());
    store.set_name("swept.wet");
    for (std::size_t section = 0; section < LabelStore::section_count; ++section) {
        const std::vector<std::uint8_t> bytes = built.save_section(section);
        tcgen::ByteReader reader(bytes.data(), bytes.size(), "swept.wet", LabelStore::section_tags[section]);
        store.load_section(section, reader);
    }
    store.check_loaded("swept.wet", raw.events.size(), raw.edges.size());
    return store;
}

// Blocks 0 and 7 are the entry and the exit. Nodes 0-4 are stores, each in a block of its own but node 1, which
// shares block 1 with node 0 and writes 8 bytes past it (an address
// sibling); nodes 5-7 loads, node 5 in block 4 after store 4 (a def in the
// same block execution). Sizes 8, 8, 4, 1, 2 (stores) and 2, 8, 4 (loads).
// The stores and loads pick addresses in a buffer of 96 bytes, store 2 and
// the loads at any byte, and the loads sometimes below it (no def). One
// load execution in `misses` reports an older write of its byte than the
// latest (the tracer's memory model differing), which the labels keep as a
// rank or a distance.
RawTrace random_run(unsigned steps, std::uint64_t seed, unsigned misses) {
    RawTrace raw;
    for (std::uint64_t block = 0; block < 8; ++block) {
        raw.blocks.push_back(tcgen::wet::RawBlock{0x1000 + 0x20 * block, 0x20, 4, 'J'});
    }
    struct Shape {
        std::uint32_t block;
        std::uint64_t offset;
        char access;
        std::uint16_t size;
    };
    const Shape shapes[] = {{1, 0, 'S', 8}, {1, 4, 'S', 8}, {2, 0, 'S', 4}, {3, 0, 'S', 1}, {4, 0, 'S', 2},
                            {4, 4, 'L', 2}, {5, 0, 'L', 8}, {6, 0, 'L', 4}};
    for (const Shape& shape : shapes) {
        raw.nodes.push_back(RawNode{shape.block, 0x1000 + 0x20 * shape.block + shape.offset, shape.access, 0,
                                    shape.size});
    }
    std::mt19937_64 random(seed);
    const std::uint64_t buffer = 0x8000;
    // Per byte, every write of it so far (node, t), and its value.
    std::map<std::uint64_t, std::vector<std::pair<std::uint32_t, std::uint32_t>>> writes;
    std::map<std::uint64_t, std::uint8_t> memory;
    const auto store = [&](std::uint32_t node, std::uint32_t t, std::uint64_t address) {
        const std::uint64_t value = random();
        raw.events.push_back(RawEvent{node, t, address, value});
        for (std::uint64_t byte = 0; byte < raw.nodes[node].size; ++byte) {
            writes[address + byte].emplace_back(node, t);
            memory[address + byte] = static_cast<std::uint8_t>(byte < 8 ? value >> (8 * byte) : 0);
        }
    };
    const auto load = [&](std::uint32_t node, std::uint32_t t, std::uint64_t address) {
        std::uint64_t value = 0;
        for (std::uint64_t byte = 0; byte < std::min<std::uint64_t>(raw.nodes[node].size, 8); ++byte) {
            const auto known = memory.find(address + byte);
            value |= std::uint64_t{known != memory.end() ? known->second : std::uint8_t{0x5a}} << (8 * byte);
        }
        raw.events.push_back(RawEvent{node, t, address, value});
        const auto written = writes.find(address);
        if (written == writes.end()) {
            return;
        }
        // Most often the latest write; sometimes the one before, or the first.
        const auto& all = written->second;
        std::size_t chosen = all.size() - 1;
        if (misses != 0 && random() % misses == 0 && all.size() > 1) {
            chosen = random() % 2 == 0 ? all.size() - 2 : 0;
        }
        raw.edges.push_back(RawEdge{node, all[chosen].first, t, all[chosen].second});
    };
    raw.flow.push_back(0);
    for (unsigned step = 0; step < steps; ++step) {
        const auto block = static_cast<std::uint32_t>(1 + random() % 6);
        raw.flow.push_back(block);
        const auto t = static_cast<std::uint32_t>(raw.flow.size());
        switch (block) {
        case 1: {
            const std::uint64_t address = buffer + 8 * (random() % 11);
            store(0, t, address);
            store(1, t, address + 8);
            break;
        }
        case 2:
            store(2, t, buffer + random() % 93);
            break;
        case 3:
            store(3, t, buffer + random() % 96);
            break;
        case 4: {
            const std::uint64_t address = buffer + random() % 95;
            store(4, t, address);
            load(5, t, random() % 2 == 0 ? address : buffer + random() % 95);
            break;
        }
        default: {
            const std::uint32_t node = block + 1;  // 6, 7
            const std::uint64_t address = random() % 8 == 0 ? buffer - 16 + random() % 8 : buffer + random() % 92;
            load(node, t, address);
        }
        }
    }
    raw.flow.push_back(7);
    return raw;
}

// The timestamps of `node`'s executions in `raw`, in time order.
std::vector<std::uint32_t> execution_times(const RawTrace& raw, std::uint32_t node) {
    std::vector<std::uint32_t> times;
    for (const RawEvent& event : raw.events) {
        if (event.node == node) {
            times.push_back(event.t);
        }
    }
    return times;
}

// Every execution of every load of `raw`: the search's def is the
// tracer's, the sweep's the search's.
void expect_swept_defs(LabelStore& labels, const RawTrace& raw) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, RawEdge> edges;  // (load, t) -> its edge
    for (const RawEdge& edge : raw.edges) {
        edges[{edge.use, edge.t_use}] = edge;
    }
    for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
        if (raw.nodes[node].access != 'L') {
            continue;
        }
        const std::vector<std::uint32_t> times = execution_times(raw, node);
        const tcgen::wet::SweptDefs* swept = labels.swept_defs(node);
        const bool has_defs = std::any_of(raw.edges.begin(), raw.edges.end(),
                                          [&](const RawEdge& edge) { return edge.use == node; });
        ASSERT_EQ(swept != nullptr, has_defs) << "node " << node;
        if (swept == nullptr) {
            continue;
        }
        ASSERT_EQ(swept->store.size(), times.size()) << "node " << node;
        for (std::uint64_t index = 0; index < times.size(); ++index) {
            const std::optional<tcgen::wet::Def> searched = labels.searched_def(node, index, times[index]);
            const auto edge = edges.find({node, times[index]});
            ASSERT_EQ(searched.has_value(), edge != edges.end()) << "node " << node << " t " << times[index];
            if (searched) {
                EXPECT_EQ(searched->node, edge->second.def) << "node " << node << " t " << times[index];
                EXPECT_EQ(searched->t, edge->second.t_def) << "node " << node << " t " << times[index];
            }
            const std::uint16_t store = swept->store[index];
            ASSERT_NE(store, DefSweep::unresolved) << "node " << node << " t " << times[index];
            ASSERT_EQ(store != DefSweep::no_def, searched.has_value()) << "node " << node << " t " << times[index];
            if (searched) {
                EXPECT_EQ(swept->stores[store - 1], searched->node) << "node " << node << " t " << times[index];
                EXPECT_EQ(swept->t[index], searched->t) << "node " << node << " t " << times[index];
            }
        }
    }
}

// A slice's way of asking: a load's defs from an arbitrary execution back
// to its first, on labels that hold no sweep yet; partway, enough were
// asked for that def_at sweeps. Each answer is the search's.
void expect_walks_back(const RawTrace& raw, std::uint64_t seed) {
    LabelStore labels = loaded_labels(raw);
    LabelStore searched = loaded_labels(raw);
    std::mt19937_64 random(seed);
    for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
        if (raw.nodes[node].access != 'L') {
            continue;
        }
        const std::vector<std::uint32_t> times = execution_times(raw, node);
        if (times.empty()) {
            continue;
        }
        for (std::uint64_t index = random() % times.size() + 1; index-- > 0;) {
            const auto got = labels.def_at(node, index, times[index]);
            const auto expected = searched.searched_def(node, index, times[index]);
            ASSERT_EQ(got.has_value(), expected.has_value()) << "node " << node << " t " << times[index];
            if (got) {
                EXPECT_EQ(got->node, expected->node) << "node " << node << " t " << times[index];
                EXPECT_EQ(got->t, expected->t) << "node " << node << " t " << times[index];
            }
        }
    }
}

// Every load's values, as a trace reads them (through a sweep), are the
// tracer's.
void expect_load_values(const RawTrace& raw) {
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
    const std::vector<std::uint8_t> bytes = wet.to_bytes();
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "swept.wet");
    for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> expected;
        for (const RawEvent& event : raw.events) {
            if (event.node == node) {
                expected.emplace_back(event.value, event.address);
            }
        }
        std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
        for (const auto& access : loaded.accesses(raw.nodes[node].pc)) {
            if (access.node == node) {
                got.emplace_back(access.value, access.address);
            }
        }
        EXPECT_EQ(got, expected) << "node " << node;
    }
}

TEST(DefSweep, SyntheticRunsSweepTheDefsTheSearchFinds) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const RawTrace raw = synthetic_wet::make_trace(static_cast<unsigned>(tcgen_test::scaled(400)), seed);
        LabelStore labels = loaded_labels(raw);
        expect_swept_defs(labels, raw);
        expect_walks_back(raw, seed);
    }
}

TEST(DefSweep, RandomRunsOfSeveralWritersAndSizes) {
    for (std::uint64_t seed = 1; seed <= static_cast<std::uint64_t>(tcgen_test::scaled(8)); ++seed) {
        const RawTrace raw = random_run(3000, seed, seed % 2 == 0 ? 0 : 16);
        tcgen::wet::check_raw_trace(raw, "random");
        LabelStore labels = loaded_labels(raw);
        expect_swept_defs(labels, raw);
        expect_walks_back(raw, seed);
        expect_load_values(raw);
    }
}

// The run's shape is what the test means: several writers per load and
// loads with no def.
TEST(DefSweep, TheRandomRunHasWhatTheTestNeeds) {
    const RawTrace raw = random_run(3000, 1, 16);
    std::map<std::uint32_t, std::map<std::uint32_t, int>> writers;  // load -> store -> defs
    for (const RawEdge& edge : raw.edges) {
        ++writers[edge.use][edge.def];
    }
    EXPECT_GE(writers[6].size(), 4u);
    EXPECT_GE(writers[7].size(), 4u);
    std::size_t loads = 0;
    for (const RawEvent& event : raw.events) {
        loads += raw.nodes[event.node].access == 'L' ? 1 : 0;
    }
    EXPECT_LT(raw.edges.size() + 100, loads);  // loads with no def
}

// A sweep by hand: one store of 4 bytes, at odd addresses, and a load
// whose records hold each kind of def.
TEST(DefSweep, EachKindOfRecord) {
    const std::vector<std::uint32_t> store_times = {2, 4, 6, 8, 10};
    const std::vector<std::uint64_t> store_addresses = {101, 105, 101, 109, 103};
    const DefSweep::AddressRange range = DefSweep::AddressRange::of(store_addresses);
    const std::vector<DefSweep::Store> stores = {DefSweep::Store{0, 4, &store_times, &store_addresses, range}};
    using Kept = DefSweep::Kept;
    const std::vector<std::uint32_t> times = {3, 7, 9, 11, 11, 12};
    const std::vector<std::uint64_t> addresses = {104, 102, 106, 106, 200, 104};
    const std::vector<DefSweep::Record> records = {
        {Kept::inferred, 0, 0},  // t 3: execution 0 (101..104)
        {Kept::inferred, 0, 0},  // t 7: execution 2 (101..104), not 0
        {Kept::rank, 0, 3},      // t 9: 4 executions before, rank 3: execution 0
        {Kept::distance, 0, 3},  // t 11: t 8, execution 3
        {Kept::inferred, 0, 0},  // t 11 at 200: none wrote it
        {Kept::rank, 0, 5},      // t 12: only 5 executions before
    };
    const DefSweep::Result result = DefSweep::run(1, times, addresses, records, stores, {});
    EXPECT_EQ(result.store, (std::vector<std::uint16_t>{1, 1, 1, 1, DefSweep::unresolved, DefSweep::unresolved}));
    EXPECT_EQ(result.execution[0], 0u);
    EXPECT_EQ(result.execution[1], 2u);
    EXPECT_EQ(result.execution[2], 0u);
    EXPECT_EQ(result.execution[3], 3u);
    EXPECT_EQ(result.t[3], 8u);
    // Store 0 ran at t 10 before a load node 1 at t 10 in the same block
    // execution; a store of a higher id than the load would not have.
    const std::vector<DefSweep::Store> later = {DefSweep::Store{2, 4, &store_times, &store_addresses, range}};
    const std::vector<std::uint32_t> at_ten = {10};
    const std::vector<std::uint64_t> at_103 = {103};
    const std::vector<DefSweep::Record> inferred = {{Kept::inferred, 0, 0}};
    EXPECT_EQ(DefSweep::run(1, at_ten, at_103, inferred, stores, {}).execution[0], 4u);
    EXPECT_EQ(DefSweep::run(1, at_ten, at_103, inferred, later, {}).execution[0], 2u);
}

// A def among the writers: the latest covering write of any of them, of
// two at one t the later node's, whatever the order the writers are named
// in; two writers of one size share a table, held in an array when their
// addresses lie close together and in a hash table when one writes far away.
TEST(DefSweep, TheLatestWriteAmongWritersOfOneSizeAndOfSeveral) {
    for (const std::uint64_t elsewhere : {std::uint64_t{120}, std::uint64_t{1} << 40}) {
        const std::vector<std::uint32_t> times0 = {2, 5, 9};
        const std::vector<std::uint64_t> addresses0 = {100, 104, 100};
        const std::vector<std::uint32_t> times1 = {5, 7, 12};
        const std::vector<std::uint64_t> addresses1 = {102, elsewhere, 100};
        const std::vector<std::uint32_t> times2 = {6, 10};
        const std::vector<std::uint64_t> addresses2 = {101, 100};
        const std::vector<DefSweep::Store> stores = {
            DefSweep::Store{3, 4, &times0, &addresses0, DefSweep::AddressRange::of(addresses0)},
            DefSweep::Store{5, 4, &times1, &addresses1, DefSweep::AddressRange::of(addresses1)},
            DefSweep::Store{4, 1, &times2, &addresses2, DefSweep::AddressRange::of(addresses2)}};
        const std::vector<std::uint32_t> times = {3, 6, 8, 9, 11, 13, 14};
        const std::vector<std::uint64_t> addresses = {101, 104, 101, 102, 100, 103, 50};
        const std::vector<DefSweep::Record> records(times.size(), {DefSweep::Kept::writers, 0, 0});
        for (const std::vector<std::uint16_t>& writers :
             {std::vector<std::uint16_t>{0, 1, 2}, std::vector<std::uint16_t>{2, 1, 0}}) {
            // The load's node (8) comes after every store's: a write at the load's t is before it.
            const DefSweep::Result result = DefSweep::run(8, times, addresses, records, stores, writers);
            EXPECT_EQ(result.store, (std::vector<std::uint16_t>{1, 2, 3, 1, 3, 2, DefSweep::unresolved}))
                << "elsewhere " << elsewhere;
            EXPECT_EQ(std::vector<std::uint32_t>(result.execution.begin(), result.execution.end() - 1),
                      (std::vector<std::uint32_t>{0, 0, 0, 2, 1, 2}));
            EXPECT_EQ(std::vector<std::uint32_t>(result.t.begin(), result.t.end() - 1),
                      (std::vector<std::uint32_t>{2, 5, 6, 9, 10, 12}));
        }
    }
}

}  // namespace
