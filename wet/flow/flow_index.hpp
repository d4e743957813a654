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
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tcgen/wet.hpp>

#include "wet/flow/flow_stream.hpp"

namespace tcgen::wet {

class FlowIndex {
public:
    using Corrupt = std::function<void(const std::string&)>;  // throws

    // What one walk of the flow finds: per block, its count and the
    // segments it runs in. It never changes, so one table serves every
    // thread's index of one flow.
    struct Table;
    // One walk of `flow`; `corrupt` is called (and throws) when a block
    // runs another number of times than `counts` says or is out of range.
    // `segment_records`: a multiple of the flow's frame (otherwise one frame).
    static std::shared_ptr<const Table> walk(const FlowStream& flow, const std::vector<std::uint32_t>& counts,
                                             const Corrupt& corrupt, std::uint64_t segment_records = 0);
    // An index over `table` with a cache of decoded segments of its own (a
    // thread's). `flow` (only read: its const walks) must outlive the
    // index and stay in place.
    FlowIndex(const FlowStream& flow, std::shared_ptr<const Table> table, const Corrupt& corrupt);
    FlowIndex(const FlowStream& flow, const std::vector<std::uint32_t>& counts, const Corrupt& corrupt,
              std::uint64_t segment_records = 0)
        : FlowIndex(flow, walk(flow, counts, corrupt, segment_records), corrupt) {}
    const std::shared_ptr<const Table>& table() const { return table_; }

    std::uint64_t count(std::uint32_t block) const { return counts_[block]; }
    // Executions of `block` at timestamps below t (t in 1..executed + 1).
    std::uint64_t count_below(std::uint32_t block, std::uint64_t t);
    // The index of t among `block`'s executions; nullopt: it did not run at t.
    std::optional<std::uint64_t> find(std::uint32_t block, std::uint64_t t);
    // The timestamp of `block`'s execution number `index` (< its count).
    std::uint32_t at(std::uint32_t block, std::uint64_t index);
    // Every timestamp of `block`, in order: a decode of each segment it runs in.
    std::vector<std::uint32_t> times(std::uint32_t block);
    // Whether a lookup at t finds its segment decoded already (a decode is
    // a walk of the segment: the held copy of the blocks' timestamps,
    // block_times.hpp, answers faster); at(block, index) when its segment
    // is decoded already, else nullopt.
    bool holds_time(std::uint64_t t) const;
    std::optional<std::uint32_t> held_at(std::uint32_t block, std::uint64_t index);

    // Segment by segment: the block executed at t (1..the flow's size) and
    // which of its executions that is, the segments, and the blocks of one
    // in execution order (valid until the next lookup), and the segments a
    // block runs in.
    std::uint32_t block_at(std::uint64_t t);
    struct Execution {
        std::uint32_t block;
        std::uint64_t index;  // among the block's executions
    };
    Execution execution_at(std::uint64_t t);
    std::uint64_t segment_records() const { return segment_records_; }
    std::uint32_t segment_count() const {
        return static_cast<std::uint32_t>((flow_.size() + segment_records_ - 1) / segment_records_);
    }
    const std::vector<std::uint32_t>& blocks_of_segment(std::uint32_t number) { return segment(number).blocks; }
    std::vector<std::uint32_t> segments_of(std::uint32_t block) const;

    std::size_t memory_bytes() const;

private:
    struct Entry {
        std::uint32_t segment;
        std::uint32_t before;  // the block's executions in earlier segments
    };
    // A decoded segment: its blocks by position (t - 1 - start); once a
    // lookup by position needs them, per position the block's executions
    // before it in the segment; once a lookup by block needs them, its
    // positions grouped by block, each group increasing; groups[i] =
    // (block, first position index).
    struct Segment {
        std::uint32_t number = 0;
        std::vector<std::uint32_t> blocks;
        std::vector<std::uint32_t> ranks;  // empty until ranked
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
    Segment& segment(std::uint32_t number);
    // The segment holding t and t's position in it (checked: t in the flow).
    std::pair<Segment*, std::size_t> segment_at(std::uint64_t t);
    const Segment& grouped_segment(std::uint32_t number);
    // `block`'s first entry of segment `number` or later (entries_end: none);
    // entry_in: its entry of segment `number`, which it runs in.
    const Entry* first_entry_from(std::uint32_t block, std::uint64_t number) const;
    const Entry& entry_in(std::uint32_t block, std::uint32_t number) const;
    // The entry of `block`'s segment holding its execution number `index` (< its count).
    const Entry& entry_of_execution(std::uint32_t block, std::uint64_t index) const;
    std::uint32_t at(std::uint32_t block, std::uint64_t index, const Entry& entry);
    bool holds(std::uint32_t number) const;

public:
    struct Table {
        std::vector<std::uint32_t> counts;
        std::uint64_t segment_records = 1;
        std::vector<std::size_t> first;  // per block, its entries' start (CSR)
        std::vector<Entry> entries;
    };

private:
    const FlowStream& flow_;
    std::shared_ptr<const Table> table_;
    // The table's parts, by the names the lookups use.
    const std::vector<std::uint32_t>& counts_ = table_->counts;
    Corrupt corrupt_;
    const std::uint64_t segment_records_ = table_->segment_records;
    const std::vector<std::size_t>& first_ = table_->first;
    const std::vector<Entry>& entries_ = table_->entries;
    std::list<Segment> cache_;  // most recently used first
    // A slice reads the segments it walks back through and, for a register
    // read, the segment of its latest write, which may lie far back.
    static constexpr std::size_t cached_segments = 16;
    std::vector<std::uint32_t> group_of_;  // per block, its group while a segment is grouped; else UINT32_MAX
    std::vector<std::uint32_t> ran_;       // per block, its executions so far while a segment is ranked; else 0
};

}  // namespace tcgen::wet
