#pragma once
// Sizes: index widths, element types, block size and the memory estimate.
// The tables themselves are laid out by the code plan (code_plan.hpp) and its
// optimisation passes; the sizes here are those of the fully optimised plan.

#include <cstdint>
#include <string>

#include "generator/frontend/model.hpp"

namespace tcgen {

// The number of index bits of the order-x second-level table of a field:
// log2(L2) + x − 1, i.e. L2·2^(x−1) lines.
unsigned hash_index_bits(const Field& field, unsigned order);

// The smallest of 1, 2, 4, 8 bytes holding an unsigned value of `bits` bits.
unsigned bytes_for_bits(unsigned bits);

// Records per block of the .tcz container: a fixed number per spec, so that
// memory stays bounded whatever the trace length.
std::uint64_t records_per_block(const Spec& spec);

struct MemoryEstimate {
    std::uint64_t tables = 0;
    std::uint64_t buffers = 0;  // I/O block, streams and bzip2's own state
    std::uint64_t total() const { return tables + buffers; }
};

MemoryEstimate estimate_memory(const Spec& spec);

// The most table memory tcgen accepts for one spec; a larger spec is almost
// certainly a typo (L2 = 1048576000) and would not run on ordinary machines.
constexpr std::uint64_t max_table_bytes = std::uint64_t{16} << 30;

// "5,242,880"
std::string with_thousands_separators(std::uint64_t value);

// "5.0 MiB", "512 bytes"
std::string human_bytes(std::uint64_t value);

}  // namespace tcgen
