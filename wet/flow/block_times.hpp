#pragma once
// BlockTimes: every block's timestamps, derived from the control flow and
// held for lookups anywhere in the run: per block its timestamps as
// differences (LEB128, 1-2 bytes each for a block that runs often), with
// the timestamp and byte offset of every 64th execution, so a lookup
// decodes at most 64 differences.
//
// Derived by one counting sort of the flow and one pass of encoding,
// about as fast as the flow decodes. Compressing them as labels, as the
// WET's streams are, took seconds on the corpus's runs (cc1: about 5 s)
// and saved memory only while they were held.

#include <cstdint>
#include <optional>
#include <vector>

namespace tcgen::wet {

// Block executions grouped per block: block b's timestamps, increasing, are
// order[first[b]] .. order[first[b+1] - 1] (a counting sort of the flow).
struct BlockExecutions {
    std::vector<std::size_t> first;
    std::vector<std::uint32_t> order;
    std::vector<std::uint32_t> times(std::size_t block) const;
};
// flow[i] is the block at t = i + 1; every id below `blocks`.
BlockExecutions group_by_block(const std::uint32_t* flow, std::size_t executed, std::size_t blocks);

class BlockTimes {
public:
    BlockTimes() = default;
    explicit BlockTimes(const BlockExecutions& executions);

    std::uint64_t count(std::uint32_t block) const { return counts_[block]; }
    // How many of `block`'s executions ran below t.
    std::uint64_t count_below(std::uint32_t block, std::uint64_t t) const;
    // The timestamp of `block`'s execution number `index` (< its count).
    std::uint32_t at(std::uint32_t block, std::uint64_t index) const;
    // The index of t among `block`'s executions; nullopt: it did not run at t.
    std::optional<std::uint64_t> find(std::uint32_t block, std::uint64_t t) const;
    std::vector<std::uint32_t> times(std::uint32_t block) const;

    std::size_t memory_bytes() const;

private:
    static constexpr std::uint32_t sample_every = 64;
    struct Sample {
        std::uint32_t t;       // of execution number sample_every * k
        // Of the difference after it, from the block's first byte: below
        // 2^32, as a block's n differences take at most n + (their sum -
        // n) / 127 bytes (a byte more per 127 more timestamps) and their
        // sum is below 2^32.
        std::uint32_t offset;
    };
    // Block b's samples are samples_[first_sample_[b] ..], its differences
    // bytes_[first_byte_[b] ..]: execution j's timestamp is the sample's
    // plus the differences of the executions after the sample up to j.
    std::vector<std::uint32_t> counts_;
    std::vector<std::size_t> first_sample_;
    std::vector<std::size_t> first_byte_;
    std::vector<Sample> samples_;
    std::vector<std::uint8_t> bytes_;
};

}  // namespace tcgen::wet
