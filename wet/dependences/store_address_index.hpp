#pragma once
// StoreAddressIndex: one store node's executions ordered by address, to find
// the latest execution below a bound that wrote a given byte in a few binary
// searches. A load's def is inferred from its store node's addresses
// (LabelStore::def_at); most defs are among the store's last few executions
// before the load and are found by walking back, but some lie hundreds of
// thousands of executions back (a buffer written once and read much later),
// and those use this index.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace tcgen::wet {

class StoreAddressIndex {
public:
    // addresses[j], times[j], values[j]: the address execution j wrote, its
    // timestamp and its value (fewer than 2^32 executions: a node runs at
    // most once per timestamp). The timestamps and values are kept because a
    // def found far back would otherwise be a long seek in the store's labels;
    // `times` is empty for a store that runs with its block (the flow's
    // index answers those).
    StoreAddressIndex(std::vector<std::uint64_t> addresses, std::vector<std::uint32_t> times,
                      std::vector<std::uint64_t> values)
        : addresses_(std::move(addresses)), times_(std::move(times)), values_(std::move(values)) {
        by_address_.resize(addresses_.size());
        for (std::uint32_t execution = 0; execution < by_address_.size(); ++execution) {
            by_address_[execution] = execution;
        }
        std::stable_sort(by_address_.begin(), by_address_.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return addresses_[a] < addresses_[b]; });
    }

    // The bytes one index of `executions` executions takes.
    static std::size_t bytes_for(std::uint64_t executions, bool with_times) {
        return executions * (with_times ? 24 : 20);
    }
    std::size_t memory_bytes() const { return bytes_for(addresses_.size(), !times_.empty()); }

    // The timestamp, the address and the value of execution j (< the
    // executions); the timestamps and counts only when the index has times.
    struct Access {
        std::uint64_t address;
        std::uint64_t value;
    };
    bool has_times() const { return !times_.empty() || addresses_.empty(); }
    std::uint32_t time(std::uint32_t execution) const { return times_[execution]; }
    // How many executions ran before t.
    std::uint64_t count_below(std::uint64_t t) const {
        return static_cast<std::uint64_t>(std::lower_bound(times_.begin(), times_.end(), t) - times_.begin());
    }
    Access access(std::uint32_t execution) const { return {addresses_[execution], values_[execution]}; }

    // The latest execution below `below` whose `size` bytes cover `address`:
    // per start address from address - size + 1 to address that occurs
    // (most often one), the latest of its executions below `below`.
    std::optional<std::uint32_t> latest_covering(std::uint64_t address, std::uint16_t size,
                                                 std::uint64_t below) const {
        std::optional<std::uint32_t> latest;
        if (size == 0) {
            return latest;
        }
        const std::uint64_t lowest = address >= size - 1u ? address - (size - 1u) : 0;
        auto first = std::lower_bound(by_address_.begin(), by_address_.end(), lowest,
                                      [&](std::uint32_t e, std::uint64_t a) { return addresses_[e] < a; });
        while (first != by_address_.end() && addresses_[*first] <= address) {
            // This start's executions, in increasing order (a stable sort).
            const std::uint64_t start = addresses_[*first];
            const auto last = std::upper_bound(first, by_address_.end(), start,
                                               [&](std::uint64_t a, std::uint32_t e) { return a < addresses_[e]; });
            const auto after = std::lower_bound(first, last, below,
                                                [](std::uint32_t e, std::uint64_t bound) { return e < bound; });
            if (after != first && (!latest || *(after - 1) > *latest)) {
                latest = *(after - 1);
            }
            first = last;
        }
        return latest;
    }

private:
    std::vector<std::uint64_t> addresses_;    // by execution
    std::vector<std::uint32_t> times_;        // by execution, or empty
    std::vector<std::uint64_t> values_;      // by execution
    std::vector<std::uint32_t> by_address_;  // executions ordered by (address, execution)
};

}  // namespace tcgen::wet
