// Reading PREFIX.blocks/.flow/.nodes/.events/.edges/.regs (format v2). Every check
// the library relies on is made here, once, so that the builder and the
// queries never meet an id out of range or a timestamp out of order.

#include <tcgen/wet/raw_trace.hpp>
#include <tcgen/wet/symbols.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

#include <sys/stat.h>

#include "common/byte_io.hpp"
#include "common/files.hpp"
#include "runtime/byte_order.hpp"
#include "wet/dependences/dataflow.hpp"
#include "wet/format/raw_files.hpp"

namespace tcgen::wet {
namespace {

using tcgen_runtime::load_le16;
using tcgen_runtime::load_le32;
using tcgen_runtime::load_le64;

// The records of one raw file after its magic, checked for magic and size.
struct RecordFile {
    std::string name;
    std::vector<std::uint8_t> bytes;
    std::size_t record_bytes = 0;

    std::size_t count() const { return (bytes.size() - 4) / record_bytes; }
    const std::uint8_t* record(std::size_t index) const { return bytes.data() + 4 + index * record_bytes; }
};

// The checks of a raw file of `size` bytes that start with `head` (its
// first min(size, 4)); returns its number of records.
std::size_t check_records(const std::string& name, const std::uint8_t* head, std::size_t size, const char* magic,
                          std::size_t record_bytes) {
    if (size < 4 || std::memcmp(head, magic, 4) != 0) {
        throw WetError(name, std::string("not a WET ") + (name.substr(name.rfind('.') + 1)) +
                                 " file of format v2 (magic " + magic + " expected)");
    }
    if ((size - 4) % record_bytes != 0) {
        throw WetError(name, "truncated or corrupt: " + std::to_string(size) + " bytes is not 4 + a multiple of " +
                                 std::to_string(record_bytes));
    }
    const std::size_t count = (size - 4) / record_bytes;
    if (count >= std::numeric_limits<std::uint32_t>::max()) {
        throw WetError(name, "more than 2^32 - 2 records");
    }
    return count;
}

RecordFile read_records(const RawFileSource& source, const std::string& name, const char* magic,
                        std::size_t record_bytes) {
    std::optional<std::vector<std::uint8_t>> bytes = source(name, true);
    if (!bytes) {
        throw WetError(name, "cannot read: no such file");
    }
    RecordFile records{name, std::move(*bytes), record_bytes};
    check_records(name, records.bytes.data(), records.bytes.size(), magic, record_bytes);
    return records;
}

constexpr const char* events_magic = "WTE2";
constexpr std::size_t event_bytes = 24;

RawEvent parse_event(const std::uint8_t* record) {
    RawEvent event;
    event.node = load_le32(record);
    event.t = load_le32(record + 4);
    event.address = load_le64(record + 8);
    event.value = load_le64(record + 16);
    return event;
}

// PREFIX.events of a regular file on disk, read a piece at a time: whole, its
// bytes beside the events made from them would double the raw trace's
// largest part while it is read. Anything else (a pipe) is read whole.
std::vector<RawEvent> read_events_file(const std::string& name) {
    const FilePtr file = open_input(name);
    struct stat status {};
    if (::fstat(::fileno(file.get()), &status) != 0 || !S_ISREG(status.st_mode)) {
        const std::vector<std::uint8_t> bytes = read_whole_file(name);
        const std::size_t count = check_records(name, bytes.data(), bytes.size(), events_magic, event_bytes);
        std::vector<RawEvent> events(count);
        for (std::size_t index = 0; index < count; ++index) {
            events[index] = parse_event(bytes.data() + 4 + index * event_bytes);
        }
        return events;
    }
    const std::size_t size = static_cast<std::size_t>(status.st_size);
    std::uint8_t head[4] = {};
    const std::size_t head_bytes = std::fread(head, 1, std::min<std::size_t>(size, 4), file.get());
    const std::size_t count = check_records(name, head, head_bytes < 4 ? head_bytes : size, events_magic, event_bytes);
    std::vector<RawEvent> events(count);
    constexpr std::size_t piece_records = 65536;
    std::vector<std::uint8_t> piece(piece_records * event_bytes);
    for (std::size_t first = 0; first < count; first += piece_records) {
        const std::size_t records = std::min(piece_records, count - first);
        if (std::fread(piece.data(), event_bytes, records, file.get()) != records) {
            throw WetError(name, "cannot read: the file shrank while it was read");
        }
        for (std::size_t index = 0; index < records; ++index) {
            events[first + index] = parse_event(piece.data() + index * event_bytes);
        }
    }
    return events;
}

std::string at(const char* what, std::size_t index) {
    return std::string(what) + " " + std::to_string(index) + ": ";
}

}  // namespace

void check_raw_trace(const RawTrace& raw, const std::string& prefix) {
    const std::string blocks_file = prefix + ".blocks";
    const std::string flow_file = prefix + ".flow";
    const std::string nodes_file = prefix + ".nodes";
    const std::string events_file = prefix + ".events";
    const std::string edges_file = prefix + ".edges";
    constexpr std::size_t limit = std::numeric_limits<std::uint32_t>::max() - 1;
    if (raw.blocks.size() > limit) {
        throw WetError(blocks_file, "more than 2^32 - 2 blocks");
    }
    for (std::size_t index = 0; index < raw.blocks.size(); ++index) {
        const char end = raw.blocks[index].end;
        if (end != 'C' && end != 'R' && end != 'J') {
            throw WetError(blocks_file, at("block", index) + "end is not C, R or J");
        }
    }
    if (raw.flow.size() > limit) {
        throw WetError(flow_file, "more than 2^32 - 2 executed blocks");
    }
    // A saved WET's control flow holds one timestamp at least: refused here,
    // with the reason, rather than written into a file no command can load.
    if (raw.flow.empty()) {
        throw WetError(flow_file, "no executed blocks: a WET needs a control flow of one block at least");
    }
    for (std::size_t index = 0; index < raw.flow.size(); ++index) {
        if (raw.flow[index] >= raw.blocks.size()) {
            throw WetError(flow_file, "t " + std::to_string(index + 1) + ": block " + std::to_string(raw.flow[index]) +
                                          " is not in " + blocks_file);
        }
    }
    if (raw.nodes.size() > limit) {
        throw WetError(nodes_file, "more than 2^32 - 2 nodes");
    }
    for (std::size_t index = 0; index < raw.nodes.size(); ++index) {
        const RawNode& node = raw.nodes[index];
        if (node.block >= raw.blocks.size()) {
            throw WetError(nodes_file, at("node", index) + "block " + std::to_string(node.block) + " is not in " +
                                           blocks_file);
        }
        if (node.access != 'L' && node.access != 'S') {
            throw WetError(nodes_file, at("node", index) + "access is not L or S");
        }
    }
    // Per node: its timestamps, in a CSR layout, to find the events the edges name.
    std::vector<std::uint64_t> first(raw.nodes.size() + 1, 0);
    std::vector<std::uint32_t> last_t(raw.nodes.size(), 0);
    std::uint32_t previous_t = 0;
    for (std::size_t index = 0; index < raw.events.size(); ++index) {
        const RawEvent& event = raw.events[index];
        if (event.node >= raw.nodes.size()) {
            throw WetError(events_file, at("event", index) + "node " + std::to_string(event.node) + " is not in " +
                                            nodes_file);
        }
        if (event.t == 0 || event.t > raw.flow.size()) {
            throw WetError(events_file, at("event", index) + "t " + std::to_string(event.t) + " is outside 1.." +
                                            std::to_string(raw.flow.size()) + " (" + flow_file + ")");
        }
        if (event.t < previous_t) {
            throw WetError(events_file, at("event", index) + "t " + std::to_string(event.t) + " is before the previous event's " +
                                            std::to_string(previous_t));
        }
        const std::uint32_t block = raw.nodes[event.node].block;
        if (raw.flow[event.t - 1] != block) {
            throw WetError(events_file, at("event", index) + "node " + std::to_string(event.node) + " is in block " +
                                            std::to_string(block) + ", not in block " +
                                            std::to_string(raw.flow[event.t - 1]) + " executed at t " +
                                            std::to_string(event.t));
        }
        if (last_t[event.node] == event.t) {
            throw WetError(events_file, at("event", index) + "node " + std::to_string(event.node) +
                                            " has a second event at t " + std::to_string(event.t));
        }
        last_t[event.node] = event.t;
        previous_t = event.t;
        ++first[event.node + 1];
    }
    for (std::size_t node = 0; node < raw.nodes.size(); ++node) {
        first[node + 1] += first[node];
    }
    std::vector<std::uint32_t> times(raw.events.size());
    {
        std::vector<std::uint64_t> fill(first.begin(), first.end() - 1);
        for (const RawEvent& event : raw.events) {
            times[fill[event.node]++] = event.t;
        }
    }
    const auto has_event = [&](std::uint32_t node, std::uint32_t t) {
        return std::binary_search(times.begin() + static_cast<std::ptrdiff_t>(first[node]),
                                  times.begin() + static_cast<std::ptrdiff_t>(first[node + 1]), t);
    };
    std::size_t event_index = 0;
    for (std::size_t index = 0; index < raw.edges.size(); ++index) {
        const RawEdge& edge = raw.edges[index];
        if (edge.use >= raw.nodes.size() || raw.nodes[edge.use].access != 'L') {
            throw WetError(edges_file, at("edge", index) + "use node " + std::to_string(edge.use) + " is not a load of " +
                                           nodes_file);
        }
        if (edge.def >= raw.nodes.size() || raw.nodes[edge.def].access != 'S') {
            throw WetError(edges_file, at("edge", index) + "def node " + std::to_string(edge.def) + " is not a store of " +
                                           nodes_file);
        }
        if (edge.t_def > edge.t_use) {
            throw WetError(edges_file, at("edge", index) + "t_def " + std::to_string(edge.t_def) + " is after t_use " +
                                           std::to_string(edge.t_use));
        }
        // Edges come in event order: the use's event is at or after the previous edge's.
        while (event_index < raw.events.size() &&
               (raw.events[event_index].t != edge.t_use || raw.events[event_index].node != edge.use)) {
            ++event_index;
        }
        if (event_index == raw.events.size()) {
            throw WetError(edges_file, at("edge", index) + "no event of node " + std::to_string(edge.use) + " at t " +
                                           std::to_string(edge.t_use) + " follows the previous edge's in " + events_file);
        }
        ++event_index;  // one edge per load event
        if (!has_event(edge.def, edge.t_def)) {
            throw WetError(edges_file, at("edge", index) + "the store node " + std::to_string(edge.def) +
                                           " has no event at t " + std::to_string(edge.t_def));
        }
        if (edge.t_def == edge.t_use && edge.def >= edge.use) {
            throw WetError(edges_file, at("edge", index) + "the store node " + std::to_string(edge.def) +
                                           " runs after the load in the same block execution");
        }
    }
    if (!raw.dataflow.empty()) {
        check_dataflow(raw.dataflow, raw.blocks, raw.nodes, prefix + ".regs");
    }
}

// read_raw_files(), with PREFIX.events from read_events(name) when given.
RawTrace read_raw(const std::string& prefix, const RawFileSource& source,
                  const std::function<std::vector<RawEvent>(const std::string&)>& read_events) {
    RawTrace raw;
    {
        const RecordFile file = read_records(source, prefix + ".blocks", "WTB1", 24);
        raw.blocks.resize(file.count());
        for (std::size_t index = 0; index < file.count(); ++index) {
            const std::uint8_t* record = file.record(index);
            if (load_le32(record) != index) {
                throw WetError(file.name, at("record", index) + "its id is " + std::to_string(load_le32(record)));
            }
            RawBlock& block = raw.blocks[index];
            block.instructions = load_le16(record + 4);
            block.end = static_cast<char>(record[6]);
            block.bytes = load_le32(record + 8);
            block.pc = load_le64(record + 16);
        }
    }
    {
        const RecordFile file = read_records(source, prefix + ".flow", "WTF1", 4);
        raw.flow.resize(file.count());
        for (std::size_t index = 0; index < file.count(); ++index) {
            raw.flow[index] = load_le32(file.record(index));
        }
    }
    {
        const RecordFile file = read_records(source, prefix + ".nodes", "WTN2", 24);
        raw.nodes.resize(file.count());
        for (std::size_t index = 0; index < file.count(); ++index) {
            const std::uint8_t* record = file.record(index);
            if (load_le32(record) != index) {
                throw WetError(file.name, at("record", index) + "its id is " + std::to_string(load_le32(record)));
            }
            RawNode& node = raw.nodes[index];
            node.block = load_le32(record + 4);
            node.access = static_cast<char>(record[8]);
            node.slot = record[9];
            node.size = load_le16(record + 10);
            node.pc = load_le64(record + 16);
        }
    }
    if (read_events) {
        raw.events = read_events(prefix + ".events");
    } else {
        const RecordFile file = read_records(source, prefix + ".events", events_magic, event_bytes);
        raw.events.resize(file.count());
        for (std::size_t index = 0; index < file.count(); ++index) {
            raw.events[index] = parse_event(file.record(index));
        }
    }
    {
        const RecordFile file = read_records(source, prefix + ".edges", "WTD2", 16);
        raw.edges.resize(file.count());
        for (std::size_t index = 0; index < file.count(); ++index) {
            const std::uint8_t* record = file.record(index);
            RawEdge& edge = raw.edges[index];
            edge.use = load_le32(record);
            edge.def = load_le32(record + 4);
            edge.t_use = load_le32(record + 8);
            edge.t_def = load_le32(record + 12);
        }
    }
    // Traces of tracers before it have none: the slices stand in for it.
    const std::string regs = prefix + ".regs";
    if (const std::optional<std::vector<std::uint8_t>> bytes = source(regs, false)) {
        raw.dataflow = parse_regs_file(*bytes, raw.blocks.size(), regs);
    }
    // Traces of tracers before it have none: no symbols.
    const std::string syms = prefix + ".syms";
    if (const std::optional<std::vector<std::uint8_t>> bytes = source(syms, false)) {
        raw.symbols = symbols_file_lines(*bytes, syms);
        SymbolTable::parse(raw.symbols, syms);  // its checks, naming the file
    }
    check_raw_trace(raw, prefix);
    return raw;
}

RawTrace read_raw_files(const std::string& prefix, const RawFileSource& source) {
    return read_raw(prefix, source, nullptr);
}

RawTrace read_raw_trace(const std::string& prefix) {
    return read_raw(
        prefix,
        [](const std::string& name, bool required) -> std::optional<std::vector<std::uint8_t>> {
            if (!required && !std::filesystem::exists(name)) {
                return std::nullopt;
            }
            return read_whole_file(name);
        },
        read_events_file);
}

}  // namespace tcgen::wet
