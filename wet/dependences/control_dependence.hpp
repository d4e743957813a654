#pragma once
// Dynamic control dependence of a Whole Execution Trace (Zhang and Gupta,
// "Whole Execution Traces and their applications", 2005, section 2): for each
// executed block, the timestamp of the executed branch that decided it ran.
//
// The input is the trace's control flow alone: the static blocks (their start
// pc, size in bytes and how they end) and the block executed at each
// timestamp t = 1..executed. No static CFG is needed: the CFG of every
// function is recovered from the flow itself.
//
// Vocabulary
// - frame: one activation on a shadow call stack rebuilt from the flow. At
//   t = 1 there is one frame, the bottom one (entry flow[0], call site 0).
//   After a block ending in a call ('C') executed at t-1, a frame is pushed:
//   its entry is the block at t, its return address the call block's
//   pc + bytes, its call site t-1. After a block ending in a return ('R'),
//   the stack is searched from the top down (the bottom frame excluded) for
//   the first frame whose return address is the next block's pc; that frame
//   and every frame above it are popped and the next block runs in the
//   caller, reached by the edge call block -> next block. A return that
//   matches no frame (longjmp, a `ret` used as a jump) is an ordinary edge
//   in the current frame.
// - function: the entry block id of a frame. All frames with the same entry
//   share one CFG, whose nodes are the blocks executed in those frames and
//   whose edges are the consecutive pairs of blocks seen in them (a call
//   block's successor being the block after the return, not the callee).
// - EXIT: a virtual node of every function's CFG. Edges to it leave every
//   node whose block ends in 'R', every node with no successor, and then
//   every node that still cannot reach EXIT (an infinite loop region).
// - control dependence: Ferrante, Ottenstein and Warren's, on each function's
//   post-dominator tree: Y is control dependent on X iff X has an edge to a
//   successor that Y post-dominates and Y does not strictly post-dominate X.
//   A loop's branch can thus control itself.
// - parent: the dynamic control parent of the block b executed at t in frame
//   F of function e is the latest t' < t at which F's activation itself (not
//   the frames it called) executed a block X on which b is control dependent
//   in e. If there is none, the parent is F's call site, so a callee's
//   uncontrolled blocks hang off the call; for the bottom frame it is 0.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "wet/flow/flow_pass.hpp"

namespace tcgen::wet {

// One static block as the tracer's PREFIX.blocks describes it.
struct BlockShape {
    std::uint64_t pc;     // address of its first instruction
    std::uint32_t bytes;  // code bytes: pc + bytes is the fall-through and return address
    char end;             // 'C' ends in a call, 'R' in a return, 'J' anything else
};

// parents[t-1] = the timestamp of the dynamic control parent of the block
// executed at t (1-based), 0 = none. flow[t-1] = block id, every id <
// blocks.size(); flow may be null when executed is 0. executed must be below
// 2^32 (timestamps are 32-bit). Throws std::invalid_argument when either
// precondition fails. Deterministic: the result depends on the input alone.
std::vector<std::uint32_t> dynamic_control_parents(const std::vector<BlockShape>& blocks, const std::uint32_t* flow,
                                                   std::size_t executed);

// The same over a flow walked twice in passes (of `executed` blocks), the
// parents handed out as they are found, never held: visit(t, flow[t-1],
// parents[t-1]) for t = 1 .. executed in order. A pass that differs from the
// first throws std::invalid_argument.
void each_control_parent(const std::vector<BlockShape>& blocks, const FlowPass& flow, std::size_t executed,
                         const std::function<void(std::uint32_t t, std::uint32_t block, std::uint32_t parent)>& visit);

}  // namespace tcgen::wet
