#include "generator/plan/code_plan.hpp"

#include <algorithm>
#include <tuple>

#include "generator/plan/sizes.hpp"

namespace tcgen {
namespace {

constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
    return a != 0 && b > saturated / a ? saturated : a * b;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return b > saturated - a ? saturated : a + b;
}

unsigned log2_exact(std::uint64_t power_of_two) {
    unsigned bits = 0;
    while (power_of_two > 1) {
        power_of_two >>= 1;
        ++bits;
    }
    return bits;
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
    hash.fold_bits = log2_exact(field.l2);
    hash.fold_shifts = fold_chunk_shifts(hash.fold_bits, 64);  // the naive plan works in 64 bits
    for (Sequence sequence : {Sequence::values, Sequence::strides}) {
        hash.shifts[static_cast<std::size_t>(sequence)] =
            hash_shift(field.bits, hash.fold_bits, field.max_context_order(sequence));
    }
    return hash;
}

PlanField build_field(const Spec& spec, const Field& field, unsigned offset) {
    PlanField plan;
    plan.number = field.number;
    plan.bits = field.bits;
    plan.offset = offset;
    plan.is_pc = field.number == spec.pc_field;
    plan.l1 = field.l1;
    plan.l2 = field.l2;
    plan.miss_code = field.prediction_count();
    plan.pc_parameter = !plan.is_pc;  // the PC itself is coded before any PC is known
    plan.hash = make_hash_plan(field);

    unsigned slot = 0;
    for (const Predictor& predictor : field.predictors) {
        PlanPredictor planned;
        planned.spec = predictor;
        planned.first_slot = slot;
        slot += predictor.entries;
        plan.predictors.push_back(planned);
        predictor.kind->add_tables(plan, plan.predictors.size() - 1);
    }
    // A generator that treats every field alike tracks every field's last
    // value; dead-code removal drops it where no stride reads it.
    if (plan.strides.empty()) {
        PlanTable last_value;
        last_value.role = TableRole::last_value;
        last_value.lines = field.l1;
        add_table(plan, last_value);
    }
    return plan;
}

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

std::vector<unsigned> fold_chunk_shifts(unsigned fold_bits, unsigned value_bits) {
    std::vector<unsigned> shifts;
    if (fold_bits > 0) {
        for (unsigned shift = fold_bits; shift < value_bits; shift += fold_bits) {
            shifts.push_back(shift);
        }
    }
    return shifts;
}

std::size_t add_table(PlanField& field, const PlanTable& table) {
    field.tables.push_back(table);
    return field.tables.size() - 1;
}

void add_own_lines(PlanField& field, std::size_t predictor, bool first_level, std::uint64_t lines) {
    PlanPredictor& owner = field.predictors[predictor];
    PlanTable table;
    table.role = TableRole::lines;
    table.sequence = owner.spec.kind->sequence();
    table.owner = predictor;
    table.first_level = first_level;
    table.lines = lines;
    table.entries = owner.spec.entries;
    owner.table = add_table(field, table);
}

void add_own_stride(PlanField& field, std::size_t predictor) {
    PlanTable last_value;
    last_value.role = TableRole::last_value;
    last_value.owner = predictor;
    last_value.lines = field.l1;
    field.strides.push_back(PlanStride{predictor, add_table(field, last_value)});
    field.predictors[predictor].stride = field.strides.size() - 1;
}

void add_own_context(PlanField& field, std::size_t predictor) {
    const Predictor& spec = field.predictors[predictor].spec;
    PlanTable table;
    table.role = TableRole::history;
    table.sequence = spec.kind->sequence();
    table.owner = predictor;
    table.lines = field.l1;
    table.entries = spec.order;
    PlanHistory history;
    history.sequence = table.sequence;
    history.table = add_table(field, table);
    if (history.sequence == Sequence::strides) {
        add_own_stride(field, predictor);
        history.stride = field.predictors[predictor].stride;
    }
    field.histories.push_back(history);
    field.predictors[predictor].history = field.histories.size() - 1;
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

void remove_tables_and_strides(PlanField& field, const std::vector<bool>& remove_table,
                               const std::vector<bool>& remove_stride) {
    std::vector<std::size_t> table_index = drop_marked(field.tables, remove_table);
    std::vector<std::size_t> stride_index = drop_marked(field.strides, remove_stride);
    auto renumber = [](std::size_t& index, const std::vector<std::size_t>& new_index) {
        if (index != no_index) {
            index = new_index[index];
        }
    };
    for (PlanStride& stride : field.strides) {
        renumber(stride.last_value_table, table_index);
    }
    for (PlanHistory& history : field.histories) {
        renumber(history.table, table_index);
        renumber(history.stride, stride_index);
    }
    for (PlanPredictor& predictor : field.predictors) {
        renumber(predictor.table, table_index);
        renumber(predictor.stride, stride_index);
    }
}

std::uint64_t PlanTable::bytes() const {
    std::uint64_t values = saturating_multiply(saturating_multiply(lines, entries), element_bits / 8);
    return saturating_add(values, saturating_multiply(lines, line_overhead_bytes));
}

std::uint64_t PlanField::table_bytes() const {
    std::uint64_t total = 0;
    for (const PlanTable& table : tables) {
        total = saturating_add(total, table.bytes());
    }
    return total;
}

LineUpdate PlanField::line_update(const PlanTable& table) const {
    // Under smart update a one-entry line compared before it is written ends
    // up holding the value either way, so the comparison is dead code.
    if (table.entries == 1 && (update == UpdatePolicy::always_shift || !compare_single_entry_lines)) {
        return LineUpdate::overwrite;
    }
    return update == UpdatePolicy::smart ? LineUpdate::smart : LineUpdate::shift;
}

std::uint64_t CodePlan::table_bytes() const {
    std::uint64_t total = 0;
    for (const PlanField& field : fields) {
        total = saturating_add(total, field.table_bytes());
    }
    return total;
}

std::vector<std::uint64_t> CodePlan::stream_bytes_per_record() const {
    std::vector<std::uint64_t> bytes(streams.size(), 0);
    for (const PlanField& field : fields) {
        for (const std::size_t stream : {field.codes_stream, field.misses_stream}) {
            bytes[stream] += streams[stream].element_bits / 8;
        }
    }
    // The codes stream also holds each block's run decision and its runs or
    // record matches: at most four bytes a record (runtime/record_runs.hpp).
    bytes[0] += 4;
    if (record_ids()) {
        bytes[ids_stream()] = 4;
    }
    return bytes;
}

bool operator==(const PlanTable& a, const PlanTable& b) {
    return std::tie(a.role, a.sequence, a.owner, a.first_level, a.lines, a.entries, a.element_bits,
                    a.line_overhead_bytes) == std::tie(b.role, b.sequence, b.owner, b.first_level, b.lines,
                                                       b.entries, b.element_bits, b.line_overhead_bytes);
}

bool operator==(const PlanStride& a, const PlanStride& b) {
    return a.owner == b.owner && a.last_value_table == b.last_value_table;
}

bool operator==(const PlanHistory& a, const PlanHistory& b) {
    return std::tie(a.table, a.sequence, a.stride, a.stores_hashes) ==
           std::tie(b.table, b.sequence, b.stride, b.stores_hashes);
}

bool operator==(const PlanPredictor& a, const PlanPredictor& b) {
    return a.spec == b.spec && std::tie(a.first_slot, a.table, a.history, a.stride) ==
                                   std::tie(b.first_slot, b.table, b.history, b.stride);
}

bool operator==(const HashPlan& a, const HashPlan& b) {
    return std::tie(a.fold_bits, a.fold_shifts, a.shifts) == std::tie(b.fold_bits, b.fold_shifts, b.shifts);
}

bool operator==(const PlanStream& a, const PlanStream& b) {
    return std::tie(a.field, a.role, a.element_bits) == std::tie(b.field, b.role, b.element_bits);
}

bool operator==(const PlanField& a, const PlanField& b) {
    return std::tie(a.number, a.bits, a.offset, a.is_pc, a.l1, a.l2, a.miss_code, a.pc_parameter, a.update,
                    a.compare_single_entry_lines, a.work_bits, a.hash, a.tables, a.strides, a.histories,
                    a.predictors, a.codes_stream, a.misses_stream) ==
           std::tie(b.number, b.bits, b.offset, b.is_pc, b.l1, b.l2, b.miss_code, b.pc_parameter, b.update,
                    b.compare_single_entry_lines, b.work_bits, b.hash, b.tables, b.strides, b.histories,
                    b.predictors, b.codes_stream, b.misses_stream);
}

bool operator==(const CodePlan& a, const CodePlan& b) {
    return std::tie(a.header_bytes, a.record_bytes, a.records_per_block, a.pc_field, a.fields, a.coding_order,
                    a.streams, a.applied_passes) == std::tie(b.header_bytes, b.record_bytes, b.records_per_block,
                                                             b.pc_field, b.fields, b.coding_order, b.streams,
                                                             b.applied_passes);
}

CodePlan build_code_plan(const Spec& spec) {
    CodePlan plan;
    plan.spec = spec;
    plan.header_bytes = spec.header_bytes();
    plan.record_bytes = spec.record_bytes();
    plan.records_per_block = records_per_block(spec.record_bytes(), spec.record_ids);
    plan.pc_field = spec.pc_field;
    unsigned offset = 0;
    // One stream of codes for every field, a record's codes side by side in
    // coding order, then each field's misses. Where records repeat, so do
    // their codes together, and a back-end then matches a run of records in
    // one piece instead of field by field: 3-12 % smaller than a code stream
    // per field on the corpus's ChampSim, branch and address traces
    // (docs/design/log.md, "One code stream").
    plan.streams.push_back(PlanStream{0, StreamRole::codes, 64});
    for (const Field& field : spec.fields) {
        PlanField planned = build_field(spec, field, offset);
        offset += field.bytes();
        planned.codes_stream = 0;
        planned.misses_stream = plan.streams.size();
        plan.streams.push_back(PlanStream{field.number, StreamRole::misses, 64});
        plan.fields.push_back(std::move(planned));
    }
    // The ids last, so that the other streams keep their numbers.
    if (spec.record_ids) {
        plan.streams.push_back(PlanStream{0, StreamRole::ids, 32});
    }
    plan.coding_order.push_back(spec.pc_field - 1);
    for (std::size_t i = 0; i < plan.fields.size(); ++i) {
        if (!plan.fields[i].is_pc) {
            plan.coding_order.push_back(i);
        }
    }
    return plan;
}

}  // namespace tcgen
