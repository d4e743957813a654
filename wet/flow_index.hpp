#pragma once
// FlowIndex: the blocks' timestamps answered from the control flow one
// segment at a time, without deriving any block's timestamps whole.
//
// The flow is cut into segments of `segment_records` timestamps (a whole
// number of the flow's frames, so a segment is decoded from its own frames
// alone). The index keeps, per block, the segments it runs in
// and how many times it ran before each (one walk of the flow makes it,
// checking the blocks' counts). A lookup — the index of t among block b's
// executions, how many ran before t, b's k-th timestamp — finds b's segment
// by binary search and decodes that segment only (kept in a small cache:
// a slice walks back through time, so consecutive lookups share segments).
//
// Costs: the index is one pair of u32 per (segment, block that runs in it):
// on the corpus's 40 M-event runs at 65,536 timestamps a segment (one
// frame), 0.2 MB (bzip2) to 13 MB (cc1). A segment's decode is a walk of
// 65,536 records.

#include <cstdint>
#include <functional>
#include <list>
#include <optional>
#include <string>
#include <vector>

#include <tcgen/wet.hpp>

#include "flow_stream.hpp"

namespace tcgen::wet {

class FlowIndex {
public:
    using Corrupt = std::function<void(const std::string&)>;  // throws

    // One walk of `flow`; `corrupt` is called (and throws) when a block
    // runs another number of times than `counts` says or is out of range.
    // `flow` must outlive the index and stay in place. `segment_records`:
    // a multiple of the flow's frame (otherwise one frame).
    FlowIndex(const FlowStream& flow, const std::vector<std::uint32_t>& counts, const Corrupt& corrupt,
              std::uint64_t segment_records = 0);

    // Executions of `block` at timestamps below t (t in 1..executed + 1).
    std::uint64_t count_below(std::uint32_t block, std::uint64_t t);
    // The index of t among `block`'s executions; nullopt: it did not run at t.
    std::optional<std::uint64_t> find(std::uint32_t block, std::uint64_t t);
    // The timestamp of `block`'s execution number `index` (< its count).
    std::uint32_t at(std::uint32_t block, std::uint64_t index);

    std::size_t memory_bytes() const;

private:
    struct Entry {
        std::uint32_t segment;
        std::uint32_t before;  // the block's executions in earlier segments
    };
    // A decoded segment: its positions (t - 1 - start) grouped by block,
    // each group increasing; groups[i] = (block, first position index).
    struct Segment {
        std::uint32_t number = 0;
        std::vector<std::uint32_t> positions;
        std::vector<std::pair<std::uint32_t, std::uint32_t>> groups;  // sorted by block, then an end marker
    };
    // Entries of `block`, in segment order.
    const Entry* entries_begin(std::uint32_t block) const { return entries_.data() + first_[block]; }
    const Entry* entries_end(std::uint32_t block) const { return entries_.data() + first_[block + 1]; }
    // How many times `block` runs in the segment of its `entry`.
    std::uint64_t runs_in(std::uint32_t block, const Entry* entry) const {
        return (entry + 1 == entries_end(block) ? counts_[block] : (entry + 1)->before) - entry->before;
    }
    // `block`'s positions in segment `number`, which it runs in.
    std::pair<const std::uint32_t*, const std::uint32_t*> positions(std::uint32_t number, std::uint32_t block,
                                                                    std::uint64_t expected);
    const Segment& segment(std::uint32_t number);

    const FlowStream& flow_;
    std::vector<std::uint32_t> counts_;
    Corrupt corrupt_;
    std::uint64_t segment_records_;
    std::vector<std::size_t> first_;  // per block, its entries' start (CSR)
    std::vector<Entry> entries_;
    std::list<Segment> cache_;  // most recently used first
    static constexpr std::size_t cached_segments = 4;
};

}  // namespace tcgen::wet
