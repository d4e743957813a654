#pragma once
// A control flow walked in passes, as the build reads it (the blocks
// executed at t = 1, 2, ... in order, a piece at a time, from memory or
// from PREFIX.flow): flow(piece) calls piece(blocks, count) for every piece
// in order, each time it is called.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace tcgen::wet {

using FlowPiece = std::function<void(const std::uint32_t* blocks, std::size_t count)>;
using FlowPass = std::function<void(const FlowPiece& piece)>;

// The flow flow[0 .. count - 1], held by the caller, as one piece.
inline FlowPass flow_pass(const std::uint32_t* flow, std::size_t count) {
    return [flow, count](const FlowPiece& piece) {
        if (count != 0) {
            piece(flow, count);
        }
    };
}

// block(t, block) for every timestamp t of `flow`, in order.
template <class Block>
void each_block(const FlowPass& flow, const Block& block) {
    std::uint64_t t = 0;
    flow([&](const std::uint32_t* blocks, std::size_t count) {
        for (std::size_t index = 0; index < count; ++index) {
            block(++t, blocks[index]);
        }
    });
}

}  // namespace tcgen::wet
