#pragma once
// The raw files of a Whole Execution Trace as `tcgen-tracer --wet=PREFIX`
// writes them (format v2, docs/wet-streams.md): PREFIX.blocks, .flow, .nodes,
// .events, .edges and, when present, .regs, read whole into memory and
// checked, so that whatever is built from a RawTrace may trust it.
//
//     tcgen::wet::RawTrace raw = tcgen::wet::read_raw_trace("/tmp/run");
//     for (const auto& event : raw.events) { ... }
//
// Timestamps count executed blocks from 1: the block executed at t is
// raw.blocks[raw.flow[t - 1]], and every event and edge names the t of its
// block's execution. read_raw_trace() checks every file's magic and size,
// every id against the table it indexes, every timestamp against the flow
// (an event's node's block is the block executed at its t; t never
// decreases; a node has at most one event per t), and every edge against
// the events (its load and its store each have an event at its timestamps).
// A failed check throws WetError naming the file: "PREFIX.events: error:
// event 17: node 9 is not in block 3 executed at t 4".
//
// Memory: the files' records, plus 4 bytes per event while the edges are
// checked.

#include <cstdint>
#include <string>
#include <vector>

#include <tcgen/file_error.hpp>

namespace tcgen::wet {

// Every error of the WET library: what() is one line, "FILE: error: WHAT".
using WetError = tcgen::FileError;

// A static block: a straight run of guest instructions executed as one piece.
struct RawBlock {
    std::uint64_t pc = 0;            // its first instruction
    std::uint32_t bytes = 0;         // code bytes: pc + bytes is the fall-through / return address
    std::uint16_t instructions = 0;  // guest instructions in it
    char end = 'J';                  // 'C' ends in a call, 'R' in a return, 'J' anything else
};

// A static memory access (a WET node): one load or store of one instruction.
struct RawNode {
    std::uint32_t block = 0;  // the block it belongs to
    std::uint64_t pc = 0;     // its instruction
    char access = 'L';        // 'L' load, 'S' store
    std::uint8_t slot = 0;    // its position among the traced accesses of its instruction
    std::uint16_t size = 0;   // bytes accessed
};

// One executed load or store, in execution order.
struct RawEvent {
    std::uint32_t node = 0;
    std::uint32_t t = 0;  // the timestamp of its block's execution
    std::uint64_t address = 0;
    std::uint64_t value = 0;  // the first min(size, 8) bytes, little-endian
};

// One load whose bytes a traced store wrote (the store of its first byte).
struct RawEdge {
    std::uint32_t use = 0;  // the load's node
    std::uint32_t def = 0;  // the store's node
    std::uint32_t t_use = 0;
    std::uint32_t t_def = 0;  // <= t_use; equal when the store ran earlier in the same block execution
};

// The register dataflow of the static blocks (PREFIX.regs): per block its
// operations in execution order — its memory accesses (its nodes, each once,
// by id), the instructions that write registers, and its end (the branch),
// last — each with the sources of the values it reads, and per register slot
// the operation of the block that writes it last. A register slot is 8 bytes
// of the guest's register file (offset / 8); the instruction and stack
// pointers are not tracked.
struct RawOp {
    char kind = 'B';         // 'L', 'S' a memory access; 'R' an instruction writing registers; 'B' the block's end
    std::uint64_t what = 0;  // the node (L, S); the instruction's pc (R, B: the block's last instruction)
};

struct RawSource {
    char from = 'O';          // 'O': an earlier op of the same block execution;
                              // 'G': the register slot as the block execution found it
    std::uint32_t index = 0;  // the op's index in its block, or the slot
};

struct RawWrite {
    std::uint32_t slot = 0;
    std::uint32_t op = 0;  // the index, in its block, of the 'R' op that writes the slot last
};

struct RawDataflow {
    // Block b's ops are ops[first_op[b] .. first_op[b + 1]); op i's sources
    // sources[first_source[i] .. first_source[i + 1]); b's writes, by slot,
    // writes[first_write[b] .. first_write[b + 1]).
    std::vector<std::uint32_t> first_op;
    std::vector<RawOp> ops;
    std::vector<std::uint32_t> first_source;
    std::vector<RawSource> sources;
    std::vector<std::uint32_t> first_write;
    std::vector<RawWrite> writes;

    bool empty() const { return first_op.empty(); }
};

// The largest register slot a dataflow may name.
constexpr std::uint32_t max_register_slot = 4095;

// The dataflow a trace without PREFIX.regs stands in with (docs/wet.md,
// "Slices"): per block its nodes then its end; a store reads every earlier
// load of its block, the end every load; no register is written.
RawDataflow stand_in_dataflow(const std::vector<RawBlock>& blocks, const std::vector<RawNode>& nodes);

struct RawTrace {
    std::vector<RawBlock> blocks;  // by id
    std::vector<std::uint32_t> flow;  // flow[t - 1] = the block executed at t
    std::vector<RawNode> nodes;       // by id; within a block, ids increase in execution order
    std::vector<RawEvent> events;     // in execution order
    std::vector<RawEdge> edges;       // in event order
    RawDataflow dataflow;             // PREFIX.regs; empty when the trace has none
    std::string symbols;              // PREFIX.syms's lines after its magic; empty when the trace has none
};

// Reads and checks PREFIX.blocks, .flow, .nodes, .events and .edges, and
// PREFIX.regs and PREFIX.syms when they exist. Throws WetError on a missing,
// short, foreign or inconsistent file.
RawTrace read_raw_trace(const std::string& prefix);

// The checks of read_raw_trace() on records already in memory; `prefix`
// only names the files in messages. Throws WetError.
void check_raw_trace(const RawTrace& raw, const std::string& prefix);

// The checks of a dataflow against its blocks and nodes (each block's ops:
// its nodes once each by id, its end last, instructions inside the block,
// sources before their op, slots in range, writes by increasing slot naming
// 'R' ops). `file` names it in the WetError thrown.
void check_dataflow(const RawDataflow& dataflow, const std::vector<RawBlock>& blocks, const std::vector<RawNode>& nodes,
                    const std::string& file);

}  // namespace tcgen::wet
