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
//
// The masks are the trace's and never change; what a slice waits for is
// its own (Wanted), so that several slices can walk at once.

#include <cstdint>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "wet/flow/flow_index.hpp"

namespace tcgen::wet {

class RegisterReads {
public:
    RegisterReads(const RawDataflow& dataflow, FlowIndex& flow);

    // The slots one slice waits for the writer of.
    class Wanted {
    public:
        bool any() const { return count_ != 0; }

    private:
        friend class RegisterReads;
        std::vector<std::uint64_t> words_;  // one bit per written slot
        std::uint32_t count_ = 0;
    };
    // Nothing wanted: a new slice's.
    Wanted nothing_wanted() const;
    // A read of `slot` as a block execution found it.
    void want(Wanted& wanted, std::uint32_t slot) const;

    // The latest timestamp in [floor, from] (floor >= 1) whose block writes
    // a slot of `wanted`; 0: none.
    std::uint32_t latest_write(const Wanted& wanted, std::uint32_t from, std::uint32_t floor, FlowIndex& flow) const;

    // The wanted slots `block` writes are no longer wanted; visit(op) for
    // each, with the op of the block writing it last. `dataflow` is the
    // constructor's.
    template <class Visit>
    void take_writes(Wanted& wanted, const RawDataflow& dataflow, std::uint32_t block, const Visit& visit) const {
        if (!writes_wanted(wanted, block)) {
            return;
        }
        for (std::uint32_t at = dataflow.first_write[block]; at < dataflow.first_write[block + 1]; ++at) {
            const std::uint32_t dense = dense_of_slot_[dataflow.writes[at].slot];
            std::uint64_t& word = wanted.words_[dense / 64];
            const std::uint64_t bit = std::uint64_t{1} << (dense % 64);
            if ((word & bit) != 0) {
                word &= ~bit;
                --wanted.count_;
                visit(dataflow.writes[at].op);
            }
        }
    }

    std::size_t memory_bytes() const;

private:
    bool writes_wanted(const Wanted& wanted, std::uint32_t block) const {
        return intersects(wanted, block_masks_.data() + std::size_t{block} * words_);
    }
    bool intersects(const Wanted& wanted, const std::uint64_t* mask) const {
        for (std::size_t word = 0; word < words_; ++word) {
            if ((mask[word] & wanted.words_[word]) != 0) {
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
};

}  // namespace tcgen::wet
