#pragma once
// A predictor kind of the spec language (LV, FCM, DFCM, MATCH; paper §3) in
// two parts kept apart. Its meaning, PredictorKind below: its spelling, what
// its lines hold, the tables it adds to the naive plan, its bidirectional
// form and what the tuner may do with it; the front end, the planner, the
// plan dump and the tuner read it. Its emission, KindCode (kind_code.hpp):
// the C++ of its table, its line, its predictions and its update in the
// generated field class, in the spirit of protoc's per-field generators;
// only the back end reads it. What kinds share (a field's histories, strides
// and last values) is the planner's and the passes' business, so a kind
// only describes itself and its own table.
//
// Adding a kind: one file in this folder that defines its PredictorKind, its
// KindCode (most build on the shared parts: lines_kind.hpp's LinesKind,
// kind_code.hpp's LinesCode and its two variants) and an accessor, which
// registry.cpp declares and lists. A kind defined outside generator/ (a
// test's: tests/kinds/stride_kind.cpp) needs no line anywhere else: its own
// file registers it with a PredictorKindRegistration. The grammar, the
// checker, the planner, the passes, the back end and the tuner need no
// change: they ask the kind, or the kind that owns a table. Its tables are
// the planner's building blocks (code_plan.hpp: add_own_lines,
// add_own_stride, add_own_context, or a PlanTable of its own shape); a table
// that needs bookkeeping beside its entries says so in line_overhead_bytes.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen {

struct PlanField;
struct PlanTable;
class KindCode;

// What a predictor's lines hold and predict: the field's values themselves,
// or strides, value − last value (paper §3, DFCM).
enum class Sequence { values, strides };

// "values", "strides"
std::string sequence_name(Sequence sequence);

// What the tuner (generator/tune/) may do with a kind.
struct KindTuning {
    struct Use {
        unsigned order = 0;  // 0 for a kind without an order
        unsigned entries = 1;
    };
    // Where its slots go among a field's predictors, lower first, ties
    // broken by order, higher first (tune/candidate.hpp, sort_predictors):
    // on the PC field, and on the others.
    int place_on_pc_field = 0;
    int place_on_other_fields = 0;
    // Whether a field may put it after every other kind instead
    // (FieldChoice::movable_last): MATCH, whose hit on a long repeat should
    // not take code 0 from a slot that is right nearly always.
    bool may_go_last = false;
    // What it brings to the wide starting configuration (tune/moves.hpp,
    // wide_candidate): on the PC field, and on the others.
    std::vector<Use> wide_pc_field;
    std::vector<Use> wide_other_fields;
    // What the search adds to a field that lacks the kind; none: never added.
    std::optional<Use> added;
};

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
    // Whether it makes exactly one prediction ([1]).
    virtual bool makes_one_prediction() const { return false; }

    // Adds to the naive plan of a field the tables that predictor number
    // `predictor` reads, every one its own; its own lines have the role
    // TableRole::lines and the predictor as owner.
    virtual void add_tables(PlanField& field, std::size_t predictor) const = 0;
    // What its own table holds, as the plan dump says: "values", "strides",
    // "match window".
    virtual std::string describe_table(const PlanTable& table) const;

    // Its bidirectional form (runtime/bidirectional/predictor.hpp): the
    // enumerator of tcgen_runtime::bidirectional::Kind that implements it,
    // or empty when it has none (a bidirectional stream refuses it).
    virtual std::string_view bidirectional_kind() const = 0;

    virtual const KindTuning& tuning() const = 0;

    // Its emission, for the back end.
    virtual const KindCode& code() const = 0;
};

// Every kind tcgen knows, in the order diagnostics list them: the built-in
// ones (registry.cpp), then those registered since.
const std::vector<const PredictorKind*>& predictor_kinds();

// The kind spelled `keyword`, or nullptr.
const PredictorKind* find_predictor_kind(std::string_view keyword);

// Adds a kind defined outside generator/kinds/ (a test's toy kind), before
// any spec is compiled; throws std::invalid_argument when its keyword is
// taken. A kind's file registers itself with one line at namespace scope,
// `const PredictorKindRegistration registration(the_kind);`, when it is
// linked into the program itself (a static library would drop it).
void register_predictor_kind(const PredictorKind& kind);

struct PredictorKindRegistration {
    explicit PredictorKindRegistration(const PredictorKind& kind) { register_predictor_kind(kind); }
};

}  // namespace tcgen
