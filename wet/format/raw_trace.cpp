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

#include "common/byte_io.hpp"
#include "common/files.hpp"
#include "runtime/byte_order.hpp"
#include "wet/dependences/dataflow.hpp"
#include "wet/format/pieces_file.hpp"
#include "wet/format/raw_edges.hpp"
#include "wet/format/raw_files.hpp"
#include "wet/format/raw_flow.hpp"
#include "wet/format/zstd_frames.hpp"

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

// PREFIX.events read a piece at a time (PiecesFile): piece(events, count).
class EventsFile {
public:
    explicit EventsFile(const std::string& name) : file_(name, events_magic, event_bytes) {}

    std::size_t count() const { return file_.count(); }

    template <class Piece>
    void each_piece(std::size_t piece_records, const Piece& piece) {
        std::vector<RawEvent> events(std::min(piece_records, file_.count()));
        file_.each_piece(piece_records, [&](const std::uint8_t* records, std::size_t count) {
            for (std::size_t index = 0; index < count; ++index) {
                events[index] = parse_event(records + index * event_bytes);
            }
            piece(events.data(), count);
        });
    }

private:
    PiecesFile file_;
};

std::vector<RawEvent> read_events_file(const std::string& name) {
    EventsFile file(name);
    std::vector<RawEvent> events;
    events.reserve(file.count());
    file.each_piece(65536, [&](const RawEvent* piece, std::size_t count) { events.insert(events.end(), piece, piece + count); });
    return events;
}

std::string at(const char* what, std::size_t index) {
    return std::string(what) + " " + std::to_string(index) + ": ";
}

}  // namespace

std::string store_event_missing(std::size_t edge, std::uint32_t store, std::uint32_t t_def) {
    return at("edge", edge) + "the store node " + std::to_string(store) + " has no event at t " + std::to_string(t_def);
}

namespace {

// check_raw_trace()'s checks, the events' made as they stream past (once
// to check them, once more for the times the edges are checked against),
// so that a reader need not hold them whole. The first failed check throws,
// the same one whether the events are held or streamed: the edges' checks
// that need no more than the events' order (their nodes, t_def <= t_use, a
// load event for each in turn, a store before its load in a block) are
// made alongside the events, the dataflow's after them, and last each
// matched edge's store event, against each node's times (4 bytes an
// event) or, where the caller says so, by the build, which meets each
// store's events and edges anyway (LabelStore's build: the same message
// for the first such edge, never a def made of another event).
enum class StoreEvents { checked_here, checked_by_the_build };
class RawChecker {
public:
    // Checks the blocks, the flow and the nodes; `flow` and `edges` are the trace's.
    RawChecker(const RawTrace& raw, const RawFlow& flow, const RawEdges& edges, const std::string& prefix,
               StoreEvents store_events)
        : raw_(raw),
          store_events_(store_events),
          flow_(flow),
          flow_cursor_(flow),
          edges_(edges),
          edge_cursor_(edges),
          flow_file_(prefix + ".flow"),
          nodes_file_(prefix + ".nodes"),
          events_file_(prefix + ".events"),
          edges_file_(prefix + ".edges"),
          regs_file_(prefix + ".regs") {
        const std::string blocks_file = prefix + ".blocks";
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
        if (flow.size() > limit) {
            throw WetError(flow_file_, "more than 2^32 - 2 executed blocks");
        }
        // A saved WET's control flow holds one timestamp at least: refused here,
        // with the reason, rather than written into a file no command can load.
        if (flow.size() == 0) {
            throw WetError(flow_file_, "no executed blocks: a WET needs a control flow of one block at least");
        }
        flow.each([&](std::size_t index, std::uint32_t block) {
            if (block >= raw.blocks.size()) {
                throw WetError(flow_file_, "t " + std::to_string(index + 1) + ": block " + std::to_string(block) +
                                               " is not in " + blocks_file);
            }
        });
        if (raw.nodes.size() > limit) {
            throw WetError(nodes_file_, "more than 2^32 - 2 nodes");
        }
        for (std::size_t index = 0; index < raw.nodes.size(); ++index) {
            const RawNode& node = raw.nodes[index];
            if (node.block >= raw.blocks.size()) {
                throw WetError(nodes_file_, at("node", index) + "block " + std::to_string(node.block) + " is not in " +
                                                blocks_file);
            }
            if (node.access != 'L' && node.access != 'S') {
                throw WetError(nodes_file_, at("node", index) + "access is not L or S");
            }
        }
        first_.assign(raw.nodes.size() + 1, 0);
        last_t_.assign(raw.nodes.size(), 0);
    }

    // The next event, in execution order.
    void event(const RawEvent& event) {
        const std::size_t index = events_++;
        if (event.node >= raw_.nodes.size()) {
            throw WetError(events_file_, at("event", index) + "node " + std::to_string(event.node) + " is not in " +
                                             nodes_file_);
        }
        if (event.t == 0 || event.t > flow_.size()) {
            throw WetError(events_file_, at("event", index) + "t " + std::to_string(event.t) + " is outside 1.." +
                                             std::to_string(flow_.size()) + " (" + flow_file_ + ")");
        }
        if (event.t < previous_t_) {
            throw WetError(events_file_, at("event", index) + "t " + std::to_string(event.t) +
                                             " is before the previous event's " + std::to_string(previous_t_));
        }
        const std::uint32_t block = raw_.nodes[event.node].block;
        const std::uint32_t executed = flow_cursor_.at(event.t - 1);
        if (executed != block) {
            throw WetError(events_file_, at("event", index) + "node " + std::to_string(event.node) + " is in block " +
                                             std::to_string(block) + ", not in block " + std::to_string(executed) +
                                             " executed at t " + std::to_string(event.t));
        }
        if (last_t_[event.node] == event.t) {
            throw WetError(events_file_, at("event", index) + "node " + std::to_string(event.node) +
                                             " has a second event at t " + std::to_string(event.t));
        }
        last_t_[event.node] = event.t;
        previous_t_ = event.t;
        ++first_[event.node + 1];
        // Edges come in event order: the use's event is at or after the previous edge's.
        if (matched_ < edges_.size() && !edge_failed_) {
            const RawEdge& edge = edge_cursor_.at(matched_);
            if (!edge_fails_alone(edge, matched_)) {
                matched_ += event.t == edge.t_use && event.node == edge.use ? 1 : 0;  // one edge per load event
            } else {
                edge_failed_ = true;
            }
        }
    }

    // Every event seen: the events' count per node.
    std::vector<std::uint64_t> counts() const {
        return std::vector<std::uint64_t>(first_.begin() + 1, first_.end());
    }

    // The events again, in the same order: each node's times, where the
    // store events are checked here.
    void time(const RawEvent& event) {
        if (store_events_ != StoreEvents::checked_here) {
            return;
        }
        if (fill_.empty()) {
            for (std::size_t node = 0; node < raw_.nodes.size(); ++node) {
                first_[node + 1] += first_[node];
            }
            fill_.assign(first_.begin(), first_.end() - 1);
            times_.resize(first_.back());
            last_t_ = {};
        }
        if (event.node >= raw_.nodes.size() || fill_[event.node] == first_[event.node + 1]) {
            throw WetError(events_file_, "cannot read: the file changed while it was read");
        }
        times_[fill_[event.node]++] = event.t;
    }

    // The edges' and the dataflow's checks, once time() has seen every event.
    void finish() {
        if (matched_ < edges_.size()) {
            const RawEdge edge = RawEdges::Cursor(edges_).at(matched_);
            edge_fails_alone(edge, matched_, true);
            throw WetError(edges_file_, at("edge", matched_) + "no event of node " + std::to_string(edge.use) +
                                            " at t " + std::to_string(edge.t_use) +
                                            " follows the previous edge's in " + events_file_);
        }
        if (!raw_.dataflow.empty()) {
            check_dataflow(raw_.dataflow, raw_.blocks, raw_.nodes, regs_file_);
        }
        if (store_events_ != StoreEvents::checked_here) {
            return;
        }
        edges_.each([&](std::size_t index, const RawEdge& edge) {
            const bool has_event =
                std::binary_search(times_.begin() + static_cast<std::ptrdiff_t>(first_[edge.def]),
                                   times_.begin() + static_cast<std::ptrdiff_t>(first_[edge.def + 1]), edge.t_def);
            if (!has_event) {
                throw WetError(edges_file_, store_event_missing(index, edge.def, edge.t_def));
            }
        });
        times_ = {};
    }

private:
    // The checks of `edge`, edge `index`, that need no event; throws when `raise`.
    bool edge_fails_alone(const RawEdge& edge, std::size_t index, bool raise = false) const {
        std::string failure;
        if (edge.use >= raw_.nodes.size() || raw_.nodes[edge.use].access != 'L') {
            failure = "use node " + std::to_string(edge.use) + " is not a load of " + nodes_file_;
        } else if (edge.def >= raw_.nodes.size() || raw_.nodes[edge.def].access != 'S') {
            failure = "def node " + std::to_string(edge.def) + " is not a store of " + nodes_file_;
        } else if (edge.t_def > edge.t_use) {
            failure = "t_def " + std::to_string(edge.t_def) + " is after t_use " + std::to_string(edge.t_use);
        } else if (edge.t_def == edge.t_use && edge.def >= edge.use) {
            failure = "the store node " + std::to_string(edge.def) + " runs after the load in the same block execution";
        }
        if (!failure.empty() && raise) {
            throw WetError(edges_file_, at("edge", index) + failure);
        }
        return !failure.empty();
    }

    const RawTrace& raw_;
    StoreEvents store_events_;
    const RawFlow& flow_;
    RawFlow::Cursor flow_cursor_;  // at the block of the latest event's t
    const RawEdges& edges_;
    RawEdges::Cursor edge_cursor_;  // at the next edge to match, while the events pass
    std::string flow_file_, nodes_file_, events_file_, edges_file_, regs_file_;
    std::size_t events_ = 0;
    std::uint32_t previous_t_ = 0;
    std::vector<std::uint64_t> first_;  // counts, then (after the first time()) each node's first time
    std::vector<std::uint32_t> last_t_;
    std::vector<std::uint64_t> fill_;
    std::vector<std::uint32_t> times_;  // per node, its times, in a CSR layout
    std::size_t matched_ = 0;  // edges whose load event has been seen
    bool edge_failed_ = false;
};

// A raw file's bytes, decompressed if it is zstd frames; none for an
// optional file that is not there.
std::optional<std::vector<std::uint8_t>> read_file_if_there(const std::string& name, bool required) {
    if (!required && !std::filesystem::exists(name)) {
        return std::nullopt;
    }
    return read_raw_bytes(name);
}

}  // namespace

void check_raw_trace(const RawTrace& raw, const std::string& prefix) {
    const RawFlow flow(&raw.flow);
    const RawEdges edges(&raw.edges);
    RawChecker checker(raw, flow, edges, prefix, StoreEvents::checked_here);
    for (const RawEvent& event : raw.events) {
        checker.event(event);
    }
    for (const RawEvent& event : raw.events) {
        checker.time(event);
    }
    checker.finish();
}

// read_raw_files(), with PREFIX.events from read_events(name) when given,
// or, when `streamed` is given, streamed through it (raw.events left empty)
// and PREFIX.flow and PREFIX.edges left in their files, in `streamed_flow`
// and `streamed_edges` (raw.flow and raw.edges empty);
// in both cases the files are on disk, and PREFIX.edges is read from it a
// piece at a time.
RawTrace read_raw(const std::string& prefix, const RawFileSource& source,
                  const std::function<std::vector<RawEvent>(const std::string&)>& read_events,
                  const StreamedEvents* streamed = nullptr, RawFlow* streamed_flow = nullptr,
                  RawEdges* streamed_edges = nullptr) {
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
    if (streamed) {
        *streamed_flow = RawFlow(prefix + ".flow");
    } else if (read_events) {
        // On disk: a piece at a time, not the file's bytes beside the flow.
        const PiecesFile file(prefix + ".flow", "WTF1", 4);
        raw.flow.resize(file.count());
        std::size_t next = 0;
        file.each_piece(65536, [&](const std::uint8_t* records, std::size_t count) {
            for (std::size_t index = 0; index < count; ++index) {
                raw.flow[next++] = load_le32(records + index * 4);
            }
        });
    } else {
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
    std::optional<EventsFile> events_file;
    if (streamed) {
        events_file.emplace(prefix + ".events");
    } else if (read_events) {
        raw.events = read_events(prefix + ".events");
    } else {
        const RecordFile file = read_records(source, prefix + ".events", events_magic, event_bytes);
        raw.events.resize(file.count());
        for (std::size_t index = 0; index < file.count(); ++index) {
            raw.events[index] = parse_event(file.record(index));
        }
    }
    {
        const auto parse_edge = [](const std::uint8_t* record) {
            return RawEdge{load_le32(record), load_le32(record + 4), load_le32(record + 8), load_le32(record + 12)};
        };
        constexpr std::size_t edge_bytes = 16;
        if (streamed) {
            *streamed_edges = RawEdges(prefix + ".edges");
        } else if (read_events) {
            // On disk: a piece at a time, not the file's bytes beside the edges.
            PiecesFile file(prefix + ".edges", "WTD2", edge_bytes);
            raw.edges.resize(file.count());
            std::size_t next = 0;
            file.each_piece(65536, [&](const std::uint8_t* records, std::size_t count) {
                for (std::size_t index = 0; index < count; ++index) {
                    raw.edges[next++] = parse_edge(records + index * edge_bytes);
                }
            });
        } else {
            const RecordFile file = read_records(source, prefix + ".edges", "WTD2", edge_bytes);
            raw.edges.resize(file.count());
            for (std::size_t index = 0; index < file.count(); ++index) {
                raw.edges[index] = parse_edge(file.record(index));
            }
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
    if (!streamed) {
        check_raw_trace(raw, prefix);
        return raw;
    }
    // The second read must see what the first checked: a file changed
    // between them is refused by the events' digest.
    const auto digest = [](std::uint64_t hash, const RawEvent& event) {
        constexpr std::uint64_t prime = 0x100000001B3;
        hash = (hash ^ event.node ^ (std::uint64_t{event.t} << 32)) * prime;
        hash = (hash ^ event.address) * prime;
        return (hash ^ event.value) * prime;
    };
    RawChecker checker(raw, *streamed_flow, *streamed_edges, prefix, StoreEvents::checked_by_the_build);
    std::uint64_t first_digest = 0;
    events_file->each_piece(65536, [&](const RawEvent* events, std::size_t count) {
        for (std::size_t index = 0; index < count; ++index) {
            checker.event(events[index]);
            first_digest = digest(first_digest, events[index]);
        }
    });
    streamed->counted(checker.counts());
    std::uint64_t second_digest = 0;
    events_file->each_piece(streamed->piece_records, [&](const RawEvent* events, std::size_t count) {
        for (std::size_t index = 0; index < count; ++index) {
            checker.time(events[index]);
            second_digest = digest(second_digest, events[index]);
        }
        streamed->events(events, count);
    });
    if (second_digest != first_digest) {
        throw WetError(prefix + ".events", "cannot read: the file changed while it was read");
    }
    checker.finish();
    return raw;
}

RawTrace read_raw_files(const std::string& prefix, const RawFileSource& source) {
    return read_raw(prefix, source, nullptr);
}

RawTrace read_raw_trace(const std::string& prefix) {
    return read_raw(prefix, read_file_if_there, read_events_file);
}

StreamedRawTrace read_raw_trace_streamed(const std::string& prefix, const StreamedEvents& streamed) {
    StreamedRawTrace trace;
    trace.raw = read_raw(prefix, read_file_if_there, nullptr, &streamed, &trace.flow, &trace.edges);
    return trace;
}

}  // namespace tcgen::wet
