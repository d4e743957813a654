#pragma once
// BlockTimes: every block's timestamps, derived from the control flow and
// held for lookups anywhere in the run: per block its timestamps as
// differences (LEB128, 1-2 bytes each for a block that runs often), with
// the timestamp and byte offset of every 64th execution, so a lookup
// decodes at most 64 differences.
//
// Derived by two walks of the control flow, the first sizing each block's
// differences and the second writing them in place: nothing is held but the
// result and a few words a block. (The flow grouped by a counting sort first
// held 8 bytes a timestamp at its peak, 2 GB on a billion-instruction run,
// and took twice the time in its copies and fresh pages.) Compressing them
// as labels, as the WET's streams are, took seconds on the corpus's runs
// (cc1: about 5 s) and saved memory only while they were held.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

namespace tcgen::wet {

class BlockTimes {
public:
    BlockTimes() = default;

    // Every block's timestamps from the executions walk(visit) visits, as
    // visit(block, t) with t increasing and every block below `blocks`; it
    // is called twice and must visit the same executions both times.
    template <class Walk>
    static BlockTimes of_walks(std::size_t blocks, const Walk& walk) {
        BlockTimes times(blocks);
        walk([&times](std::uint32_t block, std::uint32_t t) { times.size_next(block, t); });
        times.place();
        walk([&times](std::uint32_t block, std::uint32_t t) { times.write_next(block, t); });
        times.finish();
        return times;
    }

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

    explicit BlockTimes(std::size_t blocks)
        : counts_(blocks, 0), first_sample_(blocks + 1, 0), first_byte_(blocks + 1, 0), last_(blocks, 0) {}
    // The first walk: each execution counted, and its difference's bytes
    // added to first_byte_[block + 1].
    void size_next(std::uint32_t block, std::uint32_t t) {
        if (counts_[block]++ % sample_every != 0) {
            first_byte_[block + 1] += varint_bytes(t - last_[block]);
        }
        last_[block] = t;
    }
    // Between the walks: each block's first sample and byte, the arrays made.
    void place();
    // The second walk: each execution a sample or its difference, in place.
    void write_next(std::uint32_t block, std::uint32_t t) {
        const std::uint32_t index = written_[block]++;
        if (index >= counts_[block]) {
            throw std::logic_error("block times: the second walk visits more than the first");
        }
        if (index % sample_every == 0) {
            samples_[first_sample_[block] + index / sample_every] =
                Sample{t, static_cast<std::uint32_t>(next_byte_[block] - first_byte_[block])};
        } else {
            for (std::uint32_t value = t - last_[block];; value >>= 7) {
                if (value < 0x80) {
                    bytes_[next_byte_[block]++] = static_cast<std::uint8_t>(value);
                    break;
                }
                bytes_[next_byte_[block]++] = static_cast<std::uint8_t>(value | 0x80);
            }
        }
        last_[block] = t;
    }
    // After the second walk: it visited what the first did; the walks'
    // state dropped.
    void finish();
    static std::size_t varint_bytes(std::uint32_t value) {
        std::size_t bytes = 1;
        for (; value >= 0x80; value >>= 7) {
            ++bytes;
        }
        return bytes;
    }

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
    // Only while the walks derive them: per block its latest timestamp, the
    // executions the second walk wrote and its next byte.
    std::vector<std::uint32_t> last_;
    std::vector<std::uint32_t> written_;
    std::vector<std::size_t> next_byte_;
};

}  // namespace tcgen::wet
