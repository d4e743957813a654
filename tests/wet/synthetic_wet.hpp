#pragma once
// A small synthetic run in the raw WET format v2, made by the tests
// themselves: a main loop with a branch, a call to a function with its own
// branch, a block entered in the middle of another (overlapping blocks share
// pcs), a read-modify-write instruction (a load and a store at one pc), a
// load that some executions skip, stores and loads over a few addresses so
// that defs are both local (same block execution) and remote, one address
// read long after the store that wrote it last ran many times since, and a
// cap that cuts the last block short. Deterministic for a seed.

#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

namespace synthetic_wet {

using tcgen::wet::RawBlock;
using tcgen::wet::RawEdge;
using tcgen::wet::RawEvent;
using tcgen::wet::RawNode;
using tcgen::wet::RawTrace;

// `iterations` trips round the main loop; the events stop after `event_cap`
// (0: no cap), in the middle of a block execution.
inline RawTrace make_trace(unsigned iterations, std::uint64_t seed, std::size_t event_cap = 0) {
    RawTrace raw;
    // main: 0 entry, 1 loop head, 2 | 3 arms, 4 calls f, 5 after the call (4's return address), 6 exit
    // f: 7 entry, 8 | 9 arms, 10 returns; 11 starts 8 bytes into block 2.
    const std::uint64_t pcs[] = {0x1000, 0x1020, 0x1040, 0x1060, 0x1080, 0x10a0, 0x10c0,
                                 0x2000, 0x2020, 0x2040, 0x2060, 0x1048};
    const char ends[] = {'J', 'J', 'J', 'J', 'C', 'J', 'J', 'J', 'J', 'J', 'R', 'J'};
    for (int block = 0; block < 12; ++block) {
        raw.blocks.push_back(RawBlock{pcs[block], block == 11 ? 0x18u : 0x20u, 4, ends[block]});
    }
    // Nodes per block: (offset, access, slot), in execution order.
    struct Shape {
        int block;
        std::uint64_t offset;
        char access;
        std::uint8_t slot;
    };
    const std::vector<Shape> shapes = {
        {0, 0x4, 'S', 0},  {1, 0x0, 'L', 0},  {1, 0x8, 'L', 0},  {2, 0x4, 'L', 0},  {2, 0x8, 'L', 0},
        {2, 0x8, 'S', 1},  {2, 0x10, 'S', 0}, {3, 0x0, 'S', 0},  {3, 0xc, 'L', 0},  {4, 0x4, 'S', 0},
        {5, 0x2, 'L', 0},  {5, 0x6, 'S', 0},  {5, 0x8, 'L', 0},  {6, 0x0, 'L', 0},  {7, 0x0, 'S', 0},
        {7, 0x4, 'L', 0},  {8, 0x0, 'L', 0},  {8, 0x4, 'S', 0},  {9, 0x8, 'S', 0},  {10, 0x0, 'L', 0},
        {11, 0x0, 'L', 0}, {11, 0x0, 'S', 1}, {11, 0x8, 'S', 0},
    };
    for (const Shape& shape : shapes) {
        raw.nodes.push_back(RawNode{static_cast<std::uint32_t>(shape.block), pcs[shape.block] + shape.offset, shape.access,
                                    shape.slot, 8});
    }
    std::vector<std::vector<std::uint32_t>> block_nodes(12);
    for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
        block_nodes[raw.nodes[node].block].push_back(node);
    }
    std::mt19937_64 random(seed);
    const auto execute = [&](std::uint32_t block) { raw.flow.push_back(block); };
    execute(0);
    for (unsigned trip = 0; trip < iterations; ++trip) {
        execute(1);
        const auto arm = random() % 3;
        execute(arm == 0 ? 2 : arm == 1 ? 3 : 11);
        execute(4);
        execute(7);
        execute(random() % 2 == 0 ? 8 : 9);
        execute(10);
        execute(5);
    }
    execute(6);
    // Events: the last store to each address is the def of a load of it.
    std::map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> last_store;  // address -> (node, t)
    std::map<std::uint64_t, std::uint64_t> memory;
    for (std::uint32_t t = 1; t <= raw.flow.size(); ++t) {
        for (const std::uint32_t node : block_nodes[raw.flow[t - 1]]) {
            if (event_cap != 0 && raw.events.size() == event_cap) {
                return raw;  // the WET is full: every file stops, the flow keeps the cut block
            }
            if (node == 12 && random() % 4 == 0) {
                continue;  // a guarded load that did not run
            }
            const RawNode& shape = raw.nodes[node];
            std::uint64_t address = 0x8000 + 8 * (random() % 6);
            if ((node == 14 && t < 20) || (node == 19 && random() % 8 == 0)) {
                address = 0x9000;  // stored by f's entry early only, read long after: a def far back
            }
            if (node == 5 || node == 21) {
                address = raw.events.back().address;  // read-modify-write: the store hits the load's address
            }
            RawEvent event{node, t, address, 0};
            if (shape.access == 'S') {
                event.value = node == 5 || node == 21 ? raw.events.back().value + 1 : random() % 1000;
                memory[address] = event.value;
                last_store[address] = {node, t};
            } else {
                const auto found = last_store.find(address);
                event.value = memory.count(address) != 0 ? memory[address] : 0x5a5a;
                if (found != last_store.end()) {
                    raw.edges.push_back(RawEdge{node, found->second.first, t, found->second.second});
                }
            }
            raw.events.push_back(event);
        }
    }
    return raw;
}

// A random register dataflow for `raw`'s blocks: instructions that write
// registers (R) between its nodes, sources among the earlier ops and the
// slots 0-7, each slot 0-5 written by some blocks; slot 6 is never written
// and slot 7 only by the entry block (which runs once): its reads go back
// to the start of the run.
inline tcgen::wet::RawDataflow random_dataflow(const RawTrace& raw, std::uint64_t seed) {
    using tcgen::wet::RawOp;
    using tcgen::wet::RawSource;
    using tcgen::wet::RawWrite;
    std::mt19937_64 random(seed);
    tcgen::wet::RawDataflow dataflow;
    dataflow.first_op.push_back(0);
    dataflow.first_source.push_back(0);
    dataflow.first_write.push_back(0);
    for (std::uint32_t block = 0; block < raw.blocks.size(); ++block) {
        const RawBlock& shape = raw.blocks[block];
        const auto first = static_cast<std::uint32_t>(dataflow.ops.size());
        std::vector<std::uint32_t> instructions;  // the R ops
        const auto add_op = [&](char kind, std::uint64_t what) {
            const auto op = static_cast<std::uint32_t>(dataflow.ops.size()) - first;
            for (std::uint64_t count = random() % 4; count > 0; --count) {
                const bool earlier = op > 0 && random() % 2 == 0;
                const auto slot = static_cast<std::uint32_t>(block != 0 && random() % 5 == 0 ? 7 : random() % 7);
                dataflow.sources.push_back(earlier ? RawSource{'O', static_cast<std::uint32_t>(random() % op)}
                                                   : RawSource{'G', slot});
            }
            dataflow.ops.push_back(RawOp{kind, what});
            dataflow.first_source.push_back(static_cast<std::uint32_t>(dataflow.sources.size()));
            if (kind == 'R') {
                instructions.push_back(op);
            }
        };
        const auto instruction_pc = [&] { return shape.pc + 4 * (random() % (shape.bytes / 4)); };
        for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
            if (raw.nodes[node].block == block) {
                if (random() % 2 == 0) {
                    add_op('R', instruction_pc());
                }
                add_op(raw.nodes[node].access, node);
            }
        }
        if (block == 0 || random() % 2 == 0) {
            add_op('R', instruction_pc());
        }
        add_op('B', shape.pc + shape.bytes - 4);
        for (std::uint32_t slot = 0; slot < 8 && !instructions.empty(); ++slot) {
            if ((slot < 6 && random() % 3 != 0) || (slot == 7 && block == 0)) {
                dataflow.writes.push_back(RawWrite{slot, instructions[random() % instructions.size()]});
            }
        }
        dataflow.first_op.push_back(static_cast<std::uint32_t>(dataflow.ops.size()));
        dataflow.first_write.push_back(static_cast<std::uint32_t>(dataflow.writes.size()));
    }
    return dataflow;
}

inline void put(std::string& bytes, std::uint64_t value, int count) {
    for (int i = 0; i < count; ++i) {
        bytes.push_back(static_cast<char>(value >> (8 * i)));
    }
}

inline void write_file(const std::string& name, const std::string& bytes) {
    std::FILE* file = std::fopen(name.c_str(), "wb");
    std::fwrite(bytes.data(), 1, bytes.size(), file);
    std::fclose(file);
}

// The bytes of PREFIX.blocks/.flow/.nodes/.events/.edges, .regs when `raw`
// has a dataflow and .syms when it has symbols ("" when it has none), as
// tcgen-tracer --wet writes them.
struct RawFileBytes {
    std::string blocks, flow, nodes, events, edges, regs, syms;
};

inline RawFileBytes raw_file_bytes(const RawTrace& raw) {
    RawFileBytes files;
    std::string& blocks = files.blocks;
    blocks = "WTB1";
    for (std::size_t id = 0; id < raw.blocks.size(); ++id) {
        const RawBlock& block = raw.blocks[id];
        put(blocks, id, 4);
        put(blocks, block.instructions, 2);
        put(blocks, static_cast<std::uint8_t>(block.end), 1);
        put(blocks, 0, 1);
        put(blocks, block.bytes, 4);
        put(blocks, 0, 4);
        put(blocks, block.pc, 8);
    }
    std::string& flow = files.flow;
    flow = "WTF1";
    for (const std::uint32_t block : raw.flow) {
        put(flow, block, 4);
    }
    std::string& nodes = files.nodes;
    nodes = "WTN2";
    for (std::size_t id = 0; id < raw.nodes.size(); ++id) {
        const RawNode& node = raw.nodes[id];
        put(nodes, id, 4);
        put(nodes, node.block, 4);
        put(nodes, static_cast<std::uint8_t>(node.access), 1);
        put(nodes, node.slot, 1);
        put(nodes, node.size, 2);
        put(nodes, 0, 4);
        put(nodes, node.pc, 8);
    }
    std::string& events = files.events;
    events = "WTE2";
    for (const RawEvent& event : raw.events) {
        put(events, event.node, 4);
        put(events, event.t, 4);
        put(events, event.address, 8);
        put(events, event.value, 8);
    }
    std::string& edges = files.edges;
    edges = "WTD2";
    for (const RawEdge& edge : raw.edges) {
        put(edges, edge.use, 4);
        put(edges, edge.def, 4);
        put(edges, edge.t_use, 4);
        put(edges, edge.t_def, 4);
    }
    if (!raw.symbols.empty()) {
        files.syms = "WTS1\n" + raw.symbols;
    }
    if (raw.dataflow.empty()) {
        return files;
    }
    const tcgen::wet::RawDataflow& dataflow = raw.dataflow;
    std::string& regs = files.regs;
    regs = "WTR1";
    for (std::size_t block = 0; block < raw.blocks.size(); ++block) {
        put(regs, 'K', 4);
        put(regs, block, 4);
        put(regs, dataflow.first_op[block + 1] - dataflow.first_op[block], 4);
        put(regs, dataflow.first_write[block + 1] - dataflow.first_write[block], 4);
        for (std::uint32_t op = dataflow.first_op[block]; op < dataflow.first_op[block + 1]; ++op) {
            put(regs, 'O', 1);
            put(regs, static_cast<std::uint8_t>(dataflow.ops[op].kind), 1);
            put(regs, dataflow.first_source[op + 1] - dataflow.first_source[op], 2);
            put(regs, 0, 4);
            put(regs, dataflow.ops[op].what, 8);
            for (std::uint32_t at = dataflow.first_source[op]; at < dataflow.first_source[op + 1]; ++at) {
                put(regs, 'F', 1);
                put(regs, static_cast<std::uint8_t>(dataflow.sources[at].from), 1);
                put(regs, 0, 2);
                put(regs, dataflow.sources[at].index, 4);
                put(regs, 0, 8);
            }
        }
        for (std::uint32_t at = dataflow.first_write[block]; at < dataflow.first_write[block + 1]; ++at) {
            put(regs, 'W', 4);
            put(regs, dataflow.writes[at].slot, 4);
            put(regs, dataflow.writes[at].op, 4);
            put(regs, 0, 4);
        }
    }
    return files;
}

// Writes the files of raw_file_bytes() as PREFIX.blocks, ... (.regs and .syms
// only when `raw` has them).
inline void write_trace(const RawTrace& raw, const std::string& prefix) {
    const RawFileBytes files = raw_file_bytes(raw);
    write_file(prefix + ".blocks", files.blocks);
    write_file(prefix + ".flow", files.flow);
    write_file(prefix + ".nodes", files.nodes);
    write_file(prefix + ".events", files.events);
    write_file(prefix + ".edges", files.edges);
    if (!files.regs.empty()) {
        write_file(prefix + ".regs", files.regs);
    }
    if (!files.syms.empty()) {
        write_file(prefix + ".syms", files.syms);
    }
}

}  // namespace synthetic_wet
