#pragma once
// The queries of the `wet` command that are more than one call of the WET
// object (`wet top`, `wet def`, where `def` and `slice` start), kept in the
// library so that the command and the C interface (<tcgen/tcgen_wet.h>)
// answer alike and refuse alike, with the same one-line WetError.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tcgen/wet/whole_execution_trace.hpp>

namespace tcgen::wet {

// One row of `wet top`: a block ('B': its executions, first pc and id) or
// a load or store instruction ('L', 'S': its distinct timestamps; id 0).
struct TopRow {
    char kind = 'B';
    std::uint64_t executions = 0;
    std::uint64_t pc = 0;
    std::uint32_t id = 0;
};

// The `count` most executed blocks, then loads, then stores; most executed
// first, ties by pc.
std::vector<TopRow> top(const WholeExecutionTrace& wet, std::uint64_t count);

// Where a def or a slice starts: pc's instance-th distinct timestamp
// (1-based), or timestamp t.
struct QueryStart {
    std::uint64_t pc = 0;
    bool by_instance = true;
    std::uint64_t instance = 0;
    std::uint32_t t = 0;
};

// The start at timestamp t, which `option` ("--at=0x10") gave; throws
// WetError "--at=... is outside 1..N" unless 1 <= t <= executed().
QueryStart start_at(const WholeExecutionTrace& wet, std::uint64_t pc, std::uint64_t t, const std::string& option);

// The def of one load of a pc at one timestamp (`wet def`'s line).
struct LoadDef {
    std::uint32_t t = 0;     // the load's
    std::uint8_t slot = 0;   // the load's
    std::optional<Def> def;  // none: no store wrote what it read
};

// The defs of pc's loads executed at the start, by slot. Throws WetError
// when no access has pc, pc is a store's, the instance is out of range or
// no load of pc executed at t.
std::vector<LoadDef> load_defs(const WholeExecutionTrace& wet, const QueryStart& start);

// slice_walk or slice_walk_at, as the start says.
WholeExecutionTrace::SliceWalk slice_walk(const WholeExecutionTrace& wet, const QueryStart& start,
                                          const SliceWindow& window);

}  // namespace tcgen::wet
