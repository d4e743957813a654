// MATCHx[1] (tcgen's own kind, not the paper's): LZ77's match as a
// predictor. It finds where the field's last x values (and, in a field with
// L1 > 1, the PC's L1 line) last occurred in the trace, predicts the value
// that followed them there, and while it is right keeps following that
// earlier occurrence, so that a long repeat costs one start however far back
// it began (runtime/predictors.hpp, MatchTable). The decoder looks a key up
// only where the code says a match starts. FCM and DFCM see only their last
// x values, and so cannot tell the occurrences of a short context apart;
// this is what captures the long loops of branch and address traces. Its window is L2·2^(x−1) values, as
// many as an FCMx's lines.

#include "generator/text/code_text.hpp"
#include "generator/kinds/kind_code.hpp"
#include "generator/plan/number_text.hpp"

namespace tcgen {
namespace {

// Its table is a MatchTable: the window, which finds the predicted value's
// entry itself and learns through its member.
class MatchCode : public PcLineCode {
public:
    TableMember table_member(const PlanField& field, const PlanTable& table) const override {
        return {"MatchTable<" + unsigned_type(table.element_bits) + ", " +
                    std::to_string(field.predictors[table.owner].spec.order) + ">",
                "{" + std::to_string(table.lines) + "}",
                "a window of " + with_thousands_separators(table.lines) + " values"};
    }
    std::string_view runtime_class() const override { return "MatchTable"; }
    // A window and its keys, not plain lines: never in a field's contexts.
    bool plain_lines() const override { return false; }

    // At the PC's L1 line, which the window hashes into the key; never
    // prefetched.
    std::string line_at(const PlanField&, const PlanPredictor& predictor, const FieldNames& names,
                        const std::string& index, LineUse) const override {
        return names.table(predictor.table) + ".find<marks>(" + index + ")";
    }
    // find() is no mere address.
    bool prefetchable() const override { return false; }

    std::string update(const PlanField&, const PlanPredictor& predictor, const FieldNames& names) const override {
        return names.table(predictor.table) + ".update(value);";
    }
    std::string_view member_update_reason() const override { return "the match window learns through its member."; }

    // Where its code is written while no match is followed, a match
    // starts; only there does the decoder look the key up.
    std::string encode_named(const PlanPredictor& predictor, const FieldNames& names) const override {
        return names.table(predictor.table) + ".start();";
    }
    std::string decode_named(const PlanPredictor& predictor, const FieldNames& names) const override {
        return names.table(predictor.table) + ".start()";
    }
    // A learned value (no code) starts a match where the key's latest
    // occurrence predicted it (learn() asks this only where no slot before
    // the MATCH's predicted it, as encode() names the MATCH only there).
    std::string learn_named(const PlanPredictor& predictor, const FieldNames& names) const override {
        return names.table(predictor.table) + ".start_if_right(value);";
    }
    // The encoder looks the key up for every record that follows no match,
    // to learn whether the prediction is right.
    std::string encoder_role(const PlanPredictor& predictor, const FieldNames& names) const override {
        return names.table(predictor.table) + ".search();";
    }
};

class MatchKind : public PredictorKind {
public:
    std::string_view keyword() const override { return "MATCH"; }
    bool has_order() const override { return true; }
    Sequence sequence() const override { return Sequence::values; }
    // Its key is hashed by its window, not read from a shared history.
    bool uses_context() const override { return false; }
    bool makes_one_prediction() const override { return true; }

    // The window: `lines` recent values, and as many lines of where a key
    // last occurred, 32 bits each.
    void add_tables(PlanField& field, std::size_t predictor) const override {
        PlanPredictor& owner = field.predictors[predictor];
        PlanTable table;
        table.role = TableRole::lines;
        table.sequence = sequence();
        table.owner = predictor;
        table.first_level = false;
        table.lines = field.l2 << (owner.spec.order - 1);
        table.line_overhead_bytes = 4;
        owner.table = add_table(field, table);
    }
    std::string describe_table(const PlanTable&) const override { return "match window"; }

    // Following an earlier occurrence forward has no backward form.
    std::string_view bidirectional_kind() const override { return ""; }

    // First, where traces repeat (its hits take code 0), or last, where one
    // FCM or DFCM slot is right nearly always and a MATCH ahead of it would
    // push that slot's code to 1 (docs/design/log.md, "The match predictor":
    // stores want it last, load values first). MATCH4[1] in the wide start
    // and where a field lacks it.
    const KindTuning& tuning() const override {
        static const KindTuning tuning{0, 0, true, {{4, 1}}, {{4, 1}}, KindTuning::Use{4, 1}};
        return tuning;
    }

    const KindCode& code() const override {
        static const MatchCode code;
        return code;
    }
};

}  // namespace

const PredictorKind& match_kind() {
    static const MatchKind kind;
    return kind;
}

}  // namespace tcgen
