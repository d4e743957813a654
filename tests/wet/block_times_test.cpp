// The blocks' timestamps that a saved WET no longer holds: derived from the
// control flow (block b's k-th timestamp is the position of b's k-th
// occurrence in it), when built and again after a load, they must be the
// ones counted by brute force on the flow of the synthetic run
// (synthetic_wet.hpp), for every block at every timestamp, walked forward
// and backward; a flow that disagrees with the saved counts is an error of
// the query, not a crash; and a file of the format that kept the timestamps
// is refused by its version.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <tcgen/wet.hpp>

#include "common/byte_io.hpp"
#include "synthetic_wet.hpp"
#include "wet/dependences/control_dependence.hpp"
#include "wet/labels/label_store.hpp"

namespace {

using tcgen::wet::LabelStore;
using tcgen::wet::RawTrace;
using tcgen::wet::WholeExecutionTrace;

// raw's nodes as a WET shares them with its labels.
std::shared_ptr<const std::vector<tcgen::wet::RawNode>> shared_nodes(const RawTrace& raw) {
    return std::make_shared<const std::vector<tcgen::wet::RawNode>>(raw.nodes);
}

std::vector<std::uint32_t> parents_of(const RawTrace& raw) {
    std::vector<tcgen::wet::BlockShape> shapes;
    for (const auto& block : raw.blocks) {
        shapes.push_back({block.pc, block.bytes, block.end});
    }
    return tcgen::wet::dynamic_control_parents(shapes, raw.flow.data(), raw.flow.size());
}

// timestamps[b] = the t at which block b ran, counted on the flow one by one.
std::vector<std::vector<std::uint32_t>> brute_force_times(const RawTrace& raw) {
    std::vector<std::vector<std::uint32_t>> timestamps(raw.blocks.size());
    for (std::size_t index = 0; index < raw.flow.size(); ++index) {
        timestamps[raw.flow[index]].push_back(static_cast<std::uint32_t>(index + 1));
    }
    return timestamps;
}

// A LabelStore read back from the saved sections of `built`, as load() does.
LabelStore reloaded(const LabelStore& built, const RawTrace& raw) {
    LabelStore store(static_cast<std::uint32_t>(raw.flow.size()), shared_nodes(raw), raw.blocks.size());
    store.set_name("reloaded.wet");
    for (std::size_t section = 0; section < LabelStore::section_count; ++section) {
        const std::vector<std::uint8_t> bytes = built.save_section(section);
        tcgen::ByteReader reader(bytes.data(), bytes.size(), "reloaded.wet", LabelStore::section_tags[section]);
        store.load_section(section, reader);
    }
    store.check_loaded("reloaded.wet", raw.events.size(), raw.edges.size());
    return store;
}

// Every block at every t, forward then backward: its execution index when it
// ran at t, else none.
void expect_block_executions(LabelStore& store, const RawTrace& raw, const char* which) {
    const auto timestamps = brute_force_times(raw);
    const auto expect_at = [&](std::uint32_t block, std::uint32_t t) {
        std::optional<std::uint64_t> expected;
        for (std::size_t k = 0; k < timestamps[block].size(); ++k) {
            if (timestamps[block][k] == t) {
                expected = k;
            }
        }
        EXPECT_EQ(store.block_execution(block, t), expected) << which << ": block " << block << " at t " << t;
    };
    const auto executed = static_cast<std::uint32_t>(raw.flow.size());
    for (std::uint32_t block = 0; block < raw.blocks.size(); ++block) {
        for (std::uint32_t t = 1; t <= executed; ++t) {
            expect_at(block, t);
        }
        for (std::uint32_t t = executed; t >= 1; --t) {
            expect_at(block, t);
        }
    }
}

// The flow as BlockTimes::of_walks asks for it: each execution's block and t.
auto walk_of(const std::vector<std::uint32_t>& flow) {
    return [&flow](const auto& visit) {
        for (std::size_t index = 0; index < flow.size(); ++index) {
            visit(flow[index], static_cast<std::uint32_t>(index + 1));
        }
    };
}

TEST(WetBlockTimes, TwoWalksOfTheFlowGiveEachBlocksTimestamps) {
    for (const unsigned trips : {1u, 3u, 60u}) {
        const RawTrace raw = synthetic_wet::make_trace(trips, trips);
        const auto held = tcgen::wet::BlockTimes::of_walks(raw.blocks.size(), walk_of(raw.flow));
        const auto timestamps = brute_force_times(raw);
        for (std::uint32_t block = 0; block < raw.blocks.size(); ++block) {
            EXPECT_EQ(held.times(block), timestamps[block]) << trips << " trips, block " << block;
        }
    }
}

// A walk that visits other executions the second time is a bug of the
// caller, told as one, not bytes written out of place.
TEST(WetBlockTimes, ASecondWalkThatDiffersIsRefused) {
    const std::vector<std::uint32_t> flow = synthetic_wet::make_trace(3, 3).flow;
    const std::uint32_t blocks = *std::max_element(flow.begin(), flow.end()) + 1;
    for (const bool more : {true, false}) {
        int walks = 0;
        const auto differing = [&](const auto& visit) {
            walk_of(flow)(visit);
            if (++walks == 2 && more) {
                visit(flow.back(), static_cast<std::uint32_t>(flow.size() + 1));
            }
            if (walks == 1 && !more) {
                visit(flow.back(), static_cast<std::uint32_t>(flow.size() + 1));
            }
        };
        try {
            tcgen::wet::BlockTimes::of_walks(blocks, differing);
            ADD_FAILURE() << "a second walk visiting " << (more ? "more" : "fewer") << " was taken";
        } catch (const std::logic_error& error) {
            EXPECT_NE(
                std::string(error.what()).find(more ? "visits more than the first" : "visits fewer than the first"),
                std::string::npos)
                << error.what();
        }
    }
}

// Held block timestamps against the flow at every t, on synthetic runs and
// on a flow whose blocks run ever more rarely (each a tenth as often as
// the one before; the last at its first and last t only): blocks with
// fewer and more than 64 executions (one sample of the timestamps and
// several) and gaps of one, two and three bytes.
TEST(WetBlockTimes, HeldTimestampsAnswerEveryLookup) {
    std::vector<std::vector<std::uint32_t>> flows;
    for (const unsigned trips : {1u, 3u, 60u, 700u}) {
        flows.push_back(synthetic_wet::make_trace(trips, 10 + trips).flow);
    }
    std::vector<std::uint32_t> rarer(200000, 0);
    std::mt19937_64 random(5);
    for (std::uint32_t& block : rarer) {
        for (std::uint32_t one_in = 10; block < 3 && random() % one_in == 0; one_in *= 10) {
            ++block;
        }
    }
    rarer.front() = rarer.back() = 4;
    flows.push_back(rarer);

    std::uint32_t widest_gap = 0;
    std::size_t most_executions = 0;
    for (const std::vector<std::uint32_t>& flow : flows) {
        const std::uint32_t blocks = *std::max_element(flow.begin(), flow.end()) + 1;
        const auto held = tcgen::wet::BlockTimes::of_walks(blocks, walk_of(flow));
        std::vector<std::vector<std::uint32_t>> timestamps(blocks);
        for (std::size_t index = 0; index < flow.size(); ++index) {
            timestamps[flow[index]].push_back(static_cast<std::uint32_t>(index + 1));
        }
        for (std::uint32_t block = 0; block < blocks; ++block) {
            const auto& own = timestamps[block];
            most_executions = std::max(most_executions, own.size());
            for (std::size_t index = 1; index < own.size(); ++index) {
                widest_gap = std::max(widest_gap, own[index] - own[index - 1]);
            }
            ASSERT_EQ(held.count(block), own.size());
            ASSERT_EQ(held.times(block), own) << flow.size() << " records, block " << block;
            for (std::uint64_t index = 0; index < own.size(); ++index) {
                ASSERT_EQ(held.at(block, index), own[index]) << flow.size() << " records, block " << block;
            }
            for (std::uint32_t t = 1; t <= flow.size() + 1; ++t) {
                const auto below = std::lower_bound(own.begin(), own.end(), t);
                ASSERT_EQ(held.count_below(block, t), static_cast<std::uint64_t>(below - own.begin()))
                    << flow.size() << " records, block " << block << ", t " << t;
                const std::optional<std::uint64_t> found = held.find(block, t);
                ASSERT_EQ(found.has_value(), below != own.end() && *below == t);
            }
        }
    }
    EXPECT_GT(widest_gap, 16383u);
    EXPECT_GT(most_executions, 64u);
}

// 1 trip: every label a constant or plain records; 700: hot blocks' timestamps
// are compressed streams, walked by block_execution from wherever they stand.
TEST(WetBlockTimes, DerivedOnBuildAndOnLoadMatchTheFlow) {
    for (const unsigned trips : {1u, 3u, 60u, 700u}) {
        const RawTrace raw = synthetic_wet::make_trace(trips, 10 + trips);
        // Checkpoints as a real run has them, and every few records (the
        // flow and the blocks' timestamps in many chunks).
        for (const std::uint64_t checkpoint : {WholeExecutionTrace::default_checkpoint_records, std::uint64_t{7}}) {
            LabelStore built = LabelStore::build(raw, shared_nodes(raw), parents_of(raw), nullptr, checkpoint);
            LabelStore loaded = reloaded(built, raw);
            expect_block_executions(built, raw, "built");
            expect_block_executions(loaded, raw, "loaded");
        }
    }
}

// Two blocks' saved counts swapped: the first query that derives the
// timestamps finds that the flow runs them otherwise.
TEST(WetBlockTimes, CountsTheFlowDisagreesWithAreAQueryError) {
    const RawTrace raw = synthetic_wet::make_trace(3, 2);
    LabelStore built = LabelStore::build(raw, shared_nodes(raw), parents_of(raw), nullptr,
                                         WholeExecutionTrace::default_checkpoint_records);
    std::vector<std::uint32_t> counts(raw.blocks.size(), 0);
    for (const std::uint32_t block : raw.flow) {
        ++counts[block];
    }
    // Two blocks that ran a different number of times.
    std::uint32_t first = 0;
    std::uint32_t second = 1;
    while (counts[second] == counts[first]) {
        ++second;
    }
    LabelStore store(static_cast<std::uint32_t>(raw.flow.size()), shared_nodes(raw), raw.blocks.size());
    store.set_name("swapped.wet");
    for (std::size_t section = 0; section < LabelStore::section_count; ++section) {
        std::vector<std::uint8_t> bytes = built.save_section(section);
        if (std::string(LabelStore::section_tags[section]) == "BCNT") {
            std::swap_ranges(bytes.begin() + 4 * first, bytes.begin() + 4 * first + 4, bytes.begin() + 4 * second);
        }
        tcgen::ByteReader reader(bytes.data(), bytes.size(), "swapped.wet", LabelStore::section_tags[section]);
        store.load_section(section, reader);
    }
    // The nodes' lengths no longer agree with the counts either: only the
    // query can be tried, not check_loaded.
    try {
        store.block_execution(first, 1);
        ADD_FAILURE() << "swapped counts were accepted";
    } catch (const tcgen::wet::WetError& error) {
        EXPECT_EQ(std::string(error.what()).rfind("swapped.wet: error: corrupt labels: block ", 0), 0u) << error.what();
    }
}

TEST(WetBlockTimes, TheSavedFormHoldsNoBlockTimestamps) {
    const RawTrace raw = synthetic_wet::make_trace(60, 4);
    const auto wet = tcgen::wet::WholeExecutionTrace::build(raw);
    const std::vector<std::uint8_t> bytes = wet.to_bytes();
    const std::string text(bytes.begin(), bytes.end());
    EXPECT_EQ(text.find("BTIM"), std::string::npos);
    EXPECT_NE(text.find("BPAR"), std::string::npos);
    for (const auto& row : wet.stats()) {
        if (row.name == "block timestamps") {
            EXPECT_EQ(row.compressed_bytes, 4 * raw.blocks.size());  // each block's count of executions
            EXPECT_EQ(row.raw_bytes, 4 * raw.flow.size());
        }
    }
}

// Every query that uses blocks' timestamps answers the same on the WET as
// built (timestamps from the raw flow) and as loaded (timestamps derived
// by the first of these queries): control parents, executions, defs,
// accesses, instances and slices.
TEST(WetBlockTimes, QueriesAnswerTheSameBuiltAndLoaded) {
    const RawTrace raw = synthetic_wet::make_trace(300, 21);
    WholeExecutionTrace built = WholeExecutionTrace::build(raw);
    const std::vector<std::uint8_t> bytes = built.to_bytes();
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "loaded.wet");
    const auto block_times_memory = [&] {
        for (const auto& row : loaded.stats()) {
            if (row.name == "block timestamps") {
                return row.memory_bytes;
            }
        }
        return std::uint64_t{0};
    };
    EXPECT_EQ(block_times_memory(), 4 * raw.blocks.size());  // only the counts until a query needs the timestamps
    for (std::uint32_t t = built.executed(); t >= 1; --t) {
        ASSERT_EQ(loaded.control_parent(t), built.control_parent(t)) << "t " << t;
        for (std::uint32_t node = 0; node < built.node_count(); ++node) {
            ASSERT_EQ(loaded.executed_at(node, t), built.executed_at(node, t)) << "node " << node << " t " << t;
            const auto def = built.def_of(node, t);
            const auto again = loaded.def_of(node, t);
            ASSERT_EQ(again.has_value(), def.has_value()) << "node " << node << " t " << t;
            if (def) {
                EXPECT_EQ(again->node, def->node);
                EXPECT_EQ(again->t, def->t);
            }
        }
    }
    EXPECT_GT(block_times_memory(), 4 * raw.blocks.size());
    std::vector<std::uint64_t> pcs;
    for (std::uint32_t node = 0; node < built.node_count(); ++node) {
        pcs.push_back(built.node(node).pc);
    }
    for (const std::uint64_t pc : pcs) {
        const auto accesses = built.accesses(pc);
        const auto accessed = loaded.accesses(pc);
        ASSERT_EQ(accessed.size(), accesses.size()) << "pc " << pc;
        for (std::size_t index = 0; index < accesses.size(); ++index) {
            EXPECT_EQ(accessed[index].t, accesses[index].t);
            EXPECT_EQ(accessed[index].node, accesses[index].node);
            EXPECT_EQ(accessed[index].value, accesses[index].value);
            EXPECT_EQ(accessed[index].address, accesses[index].address);
        }
        const auto instances = built.instances(pc);
        ASSERT_EQ(loaded.instances(pc), instances) << "pc " << pc;
        for (const std::uint64_t instance : {std::uint64_t{1}, std::uint64_t(instances.size() / 2 + 1),
                                             std::uint64_t(instances.size())}) {
            const auto slice = built.backward_slice(pc, instance);
            const auto sliced = loaded.backward_slice(pc, instance);
            ASSERT_EQ(sliced.size(), slice.size()) << "pc " << pc << " instance " << instance;
            for (std::size_t index = 0; index < slice.size(); ++index) {
                EXPECT_EQ(sliced[index].t, slice[index].t);
                EXPECT_EQ(sliced[index].kind, slice[index].kind);
                EXPECT_EQ(sliced[index].pc, slice[index].pc);
                EXPECT_EQ(sliced[index].slot, slice[index].slot);
            }
        }
    }
}

// Files of versions 2 (kept the blocks' timestamps), 3 (streams without
// checkpoints), 4 (chunks only as streams), 5 (no dictionaries), 6 (no
// shared frames), 7 (dictionaries; no shared frames of addresses), 8
// (the control flow as block ids), 9 (every def's rank or distance
// kept), 10 (no address siblings), 11 (no load writers), 12 (no
// register dataflow) and 13 (no symbols): one line that names the file, its version and what
// to do.
TEST(WetBlockTimes, AnOlderVersionIsRefusedByName) {
    for (const std::uint8_t version : {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}) {
        std::vector<std::uint8_t> bytes = WholeExecutionTrace::build(synthetic_wet::make_trace(5, 4)).to_bytes();
        bytes[8] = version;
        try {
            WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "old.wet");
            ADD_FAILURE() << "a version " << int{version} << " file was accepted";
        } catch (const tcgen::wet::WetError& error) {
            EXPECT_EQ(std::string(error.what()), "old.wet: error: WET format version " + std::to_string(version) +
                                                     ", this library reads version 14: rebuild it with 'wet build'");
        }
    }
}

}  // namespace
