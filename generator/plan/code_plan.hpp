#pragma once
// The code plan: the intermediate representation between the checked model
// and the back ends. It spells out every table the generated compressor
// allocates, the element type of every table and stream, which predictor
// reads which table, and how indices are hashed. build_code_plan() makes the
// naive plan, in which every predictor owns its tables and everything is 64
// bits wide; the optimisation passes (passes/) rewrite it; the back ends
// (canonical text, --dump-ir, code generation) render whatever plan they are
// given. Everything is a plain value: two plans are equal when they would
// generate the same code.
//
// Tables, strides and histories are identified by role and owner, never by
// C++ names; the back end spells names (text/field_names.hpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "generator/frontend/model.hpp"

namespace tcgen {

constexpr std::size_t no_index = std::numeric_limits<std::size_t>::max();
// The owner of a table or stride that serves the whole field.
constexpr std::size_t shared = no_index;

enum class TableRole {
    lines,       // a predictor's own table, whose kind says what it holds and how its code reads it: LV
                 // lines, FCM/DFCM second-level lines, a MATCH window
    history,     // first level: per L1 line, the context of a sequence (its last values, or their hashes)
    last_value,  // first level: per L1 line, the field's last value, for computing strides
};

struct PlanTable {
    TableRole role = TableRole::lines;
    Sequence sequence = Sequence::values;  // what the lines or the history's context hold
    std::size_t owner = shared;            // the predictor whose own table it is, or `shared`
    bool first_level = true;               // indexed by the PC's L1 line; else by a hashed context
    std::uint64_t lines = 0;
    unsigned entries = 1;  // per line
    unsigned element_bits = 64;
    unsigned line_overhead_bytes = 0;  // per line, beside its entries: what its kind keeps to find them
                                       // (a MATCH window: where each key last occurred, 32 bits)

    std::uint64_t bytes() const;  // saturates instead of overflowing
};

// A stride, value − last value, computed before anything is updated.
struct PlanStride {
    std::size_t owner = shared;
    std::size_t last_value_table = 0;  // the table whose line's entry 0 is the last value
};

// A first-level table of contexts over a sequence, the highest order it
// serves being its entries per line.
struct PlanHistory {
    std::size_t table = 0;
    Sequence sequence = Sequence::values;
    std::size_t stride = no_index;  // strides: the stride it records
    bool stores_hashes = false;     // true: entry k−1 is the order-k index (incremental hashing);
                                    // false: raw values, newest first, hashed from scratch
};

struct PlanPredictor {
    Predictor spec;
    unsigned first_slot = 0;         // its codes are first_slot .. first_slot + entries − 1
    std::size_t table = 0;           // its own lines
    std::size_t history = no_index;  // a context kind's: into PlanField::histories
    std::size_t stride = no_index;   // a strides kind's: into PlanField::strides
};

// The select-fold-shift-xor hash of a field (identical in every plan, so
// that no optimisation changes an index): values are folded to fold_bits by
// xoring chunks; the order-k index is ((order-(k−1) index) << shift) ^
// folded, masked to fold_bits + k − 1 bits. Each sequence has its own shift.
struct HashPlan {
    unsigned fold_bits = 0;             // log2(L2): the index bits of the L2 lines of an order-1 table
    std::vector<unsigned> fold_shifts;  // chunk offsets xored in; empty when the value fits
    std::array<unsigned, 2> shifts = {1, 1};  // by Sequence

    // An order-k table has L2·2^(k−1) lines.
    unsigned index_bits(unsigned order) const { return fold_bits + order - 1; }
    unsigned shift(Sequence sequence) const { return shifts[static_cast<std::size_t>(sequence)]; }
};

// How a field's lines (not its histories, which always shift) take a value.
enum class UpdatePolicy {
    always_shift,  // every update shifts the line (VPC3)
    smart,         // only when the value differs from the line's first entry (paper §5.3)
};

// How one table's lines are updated: the one decision codegen renders.
enum class LineUpdate { shift, smart, overwrite };

// A stream holds the fields' codes, a field's misses, or (with "32-Bit
// Ids;") every record's 32-bit id.
enum class StreamRole { codes, misses, ids };

// A stream of a block: its field (0 for the codes of every field and for the
// ids), its role and the width of its elements.
struct PlanStream {
    unsigned field = 1;
    StreamRole role = StreamRole::codes;
    unsigned element_bits = 64;
};

struct PlanField {
    unsigned number = 1;
    unsigned bits = 8;
    unsigned offset = 0;  // byte offset in the record
    bool is_pc = false;
    std::uint64_t l1 = 1;
    std::uint64_t l2 = 1;
    unsigned miss_code = 0;  // the number of predictions: codes 0..miss_code−1 name one

    bool pc_parameter = true;               // the PC is passed in, even when no table needs it
    UpdatePolicy update = UpdatePolicy::always_shift;
    bool compare_single_entry_lines = true;  // a one-entry line is compared before it is written
    unsigned work_bits = 64;                 // predictions, arithmetic and misses

    HashPlan hash;
    std::vector<PlanTable> tables;
    std::vector<PlanStride> strides;
    std::vector<PlanHistory> histories;
    std::vector<PlanPredictor> predictors;  // spec order; slots numbered 0..n−1
    std::size_t codes_stream = 0;           // into CodePlan::streams
    std::size_t misses_stream = 0;

    std::uint64_t table_bytes() const;
    LineUpdate line_update(const PlanTable& table) const;
};

struct CodePlan {
    Spec spec;  // what the plan implements; canonical text and fingerprints come from it
    unsigned header_bytes = 0;
    unsigned record_bytes = 0;
    std::uint64_t records_per_block = 1;
    unsigned pc_field = 1;
    std::vector<PlanField> fields;          // in record order
    std::vector<std::size_t> coding_order;  // indices into fields: the PC first, whose value indexes the others
    std::vector<PlanStream> streams;
    std::vector<std::string> applied_passes;  // in the order they ran

    // Whether the records are coded as ids (Spec::record_ids): the ids
    // stream is then the last.
    bool record_ids() const { return spec.record_ids; }
    std::size_t ids_stream() const { return streams.size() - 1; }

    std::uint64_t table_bytes() const;
    // The most one record adds to each stream: every field writes one code
    // to its codes stream and at most one value to its misses stream (what
    // the generated codec declares, for a reader to refuse larger claims).
    std::vector<std::uint64_t> stream_bytes_per_record() const;
    const PlanField& pc() const { return fields[pc_field - 1]; }
};

bool operator==(const PlanTable& a, const PlanTable& b);
bool operator==(const PlanStride& a, const PlanStride& b);
bool operator==(const PlanHistory& a, const PlanHistory& b);
bool operator==(const PlanPredictor& a, const PlanPredictor& b);
bool operator==(const HashPlan& a, const HashPlan& b);
bool operator==(const PlanStream& a, const PlanStream& b);
bool operator==(const PlanField& a, const PlanField& b);
// Compares what the code depends on; the spec is implied by the fields.
bool operator==(const CodePlan& a, const CodePlan& b);

// The offsets at which a value of value_bits is cut into fold_bits chunks
// that are xored together; empty when the value already fits.
std::vector<unsigned> fold_chunk_shifts(unsigned fold_bits, unsigned value_bits);

// Adds a table to a field; returns its index.
std::size_t add_table(PlanField& field, const PlanTable& table);

// For predictor kinds building the naive plan: gives predictor number
// `predictor` its own lines (`lines` lines of its entries, first-level or
// indexed by a context); its own stride and last-value table; or its own
// context: a history of its sequence as deep as its order and, over
// strides, its own stride.
void add_own_lines(PlanField& field, std::size_t predictor, bool first_level, std::uint64_t lines);
void add_own_stride(PlanField& field, std::size_t predictor);
void add_own_context(PlanField& field, std::size_t predictor);

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

}  // namespace tcgen
