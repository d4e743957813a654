#pragma once
// A predictor kind of the spec language (LV, FCM, DFCM; paper §3) as one
// object: what it learns, the tables it reads, and the code of its
// predictions and its update, in the spirit of protoc's per-field
// generators. The front end finds a kind by its keyword, the planner asks it
// for its tables in the naive plan, the back end asks it for code. What kinds
// share (a field's histories, strides and last values) is the planner's and
// the passes' business, so a kind only describes itself.
//
// Adding a kind: one file in this folder defining a PredictorKind (most
// build on kind_code.hpp's SequenceKind or ContextKind) and its accessor,
// listed in registry.cpp. The grammar, the checker, the planner, table
// sharing and the back end need no change.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen {

struct PlanField;
struct PlanPredictor;
class FieldNames;

// What a predictor's lines hold and predict: the field's values themselves,
// or strides, value − last value (paper §3, DFCM).
enum class Sequence { values, strides };

class PredictorKind {
public:
    virtual ~PredictorKind() = default;

    // The spelling in a spec: "FCM", and whether an order follows (FCM3[2]).
    virtual std::string_view keyword() const = 0;
    virtual bool has_order() const = 0;

    // What its lines hold.
    virtual Sequence sequence() const = 0;
    // Whether its line is found through a hashed context of the last `order`
    // elements of its sequence (FCM, DFCM) rather than by the PC's L1 line.
    virtual bool uses_context() const = 0;

    // Adds to the naive plan of a field the tables that predictor number
    // `predictor` reads, every one its own.
    virtual void add_tables(PlanField& field, std::size_t predictor) const = 0;

    // Code, as C++ expressions in the generated field class: the index of the
    // predictor's line in its table (in select(), where `line` is the PC's L1
    // line and `lines` the first-level lines), its prediction number `entry`
    // (in predict()), and what its line is updated with (in update()).
    virtual std::string line_index(const PlanField& field, const PlanPredictor& predictor,
                                   const FieldNames& names) const = 0;
    virtual std::string prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                                   unsigned entry) const = 0;
    virtual std::string update_operand(const PlanField& field, const PlanPredictor& predictor,
                                       const FieldNames& names) const = 0;

    // Whether it makes exactly one prediction ([1]).
    virtual bool makes_one_prediction() const { return false; }

    // Its bidirectional form (runtime/bidirectional/predictor.hpp): the
    // enumerator of tcgen_runtime::bidirectional::Kind that implements it,
    // or empty when it has none (a bidirectional stream refuses it).
    virtual std::string_view bidirectional_kind() const = 0;
};

// Every kind tcgen knows, in the order diagnostics list them.
const std::vector<const PredictorKind*>& predictor_kinds();

// The kind spelled `keyword`, or nullptr.
const PredictorKind* find_predictor_kind(std::string_view keyword);

}  // namespace tcgen
