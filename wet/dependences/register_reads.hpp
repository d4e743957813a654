#pragma once
// RegisterReads: the register slots a backward slice waits for the writer
// of, and where the latest earlier write of one of them lies.
//
// A slice visits time backward. A slot read at the start of a block
// execution (a 'G' source) is wanted from the latest earlier block
// execution whose block writes it: the slice marks it wanted, and as it
// goes on back through the flow the first block execution writing a wanted
// slot takes it (its op writing the slot last becomes an item). One walk
// back through the flow serves every slot, however many items read them.
// The walk looks only at segments of the flow's index where some block
// writes a wanted slot, and at blocks through a mask of the slots each
// writes: a slot no block writes is never wanted.

#include <cstdint>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "wet/flow/flow_index.hpp"

namespace tcgen::wet {

class RegisterReads {
public:
    RegisterReads(const RawDataflow& dataflow, FlowIndex& flow);

    // Nothing wanted: a new slice.
    void clear();
    // A read of `slot` as a block execution found it.
    void want(std::uint32_t slot);
    bool any() const { return wanted_count_ != 0; }

    // The latest timestamp in [floor, from] (floor >= 1) whose block writes
    // a wanted slot; 0: none.
    std::uint32_t latest_write(std::uint32_t from, std::uint32_t floor, FlowIndex& flow);

    // The wanted slots `block` writes are no longer wanted; visit(op) for
    // each, with the op of the block writing it last. `dataflow` is the
    // constructor's.
    template <class Visit>
    void take_writes(const RawDataflow& dataflow, std::uint32_t block, const Visit& visit) {
        if (!writes_wanted(block)) {
            return;
        }
        for (std::uint32_t at = dataflow.first_write[block]; at < dataflow.first_write[block + 1]; ++at) {
            const std::uint32_t dense = dense_of_slot_[dataflow.writes[at].slot];
            std::uint64_t& word = wanted_[dense / 64];
            const std::uint64_t bit = std::uint64_t{1} << (dense % 64);
            if ((word & bit) != 0) {
                word &= ~bit;
                --wanted_count_;
                visit(dataflow.writes[at].op);
            }
        }
    }

    std::size_t memory_bytes() const;

private:
    bool writes_wanted(std::uint32_t block) const {
        return intersects(block_masks_.data() + std::size_t{block} * words_);
    }
    bool intersects(const std::uint64_t* mask) const {
        for (std::size_t word = 0; word < words_; ++word) {
            if ((mask[word] & wanted_[word]) != 0) {
                return true;
            }
        }
        return false;
    }

    // The slots some block writes, numbered densely in slot order.
    static constexpr std::uint16_t unwritten = 0xFFFF;
    std::vector<std::uint16_t> dense_of_slot_;
    std::size_t words_ = 0;                     // of a mask: one bit per written slot
    std::vector<std::uint64_t> block_masks_;    // per block, the slots it writes
    std::vector<std::uint64_t> segment_masks_;  // per segment of the flow's index, the slots its blocks write
    std::vector<std::uint64_t> wanted_;
    std::uint32_t wanted_count_ = 0;
};

}  // namespace tcgen::wet
