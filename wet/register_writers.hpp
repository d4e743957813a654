#pragma once
// RegisterWriters: which execution last wrote a register slot before a
// timestamp — the def of a register read, found from the control flow and
// the blocks' register writes (RawDataflow), nothing stored per execution.
//
// A lookup walks the flow back from t - 1 to the first block execution
// whose block writes the slot, a segment of the flow's index at a time
// (flow_index.hpp), skipping every segment in which no block that writes
// the slot runs. Most slots are written every few blocks; one written once
// at the start costs one segment's walk and a skip over the rest. The last
// answer per slot is kept: a slice asks for the same writer from the many
// timestamps it covers, latest first.

#include <cstdint>
#include <optional>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "flow_index.hpp"

namespace tcgen::wet {

class RegisterWriters {
public:
    explicit RegisterWriters(const RawDataflow& dataflow);

    struct Writer {
        std::uint32_t t = 0;   // the block execution
        std::uint32_t op = 0;  // the op of its block that wrote the slot last
    };
    // The latest write of `slot` at a timestamp below t; nullopt: none.
    // `dataflow` is the constructor's.
    std::optional<Writer> latest_before(const RawDataflow& dataflow, std::uint32_t slot, std::uint32_t t,
                                        FlowIndex& flow);

    std::size_t memory_bytes() const;

private:
    // Made on a slot's first lookup.
    struct Slot {
        bool ready = false;
        std::vector<bool> written_by;  // per block
        std::vector<bool> written_in;  // per segment of the flow
        // The last answer: a writer at `found` (0: none) for every t in (found, asked].
        std::uint32_t found = 0;
        std::uint32_t asked = 0;
        std::uint32_t op = 0;
    };
    Slot& slot_state(const RawDataflow& dataflow, std::uint32_t slot, FlowIndex& flow);
    static std::uint32_t writer_op(const RawDataflow& dataflow, std::uint32_t block, std::uint32_t slot);

    // Per slot, the blocks that write it (CSR over slots).
    std::vector<std::uint32_t> first_block_;
    std::vector<std::uint32_t> blocks_;
    std::vector<Slot> slots_;
};

}  // namespace tcgen::wet
