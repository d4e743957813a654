// A load's def inferred from its store node's addresses (LabelStore::def_at):
// the latest of the store's executions before the load that wrote the load's
// first byte, found by walking back over the last few or, further back, in
// the store's address index, or, for a store too large to index, by a walk
// back that passes the chunks whose address ranges cannot hold it; the
// index, the ranges and the cache against brute force; a
// file whose store sizes were forged is refused at the query that needs them.

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tcgen/wet.hpp>

#include "wet/dependences/address_ranges.hpp"
#include "wet/dependences/store_address_index.hpp"
#include "wet/labels/def_encoding.hpp"
#include "wet/labels/lru_cache.hpp"
#include "wet_file_bytes.hpp"

namespace {

using tcgen::wet::RawEdge;
using tcgen::wet::RawEvent;
using tcgen::wet::RawTrace;
using tcgen::wet::WholeExecutionTrace;

constexpr std::uint32_t store_node = 0;
constexpr std::uint32_t load_node = 1;
constexpr std::uint64_t buffer = 0x8000;

// A store of 8 bytes fills a buffer of `slots` slots in order with random
// values, once per pass, `passes` times; then a load of 2 bytes reads
// `reads` random bytes of it (what the last pass wrote there), each 0-7
// bytes into a slot (so its store began before its first byte), and a few
// addresses outside it (no def). The last pass wrote each slot `slots - k`
// executions before the reads begin: most defs are far beyond a short walk.
// Blocks: 0 entry, 1 the store, 2 the load, 3 exit.
RawTrace buffer_run(std::uint32_t slots, unsigned passes, unsigned reads, std::uint64_t seed) {
    RawTrace raw;
    const char ends[] = {'J', 'J', 'J', 'J'};
    for (std::uint64_t block = 0; block < 4; ++block) {
        raw.blocks.push_back(tcgen::wet::RawBlock{0x1000 + 0x20 * block, 0x20, 4, ends[block]});
    }
    raw.nodes.push_back(tcgen::wet::RawNode{1, 0x1020, 'S', 0, 8});
    raw.nodes.push_back(tcgen::wet::RawNode{2, 0x1040, 'L', 0, 2});
    std::mt19937_64 random(seed);
    std::map<std::uint64_t, std::uint32_t> writer;  // byte -> t of the store that wrote it last
    std::map<std::uint64_t, std::uint8_t> memory;   // byte -> its value
    raw.flow.push_back(0);
    for (unsigned pass = 0; pass < passes; ++pass) {
        for (std::uint32_t slot = 0; slot < slots; ++slot) {
            raw.flow.push_back(1);
            const auto t = static_cast<std::uint32_t>(raw.flow.size());
            const std::uint64_t address = buffer + 8 * slot;
            const std::uint64_t value = random();
            raw.events.push_back(RawEvent{store_node, t, address, value});
            for (std::uint64_t byte = 0; byte < 8; ++byte) {
                writer[address + byte] = t;
                memory[address + byte] = static_cast<std::uint8_t>(value >> (8 * byte));
            }
        }
    }
    for (unsigned read = 0; read < reads; ++read) {
        raw.flow.push_back(2);
        const auto t = static_cast<std::uint32_t>(raw.flow.size());
        const std::uint64_t address =
            read % 10 == 0 ? buffer - 64 + random() % 32 : buffer + 8 * (random() % slots) + random() % 8;
        const std::uint64_t value = memory[address] | std::uint64_t{memory[address + 1]} << 8;
        raw.events.push_back(RawEvent{load_node, t, address, value});
        if (const auto found = writer.find(address); found != writer.end()) {
            raw.edges.push_back(RawEdge{load_node, store_node, t, found->second});
        }
    }
    raw.flow.push_back(3);
    return raw;
}

// Every load's def and every access, as the WET gives them, against the raw
// records.
void expect_defs(WholeExecutionTrace& wet, const RawTrace& raw) {
    for (const std::uint32_t node : {store_node, load_node}) {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> expected;
        for (const RawEvent& event : raw.events) {
            if (event.node == node) {
                expected.emplace_back(event.value, event.address);
            }
        }
        std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
        for (const auto& access : wet.accesses(raw.nodes[node].pc)) {
            got.emplace_back(access.value, access.address);
        }
        EXPECT_EQ(got, expected) << "node " << node;
    }
    std::map<std::uint32_t, std::uint32_t> defs;  // t_use -> t_def
    for (const RawEdge& edge : raw.edges) {
        defs[edge.t_use] = edge.t_def;
    }
    for (const RawEvent& event : raw.events) {
        if (event.node != load_node) {
            continue;
        }
        const auto def = wet.def_of(load_node, event.t);
        const auto found = defs.find(event.t);
        if (found == defs.end()) {
            EXPECT_FALSE(def.has_value()) << "t " << event.t;
        } else {
            ASSERT_TRUE(def.has_value()) << "t " << event.t;
            EXPECT_EQ(def->node, store_node);
            EXPECT_EQ(def->t, found->second) << "t " << event.t;
        }
    }
}

TEST(DefInference, NearAndFarDefsMatchTheRawEdges) {
    for (const std::uint32_t slots : {4u, 60u, 700u}) {
        const RawTrace raw = buffer_run(slots, 3, 400, slots);
        tcgen::wet::check_raw_trace(raw, "buffer");
        WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
        expect_defs(wet, raw);
        const std::vector<std::uint8_t> bytes = wet.to_bytes();
        WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "buffer.wet");
        expect_defs(loaded, raw);
    }
}

// Inferred, the defs cost almost nothing: every one is "the store's latest
// write of this byte", however far back; kept as ranks and distances, 700
// slots read at random would cost bytes per def. The loads' values too: they
// are what their defs wrote, so only the stores' random values cost bytes.
TEST(DefInference, InferredDefsAndLoadValuesCostAFewBytes) {
    const RawTrace raw = buffer_run(700, 3, 4000, 1);
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
    const auto stats = wet.stats();
    const auto row = [&](const std::string& name) {
        const auto found = std::find_if(stats.begin(), stats.end(), [&](const auto& r) { return r.name == name; });
        EXPECT_NE(found, stats.end()) << name;
        return found == stats.end() ? std::uint64_t{0} : found->compressed_bytes;
    };
    EXPECT_LT(row("data dependences"), 400u);  // 3,600 defs
    // 2,100 random stored values (16.8 KB, and their stream's tables), 4,000
    // loads of 2 random bytes (8 KB if they were kept)
    EXPECT_LT(row("values"), 2100u * 8 + 4000);
}

// The file's store is said to write 1 byte: the loads 1-7 bytes into a slot
// no longer have a writer among its executions, which the query names.
TEST(DefInference, AForgedStoreSizeIsACorruptFile) {
    const RawTrace raw = buffer_run(60, 3, 400, 2);
    std::vector<std::uint8_t> bytes = WholeExecutionTrace::build(raw).to_bytes();
    const std::size_t nodes = wet_file_bytes::payload_of(bytes, "NODS");
    ASSERT_NE(nodes, 0u);
    bytes[nodes + 8 + 14] = 1;  // node 0's u16 size, after u64 count and u32 block, u64 pc, u8 access, u8 slot
    wet_file_bytes::reseal(bytes);
    WholeExecutionTrace wet = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "forged.wet");
    const auto inside = std::find_if(raw.edges.begin(), raw.edges.end(), [&](const RawEdge& edge) {
        return raw.events[edge.t_use - 2].address % 8 != 0;  // the load's event (one per t after the entry)
    });
    ASSERT_NE(inside, raw.edges.end());
    const RawEvent& load = raw.events[inside->t_use - 2];
    try {
        wet.def_of(load_node, load.t);
        ADD_FAILURE() << "a def no store wrote was answered";
    } catch (const tcgen::wet::WetError& error) {
        EXPECT_EQ(std::string(error.what()),
                  "forged.wet: error: corrupt labels: def of node 1 at t " + std::to_string(load.t) +
                      ": none of store node 0's 180 executions before it wrote address " +
                      std::to_string(load.address));
    }
}

// A def forged to name a store that runs after its load in the same block
// execution (distance 0): a slice refuses it rather than going round
// between the two (it visits items latest first and drops repeated ones as
// they come out, so a dependence that does not go back would never end).
TEST(DefInference, ADefThatDoesNotGoBackIsACorruptFile) {
    RawTrace raw;
    raw.blocks.push_back(tcgen::wet::RawBlock{0x1000, 0x10, 2, 'J'});
    raw.blocks.push_back(tcgen::wet::RawBlock{0x1010, 0x10, 3, 'J'});
    raw.flow = {0, 1};
    raw.nodes.push_back(tcgen::wet::RawNode{0, 0x1000, 'S', 0, 8});
    raw.nodes.push_back(tcgen::wet::RawNode{1, 0x1010, 'L', 0, 8});
    raw.nodes.push_back(tcgen::wet::RawNode{1, 0x1018, 'S', 0, 8});
    raw.events = {RawEvent{0, 1, 0x8000, 5}, RawEvent{1, 2, 0x8000, 5}, RawEvent{2, 2, 0x9000, 7}};
    raw.edges = {RawEdge{1, 0, 2, 1}};
    std::vector<std::uint8_t> bytes = WholeExecutionTrace::build(raw).to_bytes();
    const std::size_t defs = wet_file_bytes::payload_of(bytes, "DEFS");
    ASSERT_NE(defs, 0u);
    // Node 0 has no defs (form 0); node 1's are one record, a constant
    // (form 1, u64 count, then u64 fields: store + 2, and 0 for inferred).
    const std::vector<std::uint8_t> expected = {0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0};
    ASSERT_TRUE(std::equal(expected.begin(), expected.end(), bytes.begin() + static_cast<std::ptrdiff_t>(defs)));
    bytes[defs + 10] = 4;   // store node 2
    bytes[defs + 18] = 65;  // at a distance of 0: 1 + 64 ranks + the distance
    wet_file_bytes::reseal(bytes);
    WholeExecutionTrace wet = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "forged.wet");
    try {
        wet.backward_slice(0x1010, 1);
        ADD_FAILURE() << "a slice went forward in time";
    } catch (const tcgen::wet::WetError& error) {
        EXPECT_STREQ(error.what(), "forged.wet: error: corrupt labels: node 1 at t 2 depends on node 2 at t 2, "
                                   "which is not before it");
    }
}

// The index against a walk over every execution, for stores of several
// widths over a few overlapping addresses.
TEST(DefInference, TheAddressIndexFindsTheLatestWriter) {
    std::mt19937_64 random(5);
    for (const std::uint16_t size : {std::uint16_t{1}, std::uint16_t{4}, std::uint16_t{8}}) {
        std::vector<std::uint64_t> addresses(3000);
        for (auto& address : addresses) {
            address = 100 + random() % 64;
        }
        std::vector<std::uint32_t> times(addresses.size());
        for (std::uint32_t execution = 0; execution < times.size(); ++execution) {
            times[execution] = 7 * execution + 3;
        }
        const tcgen::wet::StoreAddressIndex index(addresses, times, std::vector<std::uint64_t>(addresses.size(), 9));
        for (int query = 0; query < 3000; ++query) {
            const std::uint64_t address = 90 + random() % 84;
            const std::uint64_t below = random() % (addresses.size() + 1);
            std::optional<std::uint32_t> expected;
            for (std::uint64_t execution = below; execution > 0; --execution) {
                const std::uint64_t start = addresses[execution - 1];
                if (address >= start && address - start < size) {
                    expected = static_cast<std::uint32_t>(execution - 1);
                    break;
                }
            }
            const auto found = index.latest_covering(address, size, below);
            ASSERT_EQ(found, expected) << "size " << size << " address " << address << " below " << below;
            if (found) {
                EXPECT_EQ(index.time(*found), 7 * *found + 3);
            }
        }
    }
}

// The chunks' address ranges against a walk over every execution: stores of
// several widths whose addresses stay within a region for a few chunks at a
// time (so most chunks are passed), from any execution back to any floor,
// including addresses below and above every range and near 0 and 2^64 - 1.
TEST(DefInference, TheChunksAddressRangesFindTheLatestWriter) {
    using tcgen::wet::AddressRanges;
    std::mt19937_64 random(6);
    for (const std::uint16_t size : {std::uint16_t{1}, std::uint16_t{4}, std::uint16_t{8}, std::uint16_t{64}}) {
        std::vector<std::uint64_t> addresses(5 * AddressRanges::chunk_executions + 17);
        std::uint64_t region = 0;
        for (std::size_t execution = 0; execution < addresses.size(); ++execution) {
            if (execution % 3000 == 0) {
                region = random() % 4 == 0 ? ~std::uint64_t{0} - 200 : (random() % 8) * 1000;
            }
            addresses[execution] = region + random() % 100;
        }
        AddressRanges ranges;
        for (const std::uint64_t address : addresses) {
            ranges.add(address);
        }
        ASSERT_EQ(ranges.size(), addresses.size());
        for (int query = 0; query < 4000; ++query) {
            const std::uint64_t address =
                query % 50 == 0 ? random() % 3 : addresses[random() % addresses.size()] + random() % 80 - 40;
            const std::uint64_t before = random() % (addresses.size() + 1);
            const std::uint64_t floor = random() % 3 == 0 ? random() % (before + 1) : 0;
            std::optional<std::uint64_t> expected;
            for (std::uint64_t execution = before; execution > floor; --execution) {
                if (tcgen::wet::def_encoding::covers(addresses[execution - 1], size, address)) {
                    expected = execution - 1;
                    break;
                }
            }
            std::uint64_t read = 0;
            const auto found = ranges.latest_covering(before, floor, address, size, [&](std::uint64_t execution) {
                ++read;
                EXPECT_GE(execution, floor);
                EXPECT_LT(execution, before);
                return addresses[execution];
            });
            ASSERT_EQ(found, expected) << "size " << size << " address " << address << " before " << before << " floor "
                                       << floor;
            EXPECT_LE(read, before - floor);
        }
    }
}

TEST(DefInference, TheCacheDropsTheLeastRecentlyUsedPastItsBudget) {
    tcgen::wet::LruCache<std::string> cache(10);
    cache.insert(1, "one", 4);
    cache.insert(2, "two", 4);
    ASSERT_NE(cache.find(1), nullptr);  // 1 is now the most recent
    cache.insert(3, "three", 4);        // 12 > 10: 2 goes
    EXPECT_EQ(cache.find(2), nullptr);
    ASSERT_NE(cache.find(1), nullptr);
    EXPECT_EQ(*cache.find(3), "three");
    cache.insert(4, "four", 30);  // over the budget alone: kept, every other dropped
    EXPECT_EQ(cache.find(1), nullptr);
    EXPECT_EQ(cache.find(3), nullptr);
    EXPECT_EQ(*cache.find(4), "four");
    cache.insert(5, "five", 1);
    EXPECT_EQ(cache.find(4), nullptr);
    EXPECT_EQ(*cache.find(5), "five");
}

}  // namespace
