// Address siblings (address_siblings.hpp): the fields of one structure,
// reached from one pointer, keep their addresses as differences from the
// pointer's node; every query reads them back exactly, a def is inferred
// through a store kept that way, and a forged sibling is refused on load.

#include <cstdint>
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

constexpr std::uint64_t walk_pc = 0x1000;
constexpr std::uint64_t reader_pc = 0x1040;

// Block 0 walks a list: node 0 loads p->next at a pointer with no pattern,
// node 1 loads p->key (p + 8), node 2 stores p->count (p + 16), node 3
// reads an array in order. Block 1, every third trip, loads the count just
// stored (node 4: its def is node 2's latest execution).
RawTrace list_walk(unsigned trips, std::uint64_t seed) {
    RawTrace raw;
    raw.blocks.push_back(tcgen::wet::RawBlock{walk_pc, 0x20, 6, 'J'});
    raw.blocks.push_back(tcgen::wet::RawBlock{reader_pc, 0x10, 2, 'J'});
    raw.nodes.push_back(tcgen::wet::RawNode{0, walk_pc, 'L', 0, 8});
    raw.nodes.push_back(tcgen::wet::RawNode{0, walk_pc + 4, 'L', 0, 8});
    raw.nodes.push_back(tcgen::wet::RawNode{0, walk_pc + 8, 'S', 0, 8});
    raw.nodes.push_back(tcgen::wet::RawNode{0, walk_pc + 12, 'L', 0, 8});
    raw.nodes.push_back(tcgen::wet::RawNode{1, reader_pc, 'L', 0, 8});
    std::mt19937_64 random(seed);
    for (unsigned trip = 0; trip < trips; ++trip) {
        raw.flow.push_back(0);
        const auto t = static_cast<std::uint32_t>(raw.flow.size());
        const std::uint64_t p = 0x100000 + 32 * (random() % 100000);
        const std::uint64_t count = random() % 1000;
        raw.events.push_back(RawEvent{0, t, p, random()});
        raw.events.push_back(RawEvent{1, t, p + 8, random()});
        raw.events.push_back(RawEvent{2, t, p + 16, count});
        raw.events.push_back(RawEvent{3, t, 0x800000 + 8 * trip, random()});
        if (trip % 3 == 0) {
            raw.flow.push_back(1);
            raw.events.push_back(RawEvent{4, t + 1, p + 16, count});
            raw.edges.push_back(RawEdge{4, 2, t + 1, t});
        }
    }
    return raw;
}

// The u32 pairs (node, sibling) that end the ADDR section, after their u64 count.
std::vector<std::uint32_t> saved_siblings(const std::vector<std::uint8_t>& bytes, std::size_t pairs) {
    return wet_file_bytes::last_u32s(bytes, "ADDR", 2 * pairs + 2);
}

TEST(AddressSiblings, FieldsOfAStructureTakeTheirPointersNode) {
    const RawTrace raw = list_walk(3000, 1);
    const std::vector<std::uint8_t> bytes = WholeExecutionTrace::build(raw).to_bytes();
    // u64 count 2, then (1, 0) and (2, 0): the array read keeps its own stride,
    // and block 1's load has no earlier node in its block.
    EXPECT_EQ(saved_siblings(bytes, 2), (std::vector<std::uint32_t>{2, 0, 1, 0, 2, 0}));

    WholeExecutionTrace wet = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "list.wet");
    for (const std::uint64_t pc : {walk_pc, walk_pc + 4, walk_pc + 8, walk_pc + 12, reader_pc}) {
        const std::vector<tcgen::wet::Access> accesses = wet.accesses(pc);
        std::vector<const RawEvent*> expected;
        for (const RawEvent& event : raw.events) {
            if (raw.nodes[event.node].pc == pc) {
                expected.push_back(&event);
            }
        }
        ASSERT_EQ(accesses.size(), expected.size()) << "pc " << pc;
        for (std::size_t index = 0; index < accesses.size(); ++index) {
            EXPECT_EQ(accesses[index].t, expected[index]->t);
            EXPECT_EQ(accesses[index].address, expected[index]->address) << "pc " << pc << " execution " << index;
            EXPECT_EQ(accesses[index].value, expected[index]->value) << "pc " << pc << " execution " << index;
        }
    }
    // Node 4's defs are inferred from node 2's addresses, kept as differences.
    for (const RawEdge& edge : raw.edges) {
        const std::optional<tcgen::wet::Def> def = wet.def_of(edge.use, edge.t_use);
        ASSERT_TRUE(def.has_value()) << "t " << edge.t_use;
        EXPECT_EQ(def->node, edge.def);
        EXPECT_EQ(def->t, edge.t_def);
    }
}

// A pair that is not an earlier node of the same block that keeps its own
// addresses, resealed so that it reaches the check behind the checksums.
TEST(AddressSiblings, AForgedSiblingIsRefused) {
    const std::vector<std::uint8_t> built = WholeExecutionTrace::build(list_walk(300, 2)).to_bytes();
    const std::size_t last_sibling = wet_file_bytes::payload_end(built, "ADDR") - 4;
    const std::size_t last_node = last_sibling - 4;
    ASSERT_EQ(saved_siblings(built, 2), (std::vector<std::uint32_t>{2, 0, 1, 0, 2, 0}));
    struct Forgery {
        std::uint8_t node;
        std::uint8_t sibling;
    };
    // Node 2 after itself; a later node; one with a sibling of its own; another block's.
    for (const Forgery forgery : {Forgery{2, 2}, Forgery{2, 3}, Forgery{2, 1}, Forgery{4, 0}, Forgery{1, 0}}) {
        std::vector<std::uint8_t> bytes = built;
        bytes[last_node] = forgery.node;
        bytes[last_sibling] = forgery.sibling;
        wet_file_bytes::reseal(bytes);
        const std::string pair =
            "(node " + std::to_string(forgery.node) + ", sibling " + std::to_string(forgery.sibling) + ")";
        try {
            WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "forged.wet");
            ADD_FAILURE() << "the sibling pair " << pair << " was accepted";
        } catch (const tcgen::wet::WetError& error) {
            EXPECT_EQ(std::string(error.what()), "forged.wet: error: inconsistent labels: address sibling 1 " + pair +
                                                     " is not an earlier node of the same block that keeps its own");
        }
    }
}

}  // namespace
