#include "generator/backend/context_layout.hpp"

#include <algorithm>

#include "generator/kinds/kind_code.hpp"

namespace tcgen {
namespace {

constexpr unsigned cache_line_bytes = 64;

// A table that is plain lines: the planner's own (a history, a last value)
// or a kind's that says so.
bool plain(const PlanField& field, const PlanTable& table) {
    return table.role != TableRole::lines || field.predictors[table.owner].spec.kind->code().plain_lines();
}

}  // namespace

bool ContextLayout::holds(std::size_t table) const {
    return std::find(tables.begin(), tables.end(), table) != tables.end();
}

ContextLayout context_layout(const PlanField& field) {
    ContextLayout layout;
    for (std::size_t i = 0; i < field.tables.size(); ++i) {
        const PlanTable& table = field.tables[i];
        if (table.first_level && table.lines == field.l1 && table.line_overhead_bytes == 0 && plain(field, table)) {
            layout.tables.push_back(i);
        }
    }
    if (layout.tables.size() < 2) {
        return {};
    }
    std::stable_sort(layout.tables.begin(), layout.tables.end(), [&](std::size_t a, std::size_t b) {
        return field.tables[a].element_bits > field.tables[b].element_bits;
    });
    layout.contexts = field.l1;
    for (std::size_t table : layout.tables) {
        layout.line_bytes += std::uint64_t{field.tables[table].entries} * field.tables[table].element_bits / 8;
    }
    layout.alignment = 1;
    while (layout.alignment < cache_line_bytes && layout.alignment < layout.line_bytes) {
        layout.alignment *= 2;
    }
    layout.context_bytes = (layout.line_bytes + layout.alignment - 1) / layout.alignment * layout.alignment;
    return layout;
}

std::uint64_t allocated_table_bytes(const PlanField& field) {
    const ContextLayout layout = context_layout(field);
    std::uint64_t bytes = field.table_bytes();
    for (std::size_t table : layout.tables) {
        bytes -= field.tables[table].bytes();
    }
    return bytes + layout.contexts * layout.context_bytes;
}

std::uint64_t allocated_table_bytes(const CodePlan& plan) {
    std::uint64_t bytes = 0;
    for (const PlanField& field : plan.fields) {
        bytes += allocated_table_bytes(field);
    }
    return bytes;
}

}  // namespace tcgen
