// The latest writer of a register slot before a timestamp (register_writers.hpp).

#include "register_writers.hpp"

#include <algorithm>

namespace tcgen::wet {

RegisterWriters::RegisterWriters(const RawDataflow& dataflow)
    : first_block_(max_register_slot + 2, 0), slots_(max_register_slot + 1) {
    const std::size_t block_count = dataflow.first_write.size() - 1;
    for (const RawWrite& write : dataflow.writes) {
        ++first_block_[write.slot + 1];
    }
    for (std::size_t slot = 0; slot <= max_register_slot; ++slot) {
        first_block_[slot + 1] += first_block_[slot];
    }
    blocks_.resize(dataflow.writes.size());
    std::vector<std::uint32_t> fill(first_block_.begin(), first_block_.end() - 1);
    for (std::size_t block = 0; block < block_count; ++block) {
        for (std::uint32_t at = dataflow.first_write[block]; at < dataflow.first_write[block + 1]; ++at) {
            blocks_[fill[dataflow.writes[at].slot]++] = static_cast<std::uint32_t>(block);
        }
    }
}

RegisterWriters::Slot& RegisterWriters::slot_state(const RawDataflow& dataflow, std::uint32_t slot, FlowIndex& flow) {
    Slot& state = slots_[slot];
    if (!state.ready) {
        state.ready = true;
        state.written_by.assign(dataflow.first_write.size() - 1, false);
        state.written_in.assign(flow.segment_count(), false);
        for (std::uint32_t at = first_block_[slot]; at < first_block_[slot + 1]; ++at) {
            state.written_by[blocks_[at]] = true;
            for (const std::uint32_t segment : flow.segments_of(blocks_[at])) {
                state.written_in[segment] = true;
            }
        }
    }
    return state;
}

std::uint32_t RegisterWriters::writer_op(const RawDataflow& dataflow, std::uint32_t block, std::uint32_t slot) {
    const RawWrite* begin = dataflow.writes.data() + dataflow.first_write[block];
    const RawWrite* end = dataflow.writes.data() + dataflow.first_write[block + 1];
    return std::lower_bound(begin, end, slot,
                            [](const RawWrite& write, std::uint32_t value) { return write.slot < value; })
        ->op;
}

std::optional<RegisterWriters::Writer> RegisterWriters::latest_before(const RawDataflow& dataflow, std::uint32_t slot,
                                                                      std::uint32_t t, FlowIndex& flow) {
    Slot& state = slot_state(dataflow, slot, flow);
    if (!(state.found < t && t <= state.asked)) {
        state.found = 0;
        state.asked = t;
        const std::uint64_t records = flow.segment_records();
        // Positions (t - 1 for timestamp t) below t - 1, latest first.
        for (std::uint64_t end = t - 1; end > 0 && state.found == 0;) {
            const auto segment = static_cast<std::uint32_t>((end - 1) / records);
            if (state.written_in[segment]) {
                const std::vector<std::uint32_t>& blocks = flow.blocks_of_segment(segment);
                const std::uint64_t first = std::uint64_t{segment} * records;
                const std::uint64_t stop = std::min<std::uint64_t>(end - first, blocks.size());
                for (std::uint64_t local = stop; local-- > 0;) {
                    if (state.written_by[blocks[static_cast<std::size_t>(local)]]) {
                        state.found = static_cast<std::uint32_t>(first + local + 1);
                        state.op = writer_op(dataflow, blocks[static_cast<std::size_t>(local)], slot);
                        break;
                    }
                }
            }
            end = std::uint64_t{segment} * records;
        }
    }
    if (state.found == 0) {
        return std::nullopt;
    }
    return Writer{state.found, state.op};
}

std::size_t RegisterWriters::memory_bytes() const {
    std::size_t bytes =
        sizeof(*this) + (first_block_.capacity() + blocks_.capacity()) * 4 + slots_.capacity() * sizeof(Slot);
    for (const Slot& state : slots_) {
        bytes += (state.written_by.capacity() + state.written_in.capacity()) / 8;
    }
    return bytes;
}

}  // namespace tcgen::wet
