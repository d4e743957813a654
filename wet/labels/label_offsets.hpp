#pragma once
// LabelOffsets: where each owner's saved label starts in a PackedLabels
// buffer, in about 2.5 bytes an owner instead of 4 or 8.
//
// Owners come in groups of `group` with one 64-bit start per group; each
// owner keeps its 16-bit distance from its group's start. Most labels are a
// constant or a few records, so a group rarely spans 64 KiB; one that does
// (a long stream among them) keeps its owners' starts whole in `wide_`, and
// its group entry then says where (top bit set). Offsets are appended in
// increasing order, one per owner, as the labels are packed.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tcgen::wet {

class LabelOffsets {
public:
    static constexpr std::size_t group = 16;

    std::size_t size() const { return within_.size(); }

    // The next owner's start (>= the previous owner's).
    void push_back(std::uint64_t start) {
        const std::size_t owner = within_.size();
        if (owner % group == 0) {
            group_start_.push_back(start);
        }
        std::uint64_t& entry = group_start_.back();
        if ((entry & wide_flag) == 0 && start - entry > UINT16_MAX) {
            // This group's owners so far move to wide_, whole.
            const std::uint64_t first_wide = wide_.size();
            for (std::size_t earlier = owner - owner % group; earlier < owner; ++earlier) {
                wide_.push_back(entry + within_[earlier]);
            }
            entry = wide_flag | first_wide;
        }
        if ((entry & wide_flag) != 0) {
            wide_.push_back(start);
            within_.push_back(0);  // unused: keeps one entry per owner
        } else {
            within_.push_back(static_cast<std::uint16_t>(start - entry));
        }
    }

    std::uint64_t operator[](std::size_t owner) const {
        const std::uint64_t entry = group_start_[owner / group];
        if ((entry & wide_flag) != 0) {
            return wide_[(entry & ~wide_flag) + owner % group];
        }
        return entry + within_[owner];
    }

    void reserve(std::size_t owners) {
        within_.reserve(owners);
        group_start_.reserve((owners + group - 1) / group);
    }
    void shrink_to_fit() {
        within_.shrink_to_fit();
        group_start_.shrink_to_fit();
        wide_.shrink_to_fit();
    }
    std::size_t memory_bytes() const {
        return within_.capacity() * sizeof(within_[0]) + group_start_.capacity() * sizeof(group_start_[0]) +
               wide_.capacity() * sizeof(wide_[0]);
    }

private:
    static constexpr std::uint64_t wide_flag = std::uint64_t{1} << 63;

    std::vector<std::uint64_t> group_start_;  // per group: its first owner's start, or wide_flag | where in wide_
    std::vector<std::uint16_t> within_;       // per owner: its start - its group's
    std::vector<std::uint64_t> wide_;         // the starts of the owners of groups spanning 64 KiB or more
};

}  // namespace tcgen::wet
