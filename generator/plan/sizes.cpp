#include "generator/plan/sizes.hpp"

#include <algorithm>

namespace tcgen {

std::uint64_t records_per_block(unsigned record_bytes) {
    constexpr std::uint64_t block_target_bytes = std::uint64_t{4} << 20;
    return std::max<std::uint64_t>(1, block_target_bytes / record_bytes);
}

MemoryEstimate estimate_memory(const CodePlan& plan) {
    MemoryEstimate estimate;
    estimate.tables = plan.table_bytes();
    // One block of records, its code streams (a byte per field and record),
    // miss streams of at most the block's size, the compressed output of
    // about the same size, and bzip2 -9's own working memory (~7.6 MB).
    constexpr std::uint64_t bzip2_state_bytes = std::uint64_t{8} << 20;
    std::uint64_t block_bytes = plan.records_per_block * plan.record_bytes;
    estimate.buffers =
        3 * block_bytes + plan.records_per_block * plan.fields.size() + plan.header_bytes + bzip2_state_bytes;
    return estimate;
}

}  // namespace tcgen
