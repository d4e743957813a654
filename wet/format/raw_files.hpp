#pragma once
// The raw files' reader (<tcgen/wet/raw_trace.hpp>) over any source of their
// bytes: read_raw_trace() reads them from disk; the fuzz target
// fuzz_wet_raw_files serves them from memory, so that every check `wet
// build` makes of its input is reached without a file system.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>
#include "wet/format/raw_edges.hpp"
#include "wet/format/raw_flow.hpp"

namespace tcgen::wet {

// The bytes of the raw file `name` (PREFIX.blocks, ...), asked for once each,
// in the order they are checked, so that one file's bytes are freed before
// the next is read. A required file that cannot be read throws WetError; an
// optional one (PREFIX.regs, PREFIX.syms) that does not exist is nullopt.
using RawFileSource = std::function<std::optional<std::vector<std::uint8_t>>(const std::string& name, bool required)>;

// read_raw_trace(prefix) with the files' bytes from `source`; `prefix` names
// them. Throws WetError as read_raw_trace() does.
RawTrace read_raw_files(const std::string& prefix, const RawFileSource& source);

// read_raw_trace(prefix) without PREFIX.events or PREFIX.edges ever held
// whole. The events are read twice, a piece at a time, first checked and
// counted per node (counted(counts), counts[n] the events of node n), then
// handed to events() in execution order, piece_records at a time; the
// edges are checked beside them. The trace returned has no events, no
// flow and no edges: the flow and the edges are left in their files, read a
// piece at a time by whoever walks them (raw_records.hpp). One check is left to the caller, which meets
// each store's events and its edges anyway: that each edge's store has an
// event at its t_def (refused with store_event_missing() for the first such
// edge, after every other check). Throws WetError as read_raw_trace() does,
// the same message for the same input.
struct StreamedEvents {
    std::size_t piece_records = 65536;
    std::function<void(const std::vector<std::uint64_t>& counts)> counted;
    std::function<void(const RawEvent* events, std::size_t count)> events;
};
struct StreamedRawTrace {
    RawTrace raw;
    RawFlow flow;
    RawEdges edges;
};
StreamedRawTrace read_raw_trace_streamed(const std::string& prefix, const StreamedEvents& streamed);

// The refusal of edge `edge`, whose store node `store` has no event at
// t_def (after the file's name).
std::string store_event_missing(std::size_t edge, std::uint32_t store, std::uint32_t t_def);

}  // namespace tcgen::wet
