// Table sharing (paper §5.2): all predictors that learn from a context of
// the same sequence read one first-level history, sized for the highest
// order, the lower orders using a prefix of it (for the paper's kinds: one
// history for the FCMs, one for the DFCMs). All strides predictors share one
// stride and one last value, taken from the first entry of first-level value
// lines when the field has them (an LV: that entry is always the last value,
// under either update policy). Indices and predictions stay exactly what
// they were, so the output is byte-identical. Only the tables this pass
// replaces are removed: whatever else is unused is dead-code removal's.

#include <algorithm>

#include "generator/plan/passes/pass.hpp"

namespace tcgen {
namespace {

// The first first-level lines of values, whose entry 0 is the last value.
std::size_t last_value_lines(const PlanField& field) {
    for (const PlanPredictor& predictor : field.predictors) {
        const PlanTable& table = field.tables[predictor.table];
        if (table.first_level && table.sequence == Sequence::values) {
            return predictor.table;
        }
    }
    return no_index;
}

// Points every predictor and history over strides at one shared stride.
// Marks the last-value tables it stops reading in `replaced`.
void share_stride(PlanField& field, std::vector<bool>& replaced) {
    std::vector<PlanPredictor*> users;
    for (PlanPredictor& predictor : field.predictors) {
        if (predictor.stride != no_index) {
            users.push_back(&predictor);
        }
    }
    if (users.empty()) {
        return;
    }
    std::size_t lines = last_value_lines(field);
    const PlanStride& current = field.strides[users.front()->stride];
    bool one_stride = std::all_of(users.begin(), users.end(),
                                  [&](const PlanPredictor* p) { return p->stride == users.front()->stride; });
    bool right_source = lines != no_index ? current.last_value_table == lines
                                          : field.tables[current.last_value_table].owner == shared;
    if (one_stride && current.owner == shared && right_source) {
        return;  // shared already
    }
    for (const PlanPredictor* user : users) {
        replaced[field.strides[user->stride].last_value_table] = true;
    }
    std::size_t last_value = lines;
    if (last_value == no_index) {
        PlanTable table = field.tables[current.last_value_table];
        table.owner = shared;
        last_value = add_table(field, table);
        replaced.push_back(false);
    }
    field.strides.push_back(PlanStride{shared, last_value});
    std::size_t stride = field.strides.size() - 1;
    for (PlanPredictor* user : users) {
        user->stride = stride;
    }
    for (PlanHistory& history : field.histories) {
        if (history.stride != no_index) {
            history.stride = stride;
        }
    }
}

// Replaces the histories of one sequence by a single one with as many
// entries as the highest order of a context over it. Marks the tables it replaces in `replaced`.
void share_history(PlanField& field, Sequence sequence, unsigned order, std::vector<bool>& replaced) {
    std::size_t count = 0;
    std::size_t first = no_index;
    for (std::size_t i = 0; i < field.histories.size(); ++i) {
        if (field.histories[i].sequence == sequence) {
            count += 1;
            first = first == no_index ? i : first;
        }
    }
    if (count == 0) {
        return;
    }
    const PlanTable& current = field.tables[field.histories[first].table];
    if (count == 1 && current.entries == order && current.owner == shared) {
        return;  // shared already
    }
    PlanTable table = current;
    table.owner = shared;
    table.entries = order;
    PlanHistory merged = field.histories[first];
    merged.table = add_table(field, table);
    replaced.push_back(false);

    // Keep the other histories in their order, the merged one where the
    // first of its sequence was; predictors refer to histories by position.
    std::vector<PlanHistory> kept;
    std::vector<std::size_t> position(field.histories.size(), no_index);
    std::size_t merged_position = no_index;
    for (std::size_t i = 0; i < field.histories.size(); ++i) {
        if (field.histories[i].sequence != sequence) {
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

void share_tables(CodePlan& plan) {
    for (PlanField& field : plan.fields) {
        const Field& declared = plan.spec.fields[field.number - 1];
        std::vector<bool> replaced(field.tables.size(), false);
        share_stride(field, replaced);
        for (Sequence sequence : {Sequence::values, Sequence::strides}) {
            share_history(field, sequence, declared.max_context_order(sequence), replaced);
        }

        FieldUse use = field_use(field);
        std::vector<bool> remove_table(field.tables.size());
        for (std::size_t i = 0; i < field.tables.size(); ++i) {
            remove_table[i] = replaced[i] && !use.tables[i];
        }
        use.strides.flip();  // strides nothing reads any more: only those this pass replaced
        remove_tables_and_strides(field, remove_table, use.strides);
    }
}

}  // namespace tcgen
