#pragma once
// A branch trace's records (tcgen-tracer --branches: "BRA1", then u64 pc,
// u64 target, u8 taken a branch) as outcome ids: each distinct record an id,
// numbered in order of first appearance, and the table of outcomes that
// gives each id's record back. tcgen-branch-ids split and `wpp build` of a
// branch trace number them alike (docs/branch-ids.md, docs/wpp.md).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tcgen {

inline constexpr char branch_trace_magic[4] = {'B', 'R', 'A', '1'};
inline constexpr std::size_t branch_record_bytes = 17;  // u64 pc, u64 target, u8 taken

class BranchOutcomes {
public:
    // Ids are 32-bit: at most `max_outcomes` distinct records.
    explicit BranchOutcomes(std::uint64_t max_outcomes = std::uint64_t{1} << 32) : max_outcomes_(max_outcomes) {}

    // The id of `record` (branch_record_bytes bytes), numbered now if it is
    // new; none when it is new and the ids are all taken.
    std::optional<std::uint32_t> id(const std::uint8_t* record) {
        key_.assign(reinterpret_cast<const char*>(record), branch_record_bytes);
        const auto found = ids_.find(key_);
        if (found != ids_.end()) {
            return found->second;
        }
        if (ids_.size() == max_outcomes_) {
            return std::nullopt;
        }
        const auto id = static_cast<std::uint32_t>(ids_.size());
        ids_.emplace(key_, id);
        table_.insert(table_.end(), record, record + branch_record_bytes);
        return id;
    }

    std::uint64_t count() const { return ids_.size(); }
    // The records of ids 0, 1, ... side by side.
    const std::vector<std::uint8_t>& table() const { return table_; }

private:
    struct Hash {
        std::size_t operator()(const std::string& record) const noexcept {
            // pc and target as read; the taken byte folded in.
            std::uint64_t pc = 0;
            std::uint64_t target = 0;
            std::memcpy(&pc, record.data(), 8);
            std::memcpy(&target, record.data() + 8, 8);
            const std::uint64_t mixed = (pc * 0x9E3779B97F4A7C15ull) ^
                                        (target + 0x632BE59BD9B4E019ull + (pc << 6)) ^
                                        static_cast<std::uint8_t>(record[16]);
            return static_cast<std::size_t>(mixed ^ (mixed >> 29));
        }
    };

    std::uint64_t max_outcomes_;
    std::unordered_map<std::string, std::uint32_t, Hash> ids_;
    std::vector<std::uint8_t> table_;
    std::string key_;
};

}  // namespace tcgen
