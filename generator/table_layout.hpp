#pragma once
// The predictor tables a field needs and what they cost in memory: the one
// place that knows table shapes, shared by the semantic checker (memory cap),
// the canonical printer (per-field comments) and code generation.
//
// Layout (paper §3 and §5.2, all optimisations on):
// - LV[n]:      L1 lines of n values.
// - FCMx[n]:    L2·2^(x−1) lines of n values, indexed by a hash of the last x
//               values of the field in the PC's L1 line.
// - DFCMx[n]:   the same over strides; the prediction adds the last value.
// - History:    one first-level table for all FCMs of a field and one for all
//               DFCMs, each holding per L1 line the hashes of the last 1..x
//               values (or strides) for the highest order x, so that lower
//               orders read a prefix of it.
// - Last value: one table per field if it has a DFCM; shared with the first
//               entry of an LV's lines when the field has an LV.

#include <cstdint>
#include <string>
#include <vector>

#include "generator/model.hpp"

namespace tcgen {

enum class TableRole {
    predictor,     // an LV table or an FCM/DFCM second-level table
    fcm_history,   // the first-level hashes of the field's values
    dfcm_history,  // the first-level hashes of the field's strides
    last_value,    // the last value, for DFCMs, when no LV holds it
};

struct Table {
    std::string name;  // unique within the field: "fcm3_table", "lv_table", "fcm3_table_2", "dfcm_history"
    TableRole role = TableRole::predictor;
    std::size_t predictor = 0;  // index into Field::predictors, for role predictor
    std::uint64_t lines = 0;
    unsigned entries_per_line = 0;
    unsigned element_bytes = 0;

    std::uint64_t bytes() const;  // saturates instead of overflowing
};

// The number of index bits of the order-x second-level table of a field:
// log2(L2) + x − 1, i.e. L2·2^(x−1) lines.
unsigned hash_index_bits(const Field& field, unsigned order);

// The smallest of 1, 2, 4, 8 bytes holding an unsigned value of `bits` bits.
unsigned bytes_for_bits(unsigned bits);

// The predictor tables first, one per predictor in spec order (so that
// tables[i] belongs to predictors[i]), then the histories, then the last value.
std::vector<Table> field_tables(const Field& field);
std::uint64_t field_table_bytes(const Field& field);

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
