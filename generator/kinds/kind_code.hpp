#pragma once
// A predictor kind's emission (predictor_kind.hpp has its meaning): the C++
// that the back end (backend/codegen.cpp) puts into the generated field
// class (templates/field.mustache) for one predictor of the kind and its own
// table. Everything here is C++ text; what it stands for is the meaning's.
//
// The shared parts: the code of a plain table (ZeroedTable lines, as the
// planner's own histories and last values are too), and LinesCode, the code
// of a kind whose own table is such lines of its sequence, predicting their
// entries as values, or as strides added to the last value; PcLineCode,
// which finds its line at the PC's L1 line (LV), and ContextLinesCode,
// through a hashed context (FCM, DFCM).

#include <string>
#include <string_view>

#include "generator/text/field_names.hpp"
#include "generator/kinds/predictor_kind.hpp"
#include "generator/plan/code_plan.hpp"

namespace tcgen {

// A table member of the field class: `type member initializer;  // comment`.
struct TableMember {
    std::string type;
    std::string initializer;
    std::string comment;
};

// What a table's line is taken for. In select(), for the record: the
// generated code is a template on `marks`, and the line is taken with
// `line<marks>` (or its table's own lookup), which marks its pages in the
// instantiation that a file with restart points runs, for a restart that
// clears only those (runtime/predictors.hpp, ZeroedTable). In
// prefetch_next(): its mere address.
enum class LineUse { selected, prefetched };

class KindCode {
public:
    virtual ~KindCode() = default;

    // The member that holds the predictor's own table.
    virtual TableMember table_member(const PlanField& field, const PlanTable& table) const = 0;
    // The runtime class (tcgen_runtime::NAME) that member's type names,
    // beyond those every generated program uses; empty for none.
    virtual std::string_view runtime_class() const { return {}; }
    // Whether its own table is plain lines (zeroed_table_member) taken with
    // zeroed_table_line: a first-level one then goes into the field's
    // contexts beside the histories (codegen.cpp, ContextLayout).
    virtual bool plain_lines() const { return false; }

    // In select(), where `line` is the PC's L1 line and `lines` the
    // first-level lines: the index of the predictor's line in its table
    // (for a table that is not first-level), and its line at `index`, for
    // `use` (LineUse).
    virtual std::string line_index(const PlanField& field, const PlanPredictor& predictor,
                                   const FieldNames& names) const = 0;
    virtual std::string line_at(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                                const std::string& index, LineUse use) const = 0;
    // Whether that line is a mere address, worth prefetching for the next
    // value right after update().
    virtual bool prefetchable() const { return true; }

    // In predict(): its prediction number `entry`.
    virtual std::string prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                                   unsigned entry) const = 0;

    // In update(): the statement that teaches its table the value.
    virtual std::string update(const PlanField& field, const PlanPredictor& predictor,
                               const FieldNames& names) const = 0;
    // Why update() cannot be static, when its table learns through its
    // member rather than through the line select() found (then update()
    // reads no line of it): the end of a comment "// Not static: ...".
    virtual std::string_view member_update_reason() const { return {}; }

    // Where the record's code names its prediction: the encoder's
    // statement and the decoder's expression for the predicted value, for
    // a kind whose decoder computes it only then (MATCH: where a match
    // starts, the decoder looks it up); empty for none. With them, the
    // statement that learn() runs for `value`, which no code names, where no
    // slot before the predictor's predicted `value` (where encode() could
    // have named it): it must change the tables as encode() would. And the
    // statement that gives its table the encoder's role, which the encoder
    // runs before every block; empty for none.
    virtual std::string encode_named(const PlanPredictor&, const FieldNames&) const { return {}; }
    virtual std::string decode_named(const PlanPredictor&, const FieldNames&) const { return {}; }
    virtual std::string learn_named(const PlanPredictor&, const FieldNames&) const { return {}; }
    virtual std::string encoder_role(const PlanPredictor&, const FieldNames&) const { return {}; }
};

// A plain table of `table.lines` lines of `table.entries` (ZeroedTable).
TableMember zeroed_table_member(const PlanTable& table);
// The line at `index` of the plain table `member`, for `use`.
std::string zeroed_table_line(const std::string& member, const PlanTable& table, const std::string& index,
                              LineUse use);
// The statement that puts `operand` into the plain table's `line`, as the
// field's update policy says (PlanField::line_update).
std::string line_update_statement(const PlanField& field, const PlanTable& table, const std::string& line,
                                  const std::string& operand);

// A kind whose own table is plain lines of its sequence (LV, FCM, DFCM).
class LinesCode : public KindCode {
public:
    TableMember table_member(const PlanField& field, const PlanTable& table) const override;
    bool plain_lines() const override { return true; }
    std::string line_at(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                        const std::string& index, LineUse use) const override;
    // Entry `entry` of its line: a value, or a stride added to the last value.
    std::string prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                           unsigned entry) const override;
    // Its line takes the value, or the stride.
    std::string update(const PlanField& field, const PlanPredictor& predictor,
                       const FieldNames& names) const override;
};

// Plain lines found at the PC's L1 line.
class PcLineCode : public LinesCode {
public:
    std::string line_index(const PlanField& field, const PlanPredictor& predictor,
                           const FieldNames& names) const override;
};

// Plain lines found through a hashed context of its sequence: read from a
// history of hashes, or hashed now from a history of raw values.
class ContextLinesCode : public LinesCode {
public:
    std::string line_index(const PlanField& field, const PlanPredictor& predictor,
                           const FieldNames& names) const override;
};

// The one PcLineCode and the one ContextLinesCode, for LinesKind
// (lines_kind.hpp).
const KindCode& pc_line_code();
const KindCode& context_lines_code();

}  // namespace tcgen
