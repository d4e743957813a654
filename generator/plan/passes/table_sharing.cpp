// Table sharing (paper §5.2): all FCMs of a field read one first-level
// history, sized for the highest order, the lower orders using a prefix of
// it; likewise all DFCMs. The DFCMs share one stride and one last value,
// taken from the first entry of an LV's lines when the field has an LV (that
// entry is always the last value, under either update policy). Indices and
// predictions stay exactly what they were, so the output is byte-identical.
// Only the tables this pass replaces are removed: whatever else is unused is
// dead-code removal's to drop.

#include <algorithm>

#include "generator/plan/passes/pass.hpp"

namespace tcgen {
namespace {

std::size_t add_table(PlanField& field, PlanTable table) {
    field.tables.push_back(std::move(table));
    return field.tables.size() - 1;
}

// Points every DFCM at one stride whose last value is the LV's table, or a
// single last-value table when there is no LV. Marks the last-value tables
// it stops reading in `replaced`.
void share_stride(PlanField& field, std::vector<bool>& replaced) {
    std::vector<PlanPredictor*> dfcms;
    const PlanPredictor* lv = nullptr;
    for (PlanPredictor& predictor : field.predictors) {
        if (predictor.kind == PredictorKind::dfcm) {
            dfcms.push_back(&predictor);
        } else if (predictor.kind == PredictorKind::last_value && lv == nullptr) {
            lv = &predictor;
        }
    }
    if (dfcms.empty()) {
        return;
    }
    std::size_t current = dfcms.front()->stride;
    bool shared = std::all_of(dfcms.begin(), dfcms.end(), [&](const PlanPredictor* p) { return p->stride == current; });
    const std::string& current_last_value = field.tables[field.strides[current].last_value_table].name;
    if (shared && field.strides[current].name == "stride" &&
        current_last_value == (lv != nullptr ? field.tables[lv->table].name : "last_value")) {
        return;  // shared already
    }
    for (const PlanPredictor* dfcm : dfcms) {
        replaced[field.strides[dfcm->stride].last_value_table] = true;
    }
    std::size_t last_value = lv != nullptr ? lv->table : no_index;
    if (last_value == no_index) {
        PlanTable table = field.tables[field.strides[current].last_value_table];
        table.name = "last_value";
        last_value = add_table(field, table);
        replaced.push_back(false);
    }
    field.strides.push_back(PlanStride{"stride", last_value});
    for (PlanPredictor* dfcm : dfcms) {
        dfcm->stride = field.strides.size() - 1;
    }
    for (PlanHistory& history : field.histories) {
        if (history.kind == PredictorKind::dfcm) {
            history.stride = field.strides.size() - 1;
        }
    }
}

// Replaces the histories of one predictor kind by a single one with as many
// entries as the highest order. Marks the tables it replaces in `replaced`.
void share_history(PlanField& field, PredictorKind kind, std::vector<bool>& replaced) {
    unsigned order = 0;
    std::size_t count = 0;
    std::size_t first = no_index;
    for (std::size_t i = 0; i < field.histories.size(); ++i) {
        if (field.histories[i].kind == kind) {
            count += 1;
            first = first == no_index ? i : first;
        }
    }
    for (const PlanPredictor& predictor : field.predictors) {
        if (predictor.kind == kind) {
            order = std::max(order, predictor.order);
        }
    }
    if (count == 0) {
        return;
    }
    std::string name = kind == PredictorKind::fcm ? "fcm_history" : "dfcm_history";
    const PlanTable& current = field.tables[field.histories[first].table];
    if (count == 1 && current.entries == order && current.name == name) {
        return;  // shared already
    }
    PlanTable table = current;
    table.name = name;
    table.entries = order;
    PlanHistory merged = field.histories[first];
    merged.table = add_table(field, table);
    replaced.push_back(false);

    // Keep the other kind's histories in their order, the merged one where
    // the first of its kind was; predictors refer to histories by position.
    std::vector<PlanHistory> kept;
    std::vector<std::size_t> position(field.histories.size(), no_index);
    std::size_t merged_position = no_index;
    for (std::size_t i = 0; i < field.histories.size(); ++i) {
        if (field.histories[i].kind != kind) {
            position[i] = kept.size();
            kept.push_back(field.histories[i]);
            continue;
        }
        replaced[field.histories[i].table] = true;
        if (merged_position == no_index) {
            merged_position = kept.size();
            kept.push_back(merged);
        }
        position[i] = merged_position;
    }
    field.histories = std::move(kept);
    for (PlanPredictor& predictor : field.predictors) {
        if (predictor.history != no_index) {
            predictor.history = position[predictor.history];
        }
    }
}

}  // namespace

bool share_tables(CodePlan& plan) {
    bool changed = false;
    for (PlanField& field : plan.fields) {
        std::string before = describe_field(field);
        std::vector<bool> replaced(field.tables.size(), false);
        share_stride(field, replaced);
        share_history(field, PredictorKind::fcm, replaced);
        share_history(field, PredictorKind::dfcm, replaced);

        FieldUse use = field_use(field);
        std::vector<bool> remove_table(field.tables.size());
        for (std::size_t i = 0; i < field.tables.size(); ++i) {
            remove_table[i] = replaced[i] && !use.tables[i];
        }
        use.strides.flip();  // strides nothing reads any more: only those this pass replaced
        remove_tables_and_strides(field, remove_table, use.strides);
        changed = changed || describe_field(field) != before;
    }
    return changed;
}

}  // namespace tcgen
