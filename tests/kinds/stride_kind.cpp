// A toy predictor kind defined outside generator/, in this one file, to show
// that a kind needs nothing else: STRIDE[n], the classic stride predictor
// (the last value plus the stride it last moved by) over the n most recent
// strides of the PC's L1 line. Its meaning is the shared LinesKind's at the
// PC's line over strides: first-level lines of strides and a stride of its
// own, which the planner's passes share as they do a DFCM's. Its emission is written out
// here in full rather than taken from the shared LinesCode. Linked into a
// program, it registers itself (last line).

#include "generator/kinds/lines_kind.hpp"

namespace tcgen::toy {
namespace {

class StrideCode : public KindCode {
public:
    TableMember table_member(const PlanField&, const PlanTable& table) const override {
        return zeroed_table_member(table);
    }
    std::string line_index(const PlanField&, const PlanPredictor&, const FieldNames&) const override {
        return "line";  // first-level: select() reads it at the PC's own line
    }
    std::string line_at(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                        const std::string& index, LineUse use) const override {
        return zeroed_table_line(names.table(predictor.table), field.tables[predictor.table], index, use);
    }
    std::string prediction(const PlanField& field, const PlanPredictor& predictor, const FieldNames& names,
                           unsigned entry) const override {
        std::size_t last_value = field.strides[predictor.stride].last_value_table;
        return "wrapping_add(" + names.line(last_value) + "[0], " + names.line(predictor.table) + "[" +
               std::to_string(entry) + "])";
    }
    std::string update(const PlanField& field, const PlanPredictor& predictor,
                       const FieldNames& names) const override {
        return line_update_statement(field, field.tables[predictor.table], names.line(predictor.table),
                                     names.stride(predictor.stride));
    }
};

class StrideKind : public LinesKind {
public:
    StrideKind() : LinesKind(Index::pc_line) {}

    std::string_view keyword() const override { return "STRIDE"; }
    Sequence sequence() const override { return Sequence::strides; }
    std::string_view bidirectional_kind() const override { return ""; }  // none

    // Beside LV, and never tried by the search.
    const KindTuning& tuning() const override {
        static const KindTuning tuning{3, 3, false, {}, {}, std::nullopt};
        return tuning;
    }

    const KindCode& code() const override {
        static const StrideCode code;
        return code;
    }
};

const StrideKind stride_kind;

}  // namespace

const PredictorKindRegistration stride_registration(stride_kind);

}  // namespace tcgen::toy
