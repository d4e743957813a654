#pragma once
// How a field's first-level tables lie in memory. The paper's tables are
// separate arrays, and a field with LV lines and histories per L1 line (a
// load value's PC) then reads a cache line of each for every record. The
// plain first-level tables of a field (a kind's own lines where they are
// plain lines, the planner's histories and last values) go instead into one
// struct per L1 line, its context, so that a record reads one cache line
// for all of them. The tables' contents, and so every prediction, are the
// same; only their addresses change (docs/design/log.md, "Contexts in one
// cache line").

#include <cstddef>
#include <cstdint>
#include <vector>

#include "generator/plan/code_plan.hpp"

namespace tcgen {

struct ContextLayout {
    // The tables in the context, widest element first so that no padding
    // falls between them; empty where the field has fewer than two (nothing
    // to put together).
    std::vector<std::size_t> tables;
    std::uint64_t contexts = 0;       // one per L1 line
    std::uint64_t line_bytes = 0;     // the tables' lines of one context
    unsigned alignment = 0;           // the power of two that holds them, at most a cache line
    std::uint64_t context_bytes = 0;  // line_bytes rounded up to the alignment

    bool empty() const { return tables.empty(); }
    bool holds(std::size_t table) const;
};

ContextLayout context_layout(const PlanField& field);

// What the field's tables take allocated: the plan's bytes, with each
// context padded to its alignment.
std::uint64_t allocated_table_bytes(const PlanField& field);
// The same for every field: what the generated program allocates, what its
// header and memory estimate say, and what the tuner holds to
// --max-table-mb.
std::uint64_t allocated_table_bytes(const CodePlan& plan);

}  // namespace tcgen
