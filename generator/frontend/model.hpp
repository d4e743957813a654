#pragma once
// The checked model of a spec: what the semantic checker guarantees and what
// passes and code generation work on. Every value here is valid: widths are
// 8/16/32/64, sizes are powers of two, the PC field exists and has L1 = 1.

#include <cstdint>
#include <string>
#include <vector>

namespace tcgen {

enum class PredictorKind { last_value, fcm, dfcm };

struct Predictor {
    PredictorKind kind = PredictorKind::last_value;
    unsigned order = 0;    // x of FCMx/DFCMx; 0 for LV
    unsigned entries = 1;  // n of [n]: the number of predictions it makes
};

struct Field {
    unsigned number = 1;  // 1-based position in the record
    unsigned bits = 8;
    std::uint64_t l1 = 1;
    std::uint64_t l2 = 65536;
    std::vector<Predictor> predictors;  // in spec order, which is slot order

    unsigned bytes() const { return bits / 8; }
};

struct Spec {
    unsigned header_bits = 0;
    std::vector<Field> fields;  // fields[i].number == i + 1
    unsigned pc_field = 1;      // a field number

    unsigned header_bytes() const { return header_bits / 8; }
    unsigned record_bytes() const;
    const Field& pc() const { return fields[pc_field - 1]; }
};

// The defaults the paper gives for omitted level sizes.
constexpr std::uint64_t default_l1 = 1;
constexpr std::uint64_t default_l2 = 65536;

// "FCM3[2]", "LV[4]": the spec's own spelling.
std::string predictor_name(const Predictor& predictor);

// The number of predictions (code slots) of a field; the miss code equals it.
unsigned prediction_count(const Field& field);

// The highest order among the field's predictors of one kind, 0 if none.
unsigned max_order(const Field& field, PredictorKind kind);

}  // namespace tcgen
