// The register slots a slice waits for the writer of (register_reads.hpp).

#include "wet/dependences/register_reads.hpp"

#include <algorithm>

namespace tcgen::wet {

RegisterReads::RegisterReads(const RawDataflow& dataflow, FlowIndex& flow)
    : dense_of_slot_(max_register_slot + 1, unwritten) {
    for (const RawWrite& write : dataflow.writes) {
        dense_of_slot_[write.slot] = 0;
    }
    std::uint16_t written = 0;
    for (std::uint16_t& dense : dense_of_slot_) {
        if (dense != unwritten) {
            dense = written++;
        }
    }
    words_ = (std::size_t{written} + 63) / 64;
    const std::size_t blocks = dataflow.first_write.size() - 1;
    block_masks_.assign(blocks * words_, 0);
    segment_masks_.assign(std::size_t{flow.segment_count()} * words_, 0);
    for (std::size_t block = 0; block < blocks; ++block) {
        std::uint64_t* mask = block_masks_.data() + block * words_;
        for (std::uint32_t at = dataflow.first_write[block]; at < dataflow.first_write[block + 1]; ++at) {
            const std::uint32_t dense = dense_of_slot_[dataflow.writes[at].slot];
            mask[dense / 64] |= std::uint64_t{1} << (dense % 64);
        }
        for (const std::uint32_t segment : flow.segments_of(static_cast<std::uint32_t>(block))) {
            for (std::size_t word = 0; word < words_; ++word) {
                segment_masks_[segment * words_ + word] |= mask[word];
            }
        }
    }
}

RegisterReads::Wanted RegisterReads::nothing_wanted() const {
    Wanted wanted;
    wanted.words_.assign(words_, 0);
    return wanted;
}

void RegisterReads::want(Wanted& wanted, std::uint32_t slot) const {
    const std::uint32_t dense = slot < dense_of_slot_.size() ? dense_of_slot_[slot] : unwritten;
    if (dense == unwritten) {
        return;  // no block writes it: no write to wait for
    }
    std::uint64_t& word = wanted.words_[dense / 64];
    const std::uint64_t bit = std::uint64_t{1} << (dense % 64);
    if ((word & bit) == 0) {
        word |= bit;
        ++wanted.count_;
    }
}

std::uint32_t RegisterReads::latest_write(const Wanted& wanted, std::uint32_t from, std::uint32_t floor,
                                          FlowIndex& flow) const {
    const std::uint64_t records = flow.segment_records();
    // Positions (t - 1 for timestamp t), latest first, a segment at a time.
    for (std::uint64_t end = from; end >= floor;) {
        const auto segment = static_cast<std::uint32_t>((end - 1) / records);
        const std::uint64_t first = std::uint64_t{segment} * records;
        if (intersects(wanted, segment_masks_.data() + std::size_t{segment} * words_)) {
            const std::vector<std::uint32_t>& blocks = flow.blocks_of_segment(segment);
            const std::uint64_t low = std::max<std::uint64_t>(first + 1, floor);
            for (std::uint64_t t = std::min<std::uint64_t>(end, first + blocks.size()); t >= low; --t) {
                if (writes_wanted(wanted, blocks[static_cast<std::size_t>(t - 1 - first)])) {
                    return static_cast<std::uint32_t>(t);
                }
            }
        }
        end = first;
    }
    return 0;
}

std::size_t RegisterReads::memory_bytes() const {
    return sizeof(*this) + dense_of_slot_.capacity() * 2 +
           (block_masks_.capacity() + segment_masks_.capacity()) * 8;
}

}  // namespace tcgen::wet
