#include "generator/plan/sizes.hpp"

#include <algorithm>

#include "runtime/backends.hpp"
#include "runtime/format_limits.hpp"

namespace tcgen {

std::uint64_t records_per_block(unsigned record_bytes, bool record_ids) {
    const std::uint64_t block_bytes =
        record_ids ? tcgen_runtime::tcz_ids_block_bytes : tcgen_runtime::tcz_default_block_bytes;
    return std::max<std::uint64_t>(1, block_bytes / record_bytes);
}

MemoryEstimate estimate_memory(const CodePlan& plan) {
    MemoryEstimate estimate;
    estimate.tables = plan.table_bytes();
    // One block of records, its code streams (a byte per field and record),
    // miss streams of at most the block's size, the compressed output of
    // about the same size, and the back-end at work on one stream, the
    // largest of those the default level tries (runtime/backends.hpp), on a
    // stream of the block's size. Where a block's whole-record choice is made
    // from each way's cost (runtime/record_runs.hpp), two more sets of code
    // and miss streams, and 2 bytes per record and stream.
    const std::uint64_t block_bytes = plan.records_per_block * plan.record_bytes;
    const std::uint64_t ids_bytes = plan.record_ids() ? plan.records_per_block * 4 : 0;
    const std::uint64_t backend_bytes =
        tcgen_runtime::level_encoder_bytes(tcgen_runtime::default_level, block_bytes, ids_bytes);
    const std::uint64_t streams_bytes = block_bytes + plan.records_per_block * plan.fields.size();
    const std::uint64_t choice_bytes = 2 * streams_bytes + 2 * plan.records_per_block * plan.streams.size();
    estimate.buffers = 2 * block_bytes + streams_bytes + choice_bytes + ids_bytes + plan.header_bytes + backend_bytes;
    return estimate;
}

}  // namespace tcgen
