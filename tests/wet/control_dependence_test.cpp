// dynamic_control_parents on hand-made programs whose parents are worked out
// by hand in the comments. Block i sits at pc 0x1000 + 0x10 * i and is 0x10
// bytes long, so the return address of a call in block i is block i+1's pc.
// Notation: "X -> Y" a CFG edge, "Y on X" Y control dependent on X, "tN" the
// block executed at timestamp N.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "wet/dependences/control_dependence.hpp"

namespace {

using tcgen::wet::BlockShape;
using tcgen::wet::dynamic_control_parents;
using Parents = std::vector<std::uint32_t>;

// One block per character of ends ('C', 'R' or 'J'), laid out as above.
std::vector<BlockShape> layout(const std::string& ends) {
    std::vector<BlockShape> blocks;
    for (std::size_t i = 0; i < ends.size(); ++i) {
        blocks.push_back(BlockShape{0x1000 + 0x10 * i, 0x10, ends[i]});
    }
    return blocks;
}

Parents parents_of(const std::vector<BlockShape>& blocks, const std::vector<std::uint32_t>& flow) {
    return dynamic_control_parents(blocks, flow.data(), flow.size());
}

TEST(ControlDependence, StraightLineHasNoParents) {
    // 0 -> 1 -> 2, one path: nothing decides anything.
    EXPECT_EQ(parents_of(layout("JJR"), {0, 1, 2}), (Parents{0, 0, 0}));
}

TEST(ControlDependence, IfElseArmsHangOffTheTestAndTheRestOffTheCall) {
    // main: 0 call f, 1 call f, 2 ret. f: 3 test -> 4 then | 5 else -> 6 join, ret.
    // f's CFG: 3 -> 4, 3 -> 5, 4 -> 6, 5 -> 6; ipdom(3) = 6; 4 on 3, 5 on 3.
    // t1 0 | t2 3 t3 4 t4 6 | t5 1 | t6 3 t7 5 t8 6 | t9 2
    EXPECT_EQ(parents_of(layout("CCRJJJR"), {0, 3, 4, 6, 1, 3, 5, 6, 2}), (Parents{0, 1, 2, 1, 0, 5, 6, 5, 0}));
}

TEST(ControlDependence, NestedIfs) {
    // main: 0..2 call f three times, 3 ret.
    // f: 4 if (a) { 5 if (b) { 6 } 7 } 8 ret.
    // CFG: 4 -> 5, 4 -> 8, 5 -> 6, 5 -> 7, 6 -> 7, 7 -> 8.
    // ipdom: 4 -> 8, 5 -> 7, 6 -> 7, 7 -> 8. Hence 5 on 4, 7 on 4, 6 on 5.
    const std::vector<std::uint32_t> flow = {0, 4, 5, 6, 7, 8,  // a, b
                                             1, 4, 5, 7, 8,     // a, !b
                                             2, 4, 8,           // !a
                                             3};
    EXPECT_EQ(parents_of(layout("CCCRJJJJR"), flow), (Parents{0, 1, 2, 3, 2, 1, 0, 7, 8, 8, 7, 0, 12, 12, 0}));
}

TEST(ControlDependence, WhileLoopBranchControlsItself) {
    // 0 entry -> 1 while (c) { 2 } -> 3 ret. CFG: 0 -> 1, 1 -> 2, 2 -> 1, 1 -> 3.
    // ipdom: 0 -> 1, 1 -> 3, 2 -> 1. Edge 1 -> 2 walks 2, 1 up to 3: 2 on 1, 1 on 1.
    // Each test of c hangs off the previous one; the first has none.
    EXPECT_EQ(parents_of(layout("JJJR"), {0, 1, 2, 1, 2, 1, 3}), (Parents{0, 0, 2, 2, 4, 4, 0}));
}

TEST(ControlDependence, CallInsideALoop) {
    // main: 0 while (c) { 1 call g; 2 } 3 ret. g: 4 -> 5 ret.
    // main's CFG: 0 -> 1, 1 -> 2 (the call edge), 2 -> 0, 0 -> 3; 1, 2 and 0 on 0.
    // g's blocks: nothing in g controls them, so they hang off the call at t2;
    // the block after the return hangs off the loop test at t1, not off g.
    EXPECT_EQ(parents_of(layout("JCJRJR"), {0, 1, 4, 5, 2, 0, 3}), (Parents{0, 1, 2, 2, 1, 1, 0}));
}

TEST(ControlDependence, RecursionKeepsParentsWithinTheActivation) {
    // main: 0 call f, 1 ret. f: 2 if (n > 0) { 3 call f; 4 } 5 ret.
    // f's CFG: 2 -> 3, 3 -> 4, 4 -> 5, 2 -> 5; 3 on 2, 4 on 2.
    // Activations: A (call site t1), B (t3), C (t5).
    // t8 runs block 4 in B: its controller 2 ran last at t6, but in C, so its
    // parent is B's own test at t4.
    EXPECT_EQ(parents_of(layout("CRJCJR"), {0, 2, 3, 2, 3, 2, 5, 4, 5, 4, 5, 1}),
              (Parents{0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0}));
}

TEST(ControlDependence, ReturnMatchingNoFrameIsAJumpAndADeeperMatchPopsAll) {
    // main: 0 call a, 1, 2 ret. a: 3 call b, (4 never runs). b: 5 ret, 6.
    // t4: 5 returns to 6, which no frame's return address is: 6 runs in b's
    // frame (edge 5 -> 6). t6: 5 returns to 1, a's return address: b's and
    // a's frames are popped and main gets the edge 0 -> 1.
    // b's CFG: 5 -> 6, 6 -> 5, 5 -> EXIT (a return): 6 on 5, 5 on 5.
    EXPECT_EQ(parents_of(layout("CJRCRRJ"), {0, 3, 5, 6, 5, 1, 2}), (Parents{0, 1, 2, 3, 3, 0, 0}));
}

TEST(ControlDependence, InfiniteLoopRegionGetsEdgesToExit) {
    // 0 -> 1 loop { 1 test -> 2 | 3 -> 1 }, never leaving: no node reaches
    // EXIT, so every one gets an edge to it, every ipdom is EXIT and every
    // node is control dependent on each of its predecessors.
    EXPECT_EQ(parents_of(layout("JJJJ"), {0, 1, 2, 1, 3, 1, 2, 1}), (Parents{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(ControlDependence, InfiniteLoopBesideAReturn) {
    // main: 0 call f, 1 call f, (2 ret). f: 3 test -> 4 ret | 5 self-loop.
    // f's CFG: 3 -> 4, 3 -> 5, 5 -> 5; 5 cannot reach EXIT, so 5 -> EXIT.
    // ipdom(3) = EXIT: 4 on 3, 5 on 3 and 5 on 5.
    EXPECT_EQ(parents_of(layout("CCRJRJ"), {0, 3, 4, 1, 3, 5, 5, 5}), (Parents{0, 1, 2, 0, 4, 5, 6, 7}));
}

TEST(ControlDependence, BottomFrameIsNeverReturnedFrom) {
    // 0 -> 1 ret -> a block at pc 0 (the bottom frame has no return address):
    // no frame matches, so it is an edge 1 -> 2 beside 1 -> EXIT, and 2 is
    // control dependent on the return.
    std::vector<BlockShape> blocks = layout("JRJ");
    blocks[2].pc = 0;
    EXPECT_EQ(parents_of(blocks, {0, 1, 2}), (Parents{0, 0, 2}));
}

TEST(ControlDependence, EmptyFlowAndBadBlockIds) {
    EXPECT_TRUE(dynamic_control_parents(layout("J"), nullptr, 0).empty());
    const std::vector<std::uint32_t> flow = {0, 1};
    EXPECT_THROW(dynamic_control_parents(layout("J"), flow.data(), flow.size()), std::invalid_argument);
}

}  // namespace
