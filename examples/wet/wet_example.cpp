// wet-example: the Whole Execution Trace of a real program run, held
// compressed by libtcgen_wet and walked in both directions.
//
//   wet-example PREFIX [NODE_PC]
//
// PREFIX.nodes, .events and .edges are three of the files the tcgen-tracer
// valgrind tool writes with --wet=PREFIX (docs/wet-streams.md); timestamps
// count executed blocks, as the paper's do. The program
//
//  1. labels the graph as the WET paper does (Zhang & Gupta 2005, §2): per
//     node (one static load or store) the timestamps and the values of its
//     executions, per store→load edge the <t_use, t_def> of its instances;
//  2. compresses every label into its own bidirectional stream (§4) and
//     prints their memory against the raw bytes;
//  3. walks every stream from its end to its start and back to its end,
//     checks every record against the vectors it was built from, and prints
//     the speed of each direction;
//  4. answers a slice-like query from the compressed streams alone: where did
//     the last value loaded by one instruction (NODE_PC, else the load node
//     with the most events) come from?
//
// What this WET can answer: it holds memory accesses only. Its one kind of
// dependence edge is store → load through memory; register dependences and
// control dependences are not traced. So a backward walk from a load reaches
// the store that wrote the load's first byte, and ends there: what that store
// was computed from went through registers. The paper's dynamic slice (§6.1)
// goes on through those edges; here the chain is load ← store, plus values.
// A load whose bytes no traced store wrote (data from read(2), the executable
// image, evicted from the tracer's table) has no def edge at all.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tcgen/wet.hpp>

namespace {

using tcgen::wet::EdgeTimestamps;
using tcgen::wet::NodeTimestamps;
using tcgen::wet::NodeValues;

struct Node {  // a record of PREFIX.nodes
    char access;  // 'L' or 'S'
    unsigned size;
    std::uint64_t pc;
};

// A stream with the records it was built from, to check every walk against.
template <class Stream>
struct Label {
    std::vector<typename Stream::Record> raw;
    Stream stream = Stream::build(nullptr, 0);
};

struct NodeLabels {  // a node's two streams, for nodes that executed
    std::uint32_t node;
    Label<NodeTimestamps> times;
    Label<NodeValues> values;
};

struct EdgeLabel {
    std::uint32_t use;  // a load node
    std::uint32_t def;  // a store node
    Label<EdgeTimestamps> pairs;
};

std::uint64_t little_endian(const std::uint8_t* bytes, int count) {
    std::uint64_t value = 0;
    for (int i = count - 1; i >= 0; --i) {
        value = value << 8 | bytes[i];
    }
    return value;
}

// The records of one WET file, after its magic; errors name the file.
std::vector<std::uint8_t> read_wet_file(const std::string& path, const char* magic, std::size_t record_bytes) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
    }
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    if (bytes.size() < 4 || std::memcmp(bytes.data(), magic, 4) != 0) {
        throw std::runtime_error(path + ": not a WET file of this kind (magic is not " + magic + ")");
    }
    if ((bytes.size() - 4) % record_bytes != 0) {
        throw std::runtime_error(path + ": truncated or corrupt: " + std::to_string(bytes.size()) +
                                 " bytes is not 4 + a multiple of " + std::to_string(record_bytes));
    }
    bytes.erase(bytes.begin(), bytes.begin() + 4);
    return bytes;
}

// Walks a stream from its end to its start (backward) or from its start to its
// end, checking every record against the one it was built from.
template <class Stream>
void walk(Label<Stream>& label, bool backward) {
    static_assert(std::has_unique_object_representations_v<typename Stream::Record>);  // memcmp compares fields
    typename Stream::Record record{};
    std::uint64_t steps = 0;
    while (backward ? label.stream.prev(record) : label.stream.next(record)) {
        const std::uint64_t index = backward ? label.stream.position() : label.stream.position() - 1;
        if (index >= label.raw.size() || std::memcmp(&record, &label.raw[index], sizeof record) != 0) {
            throw std::runtime_error("walk mismatch: a " + std::string(Stream::spec_name) + " stream, record " +
                                     std::to_string(index) + (backward ? " walking backward" : " walking forward"));
        }
        ++steps;
    }
    if (steps != label.raw.size()) {
        throw std::runtime_error("walk mismatch: a " + std::string(Stream::spec_name) + " stream walked " +
                                 std::to_string(steps) + " of its " + std::to_string(label.raw.size()) + " records");
    }
}

// The value a node produced at timestamp t, from its compressed streams only:
// both walked backward in step from their ends until the timestamp is t.
std::uint64_t value_at(NodeLabels& labels, std::uint32_t t) {
    labels.times.stream.seek(labels.times.stream.size());
    labels.values.stream.seek(labels.values.stream.size());
    NodeTimestamps::Record time{};
    NodeValues::Record value{};
    while (labels.times.stream.prev(time) && labels.values.stream.prev(value) && time.field1 >= t) {
        if (time.field1 == t) {
            return value.field1;
        }
    }
    throw std::runtime_error("node " + std::to_string(labels.node) + " has no event at t=" + std::to_string(t));
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The run's WET: its nodes, and the labels of the nodes that executed and of
// the edges, each with its stream.
struct Wet {
    std::vector<Node> nodes;
    std::vector<NodeLabels> node_labels;      // in order of first execution
    std::vector<std::int64_t> label_of_node;  // node id -> index into node_labels; -1: never executed
    std::vector<EdgeLabel> edge_labels;       // by (use, def)
    std::size_t events = 0;
    std::size_t edge_instances = 0;

    template <class Visit>
    void for_each_label(Visit&& visit) {
        for (NodeLabels& labels : node_labels) {
            visit(labels.times);
            visit(labels.values);
        }
        for (EdgeLabel& edge : edge_labels) {
            visit(edge.pairs);
        }
    }
};

// Reads and checks the three files and groups their records into labels
// (streams not built yet).
Wet read_wet(const std::string& prefix) {
    const std::vector<std::uint8_t> node_bytes = read_wet_file(prefix + ".nodes", "WTN2", 24);
    const std::vector<std::uint8_t> event_bytes = read_wet_file(prefix + ".events", "WTE2", 24);
    const std::vector<std::uint8_t> edge_bytes = read_wet_file(prefix + ".edges", "WTD2", 16);
    Wet wet;
    wet.nodes.resize(node_bytes.size() / 24);
    for (std::size_t id = 0; id < wet.nodes.size(); ++id) {
        const std::uint8_t* r = &node_bytes[24 * id];
        Node& node = wet.nodes[id];
        node = {static_cast<char>(r[8]), static_cast<unsigned>(little_endian(r + 10, 2)), little_endian(r + 16, 8)};
        if (little_endian(r, 4) != id || (node.access != 'L' && node.access != 'S')) {
            throw std::runtime_error(prefix + ".nodes: corrupt record " + std::to_string(id));
        }
    }
    wet.label_of_node.assign(wet.nodes.size(), -1);
    wet.events = event_bytes.size() / 24;
    std::set<std::pair<std::uint32_t, std::uint32_t>> events;  // (node, t): an event's identity
    std::uint32_t previous_t = 1;
    for (std::size_t index = 0; index < wet.events; ++index) {
        const std::uint8_t* r = &event_bytes[24 * index];
        const std::uint64_t node = little_endian(r, 4);
        const auto t = static_cast<std::uint32_t>(little_endian(r + 4, 4));
        if (node >= wet.nodes.size() || t < previous_t ||
            !events.insert({static_cast<std::uint32_t>(node), t}).second) {
            throw std::runtime_error(prefix + ".events: corrupt record " + std::to_string(index));
        }
        previous_t = t;
        if (wet.label_of_node[node] < 0) {
            wet.label_of_node[node] = static_cast<std::int64_t>(wet.node_labels.size());
            wet.node_labels.push_back({static_cast<std::uint32_t>(node), {}, {}});
        }
        NodeLabels& labels = wet.node_labels[wet.label_of_node[node]];
        labels.times.raw.push_back({t});
        labels.values.raw.push_back({little_endian(r + 16, 8)});
    }
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<EdgeTimestamps::Record>> pairs_of_edge;
    wet.edge_instances = edge_bytes.size() / 16;
    for (std::size_t index = 0; index < wet.edge_instances; ++index) {
        const std::uint8_t* r = &edge_bytes[16 * index];
        const auto use = static_cast<std::uint32_t>(little_endian(r, 4));
        const auto def = static_cast<std::uint32_t>(little_endian(r + 4, 4));
        const auto t_use = static_cast<std::uint32_t>(little_endian(r + 8, 4));
        const auto t_def = static_cast<std::uint32_t>(little_endian(r + 12, 4));
        if (use >= wet.nodes.size() || def >= wet.nodes.size() || wet.nodes[use].access != 'L' ||
            wet.nodes[def].access != 'S' || t_def > t_use || events.count({use, t_use}) == 0 ||
            events.count({def, t_def}) == 0) {
            throw std::runtime_error(prefix + ".edges: corrupt record " + std::to_string(index));
        }
        pairs_of_edge[{use, def}].push_back({t_use, t_def});
    }
    for (auto& [edge, pairs] : pairs_of_edge) {
        wet.edge_labels.push_back({edge.first, edge.second, {std::move(pairs)}});
    }
    return wet;
}

// The def of the load `node` executed at t_use: in the edge streams whose use
// node it is, walked backward from their ends, the pair with that t_use.
bool find_def(Wet& wet, std::uint32_t node, std::uint32_t t_use, std::uint32_t& def, std::uint32_t& t_def) {
    for (EdgeLabel& edge : wet.edge_labels) {
        if (edge.use != node) {
            continue;
        }
        EdgeTimestamps::Record pair{};
        edge.pairs.stream.seek(edge.pairs.stream.size());
        while (edge.pairs.stream.prev(pair) && pair.field1 >= t_use) {  // t_use increases along a stream
            if (pair.field1 == t_use) {
                def = edge.def;
                t_def = pair.field2;
                return true;
            }
        }
    }
    return false;
}

// Where the value of the last execution of a load (at pc, or the load node
// with the most events) came from, asked of the compressed streams only.
void answer_query(Wet& wet, const std::uint64_t* pc) {
    NodeLabels* start = nullptr;
    std::uint32_t last = 0;
    for (NodeLabels& labels : wet.node_labels) {
        const Node& node = wet.nodes[labels.node];
        const std::uint32_t labels_last = labels.times.raw.back().field1;
        if (node.access != 'L' || (pc != nullptr && node.pc != *pc)) {
            continue;
        }
        if (start == nullptr || (pc != nullptr ? labels_last > last : labels.times.raw.size() > start->times.raw.size())) {
            start = &labels;
            last = labels_last;
        }
    }
    if (start == nullptr) {
        char what[64];
        std::snprintf(what, sizeof what, pc != nullptr ? "no load at pc 0x%" PRIx64 " was executed" : "no load was executed",
                      pc != nullptr ? *pc : 0);
        throw std::runtime_error(what);
    }
    NodeTimestamps::Record record{};
    start->times.stream.seek(start->times.stream.size());
    start->times.stream.prev(record);  // its last execution, from the stream itself
    const std::uint32_t t_load = record.field1;
    std::printf("query: where did the value of the last load at pc 0x%" PRIx64 " (t=%u) come from?\n",
                wet.nodes[start->node].pc, t_load);

    // The load, then its def edge, if any, to the store it read from. The
    // walk ends at that store: in a WET with register and control edges it
    // would go on through the store's inputs (the paper's slice, §6.1), but
    // this one has none.
    const Node& load = wet.nodes[start->node];
    std::printf("     node %u, pc 0x%" PRIx64 ", load of %u bytes, t=%u, value 0x%" PRIx64 "\n", start->node, load.pc,
                load.size, t_load, value_at(*start, t_load));
    std::uint32_t def = 0;
    std::uint32_t t_def = 0;
    if (!find_def(wet, start->node, t_load, def, t_def)) {
        std::printf("query answer: the load at t=%u has no def edge: no traced store wrote its first byte "
                    "(system call data, the executable image, or forgotten by the tracer)\n", t_load);
        return;
    }
    const Node& store = wet.nodes[def];
    std::printf("  <- node %u, pc 0x%" PRIx64 ", store of %u bytes, t=%u, value 0x%" PRIx64 "\n", def, store.pc,
                store.size, t_def, value_at(wet.node_labels[wet.label_of_node[def]], t_def));
    std::printf("query answer: the load at t=%u read what the store at pc 0x%" PRIx64
                ", t=%u wrote; that store's inputs were registers, which a memory-only WET does not record\n",
                t_load, store.pc, t_def);
}

void run(const std::string& prefix, const std::uint64_t* pc) {
    Wet wet = read_wet(prefix);
    std::printf("%s: %zu nodes (%zu executed), %zu events, %zu edge instances on %zu edges\n", prefix.c_str(),
                wet.nodes.size(), wet.node_labels.size(), wet.events, wet.edge_instances, wet.edge_labels.size());

    auto start = std::chrono::steady_clock::now();
    std::uint64_t streams = 0, records = 0, raw_bytes = 0, compressed_bits = 0, memory_bytes = 0, fixed_bytes = 0;
    wet.for_each_label([&](auto& label) {
        using Stream = decltype(label.stream);
        static const std::size_t empty_bytes = Stream::build(nullptr, 0).memory_bytes();  // one per stream type
        label.stream = Stream::build(label.raw.data(), label.raw.size());
        streams += 1;
        records += label.raw.size();
        raw_bytes += label.raw.size() * Stream::record_bytes;
        compressed_bits += label.stream.compressed_bits();
        memory_bytes += label.stream.memory_bytes();
        fixed_bytes += empty_bytes;
    });
    std::printf("streams: %" PRIu64 " (%zu node timestamps, %zu node values, %zu edges), built in %.2f s\n", streams,
                wet.node_labels.size(), wet.node_labels.size(), wet.edge_labels.size(), seconds_since(start));
    // What a stream holds beyond its compressed bits: predictor tables, the
    // window, and a fixed part (coders, cursor) that an empty stream has too;
    // in a WET of many short labels the fixed part can outweigh the data.
    std::printf("memory: %" PRIu64 " bytes raw; %" PRIu64 " bytes of compressed data (%.2fx smaller); %" PRIu64
                " bytes held by the streams, of which %" PRIu64 " are the fixed size of %" PRIu64 " empty streams\n",
                raw_bytes, (compressed_bits + 7) / 8, double(raw_bytes) / double(std::max<std::uint64_t>(1, (compressed_bits + 7) / 8)),
                memory_bytes, fixed_bytes, streams);

    // To the ends first (seek steps, so this is an unchecked forward walk).
    wet.for_each_label([](auto& label) { label.stream.seek(label.stream.size()); });
    start = std::chrono::steady_clock::now();
    wet.for_each_label([](auto& label) { walk(label, true); });
    const double backward_seconds = seconds_since(start);
    start = std::chrono::steady_clock::now();
    wet.for_each_label([](auto& label) { walk(label, false); });
    const double forward_seconds = seconds_since(start);
    std::printf("walk verified: %" PRIu64 " streams end->start->end, %" PRIu64 " records each way, all equal to the input\n",
                streams, records);
    std::printf("speed: backward %.1f M records/s, forward %.1f M records/s (checks included)\n",
                double(records) / 1e6 / backward_seconds, double(records) / 1e6 / forward_seconds);

    answer_query(wet, pc);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::fprintf(stderr, "usage: wet-example PREFIX [NODE_PC]   (PREFIX.nodes/.events/.edges of tcgen-tracer --wet)\n");
        return 1;
    }
    try {
        std::uint64_t pc = 0;
        if (argc == 3) {
            char* end = nullptr;
            errno = 0;
            pc = std::strtoull(argv[2], &end, 0);
            if (argv[2][0] == '\0' || argv[2][0] == '-' || *end != '\0' || errno != 0) {
                throw std::runtime_error(std::string("bad NODE_PC '") + argv[2] + "': expected a number such as 0x4012a0");
            }
        }
        run(argv[1], argc == 3 ? &pc : nullptr);
        std::fflush(stdout);
        return std::ferror(stdout) ? 1 : 0;
    } catch (const std::exception& error) {
        std::fflush(stdout);
        std::fprintf(stderr, "wet-example: error: %s\n", error.what());
        return 1;
    }
}
