#pragma once
// The sizes a plan implies: records per block of the .tcz and the memory a
// compressor needs. The table sizes themselves are the plan's own.

#include <cstdint>

#include "generator/plan/code_plan.hpp"

namespace tcgen {

// Records per block of the .tcz container: a fixed number per spec, so that
// memory stays bounded whatever the trace length; more for a spec that
// codes records as ids.
std::uint64_t records_per_block(unsigned record_bytes, bool record_ids);

struct MemoryEstimate {
    std::uint64_t tables = 0;
    std::uint64_t buffers = 0;  // I/O block, streams and bzip2's own state
    std::uint64_t total() const { return tables + buffers; }
};

MemoryEstimate estimate_memory(const CodePlan& plan);

// The most table memory tcgen accepts for one compressor; a larger spec is
// almost certainly a typo (L2 = 1048576000) and would not run on ordinary
// machines. Checked on the plan after the passes (plan_checks.hpp).
constexpr std::uint64_t max_table_bytes = std::uint64_t{16} << 30;

}  // namespace tcgen
