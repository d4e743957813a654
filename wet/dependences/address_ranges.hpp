#pragma once
// AddressRanges: the lowest and highest address of each chunk of a store's
// executions (4096 of them), for the walk back through a store too large
// for the budget of address indexes (LabelStore::inferred_def): a chunk none
// of whose addresses could cover the load's byte is passed without reading
// its addresses, where the walk used to step through every execution back
// to the def (millions of them on a long run, each chunk crossed decoding a
// frame). 16 bytes a chunk: about 4 KB for 1 M executions.
//
// Made by one pass over the store's addresses in execution order (add),
// then asked (latest_covering) with a function that reads the address of
// any execution.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "wet/labels/def_encoding.hpp"

namespace tcgen::wet {

class AddressRanges {
public:
    static constexpr std::uint64_t chunk_executions = 4096;

    // The next execution's address.
    void add(std::uint64_t address) {
        if (count_ % chunk_executions == 0) {
            ranges_.emplace_back(address, address);
        } else {
            ranges_.back().first = std::min(ranges_.back().first, address);
            ranges_.back().second = std::max(ranges_.back().second, address);
        }
        ++count_;
    }

    std::uint64_t size() const { return count_; }
    std::size_t memory_bytes() const { return ranges_.capacity() * sizeof(ranges_[0]); }

    // The latest execution in [floor, before) (before <= size()) whose
    // address covers `address` for a store of `size` bytes
    // (def_encoding::covers), read by address_of(execution) only in the
    // chunks whose range could hold such an address; none if none does.
    template <class AddressOf>
    std::optional<std::uint64_t> latest_covering(std::uint64_t before, std::uint64_t floor, std::uint64_t address,
                                                 std::uint64_t size, const AddressOf& address_of) const {
        for (std::uint64_t end = before; end > floor;) {
            const std::uint64_t chunk = (end - 1) / chunk_executions;
            const std::uint64_t begin = std::max(chunk * chunk_executions, floor);
            if (may_cover(ranges_[static_cast<std::size_t>(chunk)], address, size)) {
                for (std::uint64_t execution = end; execution > begin; --execution) {
                    if (def_encoding::covers(address_of(execution - 1), size, address)) {
                        return execution - 1;
                    }
                }
            }
            end = begin;
        }
        return std::nullopt;
    }

private:
    // Whether some start address in [lowest, highest] covers `address`:
    // one in (address - size, address].
    static bool may_cover(const std::pair<std::uint64_t, std::uint64_t>& range, std::uint64_t address,
                          std::uint64_t size) {
        return range.first <= address && (range.second >= address || address - range.second < size);
    }

    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;  // lowest, highest: each chunk's
    std::uint64_t count_ = 0;
};

}  // namespace tcgen::wet
