#include "generator/plan/sizes.hpp"

#include <algorithm>

#include "runtime/format_limits.hpp"

namespace tcgen {

std::uint64_t records_per_block(unsigned record_bytes) {
    return std::max<std::uint64_t>(1, tcgen_runtime::tcz_default_block_bytes / record_bytes);
}

MemoryEstimate estimate_memory(const CodePlan& plan) {
    MemoryEstimate estimate;
    estimate.tables = plan.table_bytes();
    // One block of records, its code streams (a byte per field and record),
    // miss streams of at most the block's size, the compressed output of
    // about the same size, and the back-end at work on one stream: bzip2 -9
    // takes ~7.6 MB, LZMA's encoder (preset 6, binary-tree match finder)
    // about 12 bytes per byte of its dictionary, which is the stream's size
    // rounded up to a power of two (runtime/lzma_codec.hpp), here the block's.
    constexpr std::uint64_t bzip2_state_bytes = std::uint64_t{8} << 20;
    const std::uint64_t block_bytes = plan.records_per_block * plan.record_bytes;
    const std::uint64_t lzma_bytes = 12 * std::uint64_t{tcgen_runtime::lzma_dictionary_bytes(block_bytes)};
    const std::uint64_t backend_bytes = std::max(bzip2_state_bytes, lzma_bytes);
    estimate.buffers =
        3 * block_bytes + plan.records_per_block * plan.fields.size() + plan.header_bytes + backend_bytes;
    return estimate;
}

}  // namespace tcgen
