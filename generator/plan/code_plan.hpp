#pragma once
// The code plan: the intermediate representation between the checked model
// and code generation. It spells out every table the generated compressor
// allocates, the element type of every table and stream, which predictor reads
// which table, and how indices are hashed. build_code_plan() makes the naive
// plan, in which every predictor owns its tables and everything is 64 bits
// wide; the optimisation passes (generator/plan/passes/) rewrite it; codegen
// renders whatever plan it is given; --dump-ir prints it.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "generator/frontend/model.hpp"

namespace tcgen {

constexpr std::size_t no_index = std::numeric_limits<std::size_t>::max();

enum class TableContent {
    values,      // LV lines, or FCM second-level lines: field values
    strides,     // DFCM second-level lines
    history,     // first level: the last values (or strides) of an L1 line, or their hashes
    last_value,  // first level: an L1 line's last value, for computing strides
};

struct PlanTable {
    std::string name;  // unique in its field; the generated global is field_<n>_<name>
    TableContent content = TableContent::values;
    bool first_level = true;  // indexed by the PC's L1 line; else by a hash
    std::uint64_t lines = 0;
    unsigned entries = 1;  // per line
    unsigned element_bits = 64;

    std::uint64_t bytes() const;  // saturates instead of overflowing
};

// A stride, value − last value, computed before anything is updated.
struct PlanStride {
    std::string name;                     // the generated local variable
    std::size_t last_value_table = 0;     // the table whose line's entry 0 is the last value
};

// A first-level table of contexts for FCMs (over values) or DFCMs (over a
// stride), the highest order it serves being its entries per line.
struct PlanHistory {
    std::size_t table = 0;
    PredictorKind kind = PredictorKind::fcm;  // fcm: values; dfcm: strides
    std::size_t stride = no_index;            // dfcm: the stride it records
    bool stores_hashes = false;  // true: entry k−1 is the order-k index (incremental hashing);
                                 // false: raw values, newest first, hashed from scratch
};

struct PlanPredictor {
    PredictorKind kind = PredictorKind::last_value;
    unsigned order = 0;
    unsigned entries = 1;
    unsigned first_slot = 0;        // its codes are first_slot .. first_slot + entries − 1
    std::size_t table = 0;          // its LV table or second-level table
    std::size_t history = no_index; // FCM, DFCM: into PlanField::histories
    std::size_t stride = no_index;  // DFCM: into PlanField::strides
};

// The select-fold-shift-xor hash of a field (identical in every plan, so
// that no optimisation changes an index): values are folded to fold_bits by
// xoring chunks; the order-k index is ((order-(k−1) index) << shift) ^
// folded, masked to fold_bits + k − 1 bits.
struct HashPlan {
    unsigned fold_bits = 0;  // log2(L2)
    std::vector<unsigned> fold_shifts;  // chunk offsets xored in; empty when the value fits
    unsigned fcm_shift = 1;
    unsigned dfcm_shift = 1;

    unsigned index_bits(unsigned order) const { return fold_bits + order - 1; }
};

struct PlanField {
    unsigned number = 1;
    unsigned bits = 8;
    unsigned offset = 0;  // byte offset in the record
    bool is_pc = false;
    std::uint64_t l1 = 1;
    std::uint64_t l2 = 1;

    bool pc_parameter = true;    // the PC is passed in, even when no table needs it
    bool check_single_entry_lines = true;  // one-entry lines are compared before they are written
    bool smart_update = false;   // paper §5.3; otherwise every update shifts the line
    unsigned work_bits = 64;     // predictions, arithmetic and miss stream elements
    unsigned code_bits = 64;     // code stream elements

    HashPlan hash;
    std::vector<PlanTable> tables;
    std::vector<PlanStride> strides;
    std::vector<PlanHistory> histories;
    std::vector<PlanPredictor> predictors;  // spec order; slots numbered 0..n−1

    unsigned prediction_count() const;
    std::uint64_t table_bytes() const;
};

struct CodePlan {
    unsigned header_bytes = 0;
    unsigned record_bytes = 0;
    std::uint64_t records_per_block = 1;
    unsigned pc_field = 1;
    std::vector<PlanField> fields;
    std::vector<std::string> applied_passes;  // in the order they ran

    std::uint64_t table_bytes() const;
};

// The offsets at which a value of value_bits is cut into fold_bits chunks
// that are xored together; empty when the value already fits.
std::vector<unsigned> fold_chunk_shifts(unsigned fold_bits, unsigned value_bits);

// What something in a field reads: a table is in use when a predictor or a
// history reads it, or a stride in use takes its last value from it; a
// stride is in use when a predictor or a history reads it.
struct FieldUse {
    std::vector<bool> tables;
    std::vector<bool> strides;
};
FieldUse field_use(const PlanField& field);

// Removes the marked tables and strides of a field, renumbering what refers
// to the others. Nothing may still refer to a removed entry.
void remove_tables_and_strides(PlanField& field, const std::vector<bool>& remove_table,
                               const std::vector<bool>& remove_stride);

// The naive plan: every predictor owns its tables, everything is 64 bits,
// hashes are computed from scratch, lines always shift, the PC goes to every
// field, and every field tracks its last value.
CodePlan build_code_plan(const Spec& spec);

// The stable text form printed by tcgen --dump-ir, and that of one field
// (which also tells passes whether they changed anything).
std::string dump_code_plan(const CodePlan& plan);
std::string describe_field(const PlanField& field);

}  // namespace tcgen
