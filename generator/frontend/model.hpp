#pragma once
// The checked model of a spec: what the semantic checker guarantees and what
// the planner works on. Every value here is valid: widths are 8/16/32/64,
// sizes are powers of two, the PC field exists and has L1 = 1, every
// predictor names a known kind and has an order exactly when its kind takes one.

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "generator/frontend/source_file.hpp"
#include "generator/kinds/predictor_kind.hpp"

namespace tcgen {

struct Predictor {
    const PredictorKind* kind = nullptr;
    unsigned order = 0;    // x of FCMx/DFCMx; 0 for a kind without an order
    unsigned entries = 1;  // n of [n]: the number of predictions it makes
    SourceSpan span;       // where the spec names it, for later diagnostics
};

bool operator==(const Predictor& a, const Predictor& b);
inline bool operator!=(const Predictor& a, const Predictor& b) {
    return !(a == b);
}

struct Field {
    unsigned number = 1;  // 1-based position in the record
    // The field's name, empty if it has none. Names reach the generated
    // Record, reports and canonical text, never the encoding: the fingerprint
    // is of the spec without them (backend/encoding.hpp).
    std::string name;
    // An element of the array `name`: its index and the array's size.
    std::optional<unsigned> element;
    unsigned array_size = 0;
    unsigned bits = 8;
    std::uint64_t l1 = 1;
    std::uint64_t l2 = 65536;
    std::vector<Predictor> predictors;  // in spec order, which is slot order
    SourceSpan span;                    // where the spec declares it, for later diagnostics
    SourceSpan l1_span;                 // its "L1 = N", or `span` when L1 is left out

    unsigned bytes() const { return bits / 8; }
    // "ip", "source_memory[0]", or "" for a field without a name.
    std::string label() const;
    // "ip", "source_memory[0]" or "field12": the member of the generated Record.
    std::string member() const;
    // The number of predictions (code slots); the miss code equals it.
    unsigned prediction_count() const;
    // The highest order among the predictors that learn from `sequence` through
    // a context, 0 if none.
    unsigned max_context_order(Sequence sequence) const;
};

// The line tcgen writes after a spec whose compressor was built with passes
// that change the encoding turned off, and reads back: "# Encoding: tcgen
// --disable=type-minimisation,smart-update".
constexpr std::string_view encoding_line_prefix = "# Encoding: tcgen --disable=";

struct EncodingLine {
    std::vector<std::string> disabled_passes;  // as written; the planner checks the names
    SourceSpan span;
};

struct Spec {
    unsigned header_bits = 0;
    SourceSpan header_span;  // when there is a header
    // "32-Bit Ids;": each record is coded as its id among the distinct
    // records so far (numbered in order of first appearance), and only a
    // record's first appearance through the fields.
    bool record_ids = false;
    SourceSpan ids_span;        // when record_ids
    std::vector<Field> fields;  // fields[i].number == i + 1
    unsigned pc_field = 1;      // a field number
    std::optional<EncodingLine> encoding;

    unsigned header_bytes() const { return header_bits / 8; }
    unsigned record_bytes() const;
    const Field& pc() const { return fields[pc_field - 1]; }
};

// The defaults the paper gives for omitted level sizes.
constexpr std::uint64_t default_l1 = 1;
constexpr std::uint64_t default_l2 = 65536;

// "FCM3[2]", "LV[4]": the spec's own spelling.
std::string predictor_name(const Predictor& predictor);

}  // namespace tcgen
