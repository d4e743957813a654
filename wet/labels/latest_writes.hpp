#pragma once
// LatestWrites: address -> the timestamp of the latest write there, for
// the defs' inference, which walks a store node's executions keeping one
// per address it wrote. A store that writes a large region (a memset, an
// array filled) keeps millions: as an unordered_map (a node allocated an
// entry, about 40 bytes each) that map was the largest part of a cc1
// build's peak (43 of 189 MB of heap). Open addressing in two arrays,
// linear probing, at most half full: 12 bytes a slot, no allocation an
// entry. A timestamp of 0 marks an empty slot (timestamps start at 1).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace tcgen::wet {

class LatestWrites {
public:
    LatestWrites() { reset(least_slots); }

    // Every entry gone; a table grown for a large store is given back.
    void clear() {
        if (addresses_.size() > least_slots) {
            reset(least_slots);
        } else {
            std::fill(times_.begin(), times_.end(), 0);
            entries_ = 0;
        }
    }

    // `address` written at `t` (>= 1), later than any write there before.
    void write(std::uint64_t address, std::uint32_t t) {
        if (2 * (entries_ + 1) > addresses_.size()) {
            grow();
        }
        std::size_t slot = find(address);
        if (times_[slot] == 0) {
            addresses_[slot] = address;
            ++entries_;
        }
        times_[slot] = t;
    }

    // The timestamp of the latest write at `address`, if any.
    std::optional<std::uint32_t> latest(std::uint64_t address) const {
        const std::size_t slot = find(address);
        if (times_[slot] == 0) {
            return std::nullopt;
        }
        return times_[slot];
    }

private:
    static constexpr std::size_t least_slots = 64;

    // The slot of `address`, or the empty slot where it would go.
    std::size_t find(std::uint64_t address) const {
        const std::size_t mask = addresses_.size() - 1;
        // Addresses are often a stride apart: a multiplicative hash spreads them.
        std::size_t slot = static_cast<std::size_t>((address * std::uint64_t{0x9E3779B97F4A7C15}) >> 32) & mask;
        while (times_[slot] != 0 && addresses_[slot] != address) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }
    void reset(std::size_t slots) {
        addresses_.assign(slots, 0);
        addresses_.shrink_to_fit();
        times_.assign(slots, 0);
        times_.shrink_to_fit();
        entries_ = 0;
    }
    void grow() {
        std::vector<std::uint64_t> addresses = std::move(addresses_);
        std::vector<std::uint32_t> times = std::move(times_);
        reset(addresses.size() * 2);
        for (std::size_t slot = 0; slot < addresses.size(); ++slot) {
            if (times[slot] != 0) {
                const std::size_t to = find(addresses[slot]);
                addresses_[to] = addresses[slot];
                times_[to] = times[slot];
                ++entries_;
            }
        }
    }

    std::vector<std::uint64_t> addresses_;
    std::vector<std::uint32_t> times_;  // 0: the slot is empty
    std::size_t entries_ = 0;
};

}  // namespace tcgen::wet
