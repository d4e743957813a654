#include "generator/plan/code_plan.hpp"

#include <algorithm>

#include "generator/plan/table_layout.hpp"

namespace tcgen {
namespace {

constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
    return a != 0 && b > saturated / a ? saturated : a * b;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return b > saturated - a ? saturated : a + b;
}

// The shift of the select-fold-shift-xor hash (paper §5.3). Folded values
// have min(width, b) bits and the order-x index needs b + x − 1, so each older
// value is shifted s more bits, s chosen so that the oldest value of the
// highest order reaches the top index bit: 1 for wide fields, more for small
// ones, whose tables would otherwise be mostly unreachable.
unsigned hash_shift(unsigned field_bits, unsigned fold_bits, unsigned order) {
    unsigned index_bits = fold_bits + order - 1;
    unsigned folded_bits = std::min(field_bits, fold_bits);
    if (order < 2 || folded_bits + (order - 1) >= index_bits) {
        return 1;
    }
    return (index_bits - folded_bits + order - 2) / (order - 1);
}

HashPlan make_hash_plan(const Field& field) {
    HashPlan hash;
    hash.fold_bits = hash_index_bits(field, 1);
    hash.fold_shifts = fold_chunk_shifts(hash.fold_bits, 64);  // the naive plan works in 64 bits
    hash.fcm_shift = hash_shift(field.bits, hash.fold_bits, max_order(field, PredictorKind::fcm));
    hash.dfcm_shift = hash_shift(field.bits, hash.fold_bits, max_order(field, PredictorKind::dfcm));
    return hash;
}

std::string kind_stem(const Predictor& predictor) {
    switch (predictor.kind) {
        case PredictorKind::last_value:
            return "lv";
        case PredictorKind::fcm:
            return "fcm" + std::to_string(predictor.order);
        case PredictorKind::dfcm:
            return "dfcm" + std::to_string(predictor.order);
    }
    return "?";
}

std::size_t add_table(PlanField& field, std::string name, TableContent content, bool first_level, std::uint64_t lines,
                      unsigned entries) {
    PlanTable table;
    table.name = std::move(name);
    table.content = content;
    table.first_level = first_level;
    table.lines = lines;
    table.entries = entries;
    field.tables.push_back(table);
    return field.tables.size() - 1;
}

PlanField build_field(const Spec& spec, const Field& field, unsigned offset) {
    PlanField plan;
    plan.number = field.number;
    plan.bits = field.bits;
    plan.offset = offset;
    plan.is_pc = field.number == spec.pc_field;
    plan.l1 = field.l1;
    plan.l2 = field.l2;
    plan.pc_parameter = !plan.is_pc;  // the PC itself is coded before any PC is known
    plan.hash = make_hash_plan(field);

    unsigned slot = 0;
    for (std::size_t i = 0; i < field.predictors.size(); ++i) {
        const Predictor& spec_predictor = field.predictors[i];
        // A repeated predictor gets "_2", "_3": its tables are its own.
        std::string stem = kind_stem(spec_predictor);
        auto repeats =
            std::count_if(field.predictors.begin(), field.predictors.begin() + static_cast<std::ptrdiff_t>(i),
                          [&](const Predictor& p) { return kind_stem(p) == stem; });
        if (repeats > 0) {
            stem += "_" + std::to_string(repeats + 1);
        }

        PlanPredictor predictor;
        predictor.kind = spec_predictor.kind;
        predictor.order = spec_predictor.order;
        predictor.entries = spec_predictor.entries;
        predictor.first_slot = slot;
        slot += spec_predictor.entries;
        if (spec_predictor.kind == PredictorKind::last_value) {
            predictor.table = add_table(plan, stem + "_table", TableContent::values, true, field.l1, predictor.entries);
            plan.predictors.push_back(predictor);
            continue;
        }
        bool strides = spec_predictor.kind == PredictorKind::dfcm;
        unsigned shift = spec_predictor.order - 1;
        std::uint64_t lines = shift >= 64 ? saturated : saturating_multiply(field.l2, std::uint64_t{1} << shift);
        predictor.table = add_table(plan, stem + "_table", strides ? TableContent::strides : TableContent::values,
                                    false, lines, predictor.entries);
        PlanHistory history;
        history.kind = spec_predictor.kind;
        history.table = add_table(plan, stem + "_history", TableContent::history, true, field.l1, predictor.order);
        if (strides) {
            std::size_t last_value = add_table(plan, stem + "_last_value", TableContent::last_value, true, field.l1, 1);
            plan.strides.push_back(PlanStride{stem + "_stride", last_value});
            predictor.stride = plan.strides.size() - 1;
            history.stride = predictor.stride;
        }
        plan.histories.push_back(history);
        predictor.history = plan.histories.size() - 1;
        plan.predictors.push_back(predictor);
    }
    // A generator that treats every field alike tracks every field's last
    // value; dead-code removal drops it where no DFCM reads it.
    if (plan.strides.empty()) {
        add_table(plan, "last_value", TableContent::last_value, true, field.l1, 1);
    }
    return plan;
}

const char* content_name(TableContent content) {
    switch (content) {
        case TableContent::values:
            return "values";
        case TableContent::strides:
            return "strides";
        case TableContent::history:
            return "history";
        case TableContent::last_value:
            return "last value";
    }
    return "?";
}

std::string type_name(unsigned bits) {
    return "u" + std::to_string(bits);
}

std::string readers_of_table(const PlanField& field, std::size_t table) {
    std::string readers;
    auto add = [&](const std::string& reader) { readers += (readers.empty() ? "" : ", ") + reader; };
    for (const PlanPredictor& predictor : field.predictors) {
        std::string name = predictor_name(Predictor{predictor.kind, predictor.order, predictor.entries});
        if (predictor.table == table) {
            add(name);
        }
        if (predictor.history != no_index && field.histories[predictor.history].table == table) {
            add(name + " (order " + std::to_string(predictor.order) + ")");
        }
        if (predictor.stride != no_index && field.strides[predictor.stride].last_value_table == table) {
            add(name + " (last value)");
        }
    }
    return readers.empty() ? "nothing" : readers;
}

}  // namespace

std::vector<unsigned> fold_chunk_shifts(unsigned fold_bits, unsigned value_bits) {
    std::vector<unsigned> shifts;
    if (fold_bits > 0) {
        for (unsigned shift = fold_bits; shift < value_bits; shift += fold_bits) {
            shifts.push_back(shift);
        }
    }
    return shifts;
}

FieldUse field_use(const PlanField& field) {
    FieldUse use{std::vector<bool>(field.tables.size(), false), std::vector<bool>(field.strides.size(), false)};
    for (const PlanPredictor& predictor : field.predictors) {
        use.tables[predictor.table] = true;
        if (predictor.stride != no_index) {
            use.strides[predictor.stride] = true;
        }
    }
    for (const PlanHistory& history : field.histories) {
        use.tables[history.table] = true;
        if (history.stride != no_index) {
            use.strides[history.stride] = true;
        }
    }
    for (std::size_t i = 0; i < field.strides.size(); ++i) {
        if (use.strides[i]) {
            use.tables[field.strides[i].last_value_table] = true;
        }
    }
    return use;
}

namespace {

// Drops the marked items, keeping the others in order; returns each old
// index's new one (no_index for a dropped item).
template <class Item>
std::vector<std::size_t> drop_marked(std::vector<Item>& items, const std::vector<bool>& marked) {
    std::vector<std::size_t> new_index(items.size(), no_index);
    std::vector<Item> kept;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (!marked[i]) {
            new_index[i] = kept.size();
            kept.push_back(std::move(items[i]));
        }
    }
    items = std::move(kept);
    return new_index;
}

}  // namespace

void remove_tables_and_strides(PlanField& field, const std::vector<bool>& remove_table,
                               const std::vector<bool>& remove_stride) {
    std::vector<std::size_t> table_index = drop_marked(field.tables, remove_table);
    std::vector<std::size_t> stride_index = drop_marked(field.strides, remove_stride);
    for (PlanStride& stride : field.strides) {
        stride.last_value_table = table_index[stride.last_value_table];
    }
    for (PlanHistory& history : field.histories) {
        history.table = table_index[history.table];
        if (history.stride != no_index) {
            history.stride = stride_index[history.stride];
        }
    }
    for (PlanPredictor& predictor : field.predictors) {
        predictor.table = table_index[predictor.table];
        if (predictor.stride != no_index) {
            predictor.stride = stride_index[predictor.stride];
        }
    }
}

std::uint64_t PlanTable::bytes() const {
    return saturating_multiply(saturating_multiply(lines, entries), element_bits / 8);
}

unsigned PlanField::prediction_count() const {
    unsigned count = 0;
    for (const PlanPredictor& predictor : predictors) {
        count += predictor.entries;
    }
    return count;
}

std::uint64_t PlanField::table_bytes() const {
    std::uint64_t total = 0;
    for (const PlanTable& table : tables) {
        total = saturating_add(total, table.bytes());
    }
    return total;
}

std::uint64_t CodePlan::table_bytes() const {
    std::uint64_t total = 0;
    for (const PlanField& field : fields) {
        total = saturating_add(total, field.table_bytes());
    }
    return total;
}

CodePlan build_code_plan(const Spec& spec) {
    CodePlan plan;
    plan.header_bytes = spec.header_bytes();
    plan.record_bytes = spec.record_bytes();
    plan.records_per_block = records_per_block(spec);
    plan.pc_field = spec.pc_field;
    unsigned offset = 0;
    for (const Field& field : spec.fields) {
        plan.fields.push_back(build_field(spec, field, offset));
        offset += field.bytes();
    }
    return plan;
}

std::string describe_field(const PlanField& field) {
    std::string text;
    text += "field " + std::to_string(field.number) + ": " + std::to_string(field.bits) + " bits at byte " +
            std::to_string(field.offset) + (field.is_pc ? ", the PC" : "") + "; L1 = " + std::to_string(field.l1) +
            ", L2 = " + std::to_string(field.l2) + "\n";
    text += "  types: values and misses " + type_name(field.work_bits) + ", codes " + type_name(field.code_bits) + "\n";
    if (field.smart_update) {
        text += std::string("  update: smart (only when the first entry differs); one-entry lines ") +
                (field.check_single_entry_lines ? "compared first" : "overwritten") + "\n";
    } else {
        text += "  update: always shift\n";
    }
    text += std::string("  pc parameter: ") + (field.pc_parameter ? "yes" : "no") + "\n";
    for (const PlanPredictor& predictor : field.predictors) {
        unsigned last = predictor.first_slot + predictor.entries - 1;
        text += std::string(last == predictor.first_slot ? "  code " : "  codes ") + std::to_string(predictor.first_slot) +
                (last == predictor.first_slot ? "" : "-" + std::to_string(last)) + ": " +
                predictor_name(Predictor{predictor.kind, predictor.order, predictor.entries}) + " reads " +
                field.tables[predictor.table].name + "\n";
    }
    text += "  code " + std::to_string(field.prediction_count()) + ": miss\n";
    for (std::size_t i = 0; i < field.tables.size(); ++i) {
        const PlanTable& table = field.tables[i];
        text += "  table " + table.name + ": " + content_name(table.content) + ", " +
                (table.first_level ? "first level" : "second level") + ", " + with_thousands_separators(table.lines) +
                (table.lines == 1 ? " line x " : " lines x ") + std::to_string(table.entries) + " " +
                type_name(table.element_bits) + " = " + with_thousands_separators(table.bytes()) + " bytes; read by " +
                readers_of_table(field, i) + "\n";
    }
    for (const PlanStride& stride : field.strides) {
        text += "  stride " + stride.name + " = value - " + field.tables[stride.last_value_table].name + "[0]\n";
    }
    for (const PlanHistory& history : field.histories) {
        const PlanTable& table = field.tables[history.table];
        text +=
            "  history " + table.name + ": " +
            (history.kind == PredictorKind::fcm ? "values" : "strides (" + field.strides[history.stride].name + ")") +
            ", " + (history.stores_hashes ? "incremental hashes" : "raw, hashed from scratch") + ", orders 1-" +
            std::to_string(table.entries) + "\n";
    }
    if (!field.histories.empty()) {
        text += "  hash: fold to " + std::to_string(field.hash.fold_bits) + " bits";
        for (unsigned shift : field.hash.fold_shifts) {
            text += " ^ (v >> " + std::to_string(shift) + ")";
        }
        text += "; shift " + std::to_string(field.hash.fcm_shift) + " (fcm), " + std::to_string(field.hash.dfcm_shift) +
                " (dfcm); order-k index has " + std::to_string(field.hash.fold_bits) + " + k - 1 bits\n";
    }
    text += "  tables: " + with_thousands_separators(field.table_bytes()) + " bytes\n";
    return text;
}

std::string dump_code_plan(const CodePlan& plan) {
    std::string text = "passes:";
    for (const std::string& pass : plan.applied_passes) {
        text += " " + pass;
    }
    text += plan.applied_passes.empty() ? " none\n" : "\n";
    text += "record: " + std::to_string(plan.record_bytes) + " bytes, header " + std::to_string(plan.header_bytes) +
            " bytes, " + std::to_string(plan.records_per_block) + " records per block, PC = field " +
            std::to_string(plan.pc_field) + "\n";
    for (const PlanField& field : plan.fields) {
        text += "\n" + describe_field(field);
    }
    text += "\ntotal tables: " + with_thousands_separators(plan.table_bytes()) + " bytes\n";
    return text;
}

}  // namespace tcgen
