// A load's writers (LabelStore::latest_write): a load whose defs come from
// several store nodes keeps no store per def when its def is the latest
// write among those stores that covers its address; a def that inference
// would miss keeps its store, or its rank; forged writers are refused.

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tcgen/wet.hpp>

#include "wet_file_bytes.hpp"

namespace {

using tcgen::wet::RawEdge;
using tcgen::wet::RawEvent;
using tcgen::wet::RawTrace;
using tcgen::wet::WholeExecutionTrace;

constexpr std::uint64_t buffer = 0x8000;

// Blocks 0 and 1 each hold a store of 8 bytes (nodes 0 and 1), block 2 a
// load of 8 bytes (node 2); the flow runs them in the order given.
RawTrace three_blocks() {
    RawTrace raw;
    for (std::uint64_t block = 0; block < 3; ++block) {
        raw.blocks.push_back(tcgen::wet::RawBlock{0x1000 + 0x20 * block, 0x20, 4, 'J'});
        raw.nodes.push_back(tcgen::wet::RawNode{static_cast<std::uint32_t>(block), 0x1000 + 0x20 * block,
                                                block == 2 ? 'L' : 'S', 0, 8});
    }
    return raw;
}

// Two stores write random slots of a buffer of 16 in a random order (every
// slot first); the load reads random slots: its defs alternate between the
// two with no pattern.
RawTrace two_writers(unsigned steps, std::uint64_t seed) {
    RawTrace raw = three_blocks();
    std::mt19937_64 random(seed);
    std::map<std::uint64_t, RawEvent> written;  // address -> the store that wrote it last
    for (unsigned step = 0; step < steps; ++step) {
        const auto block = static_cast<std::uint32_t>(step < 16 ? random() % 2 : random() % 3);
        raw.flow.push_back(block);
        const auto t = static_cast<std::uint32_t>(raw.flow.size());
        const std::uint64_t address = buffer + 8 * (step < 16 ? step : random() % 16);
        if (block < 2) {
            raw.events.push_back(RawEvent{block, t, address, random()});
            written[address] = raw.events.back();
            continue;
        }
        const auto found = written.find(address);
        raw.events.push_back(RawEvent{2, t, address, found != written.end() ? found->second.value : 0});
        if (found != written.end()) {
            raw.edges.push_back(RawEdge{2, found->second.node, t, found->second.t});
        }
    }
    return raw;
}

// The u32 fields that end the DEFS section.
std::vector<std::uint32_t> last_fields(const std::vector<std::uint8_t>& bytes, std::size_t count) {
    return wet_file_bytes::last_u32s(bytes, "DEFS", count);
}

void expect_defs(WholeExecutionTrace& wet, const RawTrace& raw) {
    for (const RawEdge& edge : raw.edges) {
        const std::optional<tcgen::wet::Def> def = wet.def_of(edge.use, edge.t_use);
        ASSERT_TRUE(def.has_value()) << "t " << edge.t_use;
        EXPECT_EQ(def->node, edge.def) << "t " << edge.t_use;
        EXPECT_EQ(def->t, edge.t_def) << "t " << edge.t_use;
    }
}

TEST(LoadWriters, DefsAmongTwoStoresKeepNoStore) {
    const RawTrace raw = two_writers(3000, 1);
    const std::vector<std::uint8_t> bytes = WholeExecutionTrace::build(raw).to_bytes();
    // The writers: u64 1 load, then load node 2, 2 writers, nodes 0 and 1.
    EXPECT_EQ(last_fields(bytes, 6), (std::vector<std::uint32_t>{1, 0, 2, 2, 0, 1}));
    // Stores 0 and 1 keep no defs (form 0 each); the load's are one record
    // (form 1, u64 count, then u64 fields: 1 found among the writers, 0).
    const std::size_t defs = wet_file_bytes::payload_of(bytes, "DEFS");
    const std::vector<std::uint8_t> expected = {0, 0, 1};
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), bytes.begin() + static_cast<std::ptrdiff_t>(defs)));
    EXPECT_EQ(bytes[defs + 3 + 8], 1);

    WholeExecutionTrace wet = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "writers.wet");
    expect_defs(wet, raw);
    const std::vector<tcgen::wet::Access> loads = wet.accesses(0x1040);
    std::vector<RawEvent> expected_loads;
    for (const RawEvent& event : raw.events) {
        if (event.node == 2) {
            expected_loads.push_back(event);
        }
    }
    ASSERT_EQ(loads.size(), expected_loads.size());
    for (std::size_t index = 0; index < loads.size(); ++index) {
        EXPECT_EQ(loads[index].value, expected_loads[index].value) << "execution " << index;
    }
}

// Defs the tracer saw otherwise than the stores' addresses say (its memory
// model may differ): one that a later write of the other store would hide is
// kept as its store (the latest write of that store), one that is not even
// its store's latest write keeps its rank.
TEST(LoadWriters, DefsTheWritersWouldMissAreKept) {
    RawTrace raw = three_blocks();
    const std::uint64_t x = buffer;
    const std::uint64_t y = buffer + 8;
    raw.flow = {0, 1, 2, 1, 2, 2, 0, 2};
    raw.events = {RawEvent{0, 1, x, 10}, RawEvent{1, 2, y, 20}, RawEvent{2, 3, x, 10}, RawEvent{1, 4, x, 40},
                  RawEvent{2, 5, x, 10}, RawEvent{2, 6, y, 20}, RawEvent{0, 7, x, 70}, RawEvent{2, 8, x, 10}};
    raw.edges = {RawEdge{2, 0, 3, 1}, RawEdge{2, 0, 5, 1}, RawEdge{2, 1, 6, 2}, RawEdge{2, 0, 8, 1}};
    const std::vector<std::uint8_t> bytes = WholeExecutionTrace::build(raw).to_bytes();
    EXPECT_EQ(last_fields(bytes, 6), (std::vector<std::uint32_t>{1, 0, 2, 2, 0, 1}));
    WholeExecutionTrace wet = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "missed.wet");
    expect_defs(wet, raw);
}

// Writers that are not of a load with defs, not stores that ran, not in
// order, or too few: refused when the file is loaded.
TEST(LoadWriters, ForgedWritersAreRefused) {
    const std::vector<std::uint8_t> built = WholeExecutionTrace::build(two_writers(300, 2)).to_bytes();
    const std::size_t end = wet_file_bytes::payload_end(built, "DEFS");
    struct Forgery {
        std::size_t field;  // of the last six u32: the u64 count (two), load, writers, writer, writer
        std::uint8_t value;
        std::string message;
    };
    const std::string refused = "forged.wet: error: inconsistent labels: ";
    const std::vector<Forgery> forgeries = {
        {2, 0, refused + "writers 0 are not of a load with defs, after the one before"},
        {2, 7, refused + "writers 0 are not of a load with defs, after the one before"},
        {4, 2, refused + "writer 2 of load node 2 is not a store that ran, after the one before"},
        {5, 0, refused + "writer 0 of load node 2 is not a store that ran, after the one before"},
        {3, 1, "forged.wet: error: section DEFS: load node 2 has 1 writers"},
    };
    for (const Forgery& forgery : forgeries) {
        std::vector<std::uint8_t> bytes = built;
        bytes[end - 4 * (6 - forgery.field)] = forgery.value;
        wet_file_bytes::reseal(bytes);
        try {
            WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "forged.wet");
            ADD_FAILURE() << "field " << forgery.field << " = " << int{forgery.value} << " was accepted";
        } catch (const tcgen::wet::WetError& error) {
            EXPECT_EQ(std::string(error.what()), forgery.message);
        }
    }
}

}  // namespace
