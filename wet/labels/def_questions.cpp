// The defs' questions of a raw trace (def_questions.hpp).

#include "wet/labels/def_questions.hpp"

#include <algorithm>
#include <cstring>

#include "wet/labels/def_encoding.hpp"
#include "wet/labels/node_runs.hpp"

namespace tcgen::wet {

using namespace def_encoding;

namespace {

// An edge with its index among the raw edges, grouped by its load node
// (node_runs.hpp) to meet the load's events: 20 bytes, in this machine's
// order.
struct IndexedEdge {
    std::uint32_t index = 0;
    RawEdge edge;
};
struct IndexedEdgeCodec {
    using Record = IndexedEdge;
    static constexpr std::size_t bytes = 20;
    static void encode(const IndexedEdge& edge, std::uint8_t* record) {
        std::memcpy(record, &edge.index, 4);
        std::memcpy(record + 4, &edge.edge.use, 4);
        std::memcpy(record + 8, &edge.edge.def, 4);
        std::memcpy(record + 12, &edge.edge.t_use, 4);
        std::memcpy(record + 16, &edge.edge.t_def, 4);
    }
    static IndexedEdge decode(const std::uint8_t* record) {
        IndexedEdge edge;
        std::memcpy(&edge.index, record, 4);
        std::memcpy(&edge.edge.use, record + 4, 4);
        std::memcpy(&edge.edge.def, record + 8, 4);
        std::memcpy(&edge.edge.t_use, record + 12, 4);
        std::memcpy(&edge.edge.t_def, record + 16, 4);
        return edge;
    }
};

// The edges' nodes, checked when the edges were read: a walk that finds
// another was made over a file changed since.
void check_nodes(const RawEdges& edges, const RawEdge& edge, const std::vector<RawNode>& nodes) {
    if (edge.use >= nodes.size() || edge.def >= nodes.size()) {
        edges.refuse_changed();
    }
}

std::vector<std::vector<std::uint32_t>> load_writers(const std::vector<RawNode>& nodes, const RawEdges& edges) {
    std::vector<std::vector<std::uint32_t>> writers(nodes.size());
    edges.each([&](std::size_t, const RawEdge& edge) {
        check_nodes(edges, edge, nodes);
        std::vector<std::uint32_t>& stores = writers[edge.use];
        if (std::find(stores.begin(), stores.end(), edge.def) == stores.end() && stores.size() <= max_load_writers) {
            stores.push_back(edge.def);
        }
    });
    for (std::vector<std::uint32_t>& stores : writers) {
        const bool inferable = std::all_of(stores.begin(), stores.end(), [&](std::uint32_t store) {
            return nodes[store].size != 0 && nodes[store].size <= widest_inferred_store;
        });
        if (stores.size() < 2 || stores.size() > max_load_writers || !inferable) {
            stores.clear();
        }
        std::sort(stores.begin(), stores.end());
    }
    return writers;
}

}  // namespace

DefQuestions ask_defs(const std::vector<RawNode>& nodes, RawEdges edges, const EventsByNode& events) {
    DefQuestions questions;
    questions.edge_count = edges.size();
    questions.edges_name = edges.name();
    questions.writers = load_writers(nodes, edges);
    const std::vector<std::vector<std::uint32_t>>& writers = questions.writers;
    questions.written_by.resize(nodes.size());
    for (std::uint32_t load = 0; load < nodes.size(); ++load) {
        for (const std::uint32_t store : writers[load]) {
            questions.written_by[store].push_back(load);
        }
    }
    const auto kept_under = [&](const RawEdge& edge) { return writers[edge.use].empty() ? edge.def : edge.use; };
    std::vector<std::uint64_t> use_counts(nodes.size(), 0);
    {
        std::vector<std::uint64_t> ask_counts(nodes.size(), 0);
        edges.each([&](std::size_t, const RawEdge& edge) {
            check_nodes(edges, edge, nodes);
            ++ask_counts[kept_under(edge)];
            ++use_counts[edge.use];
        });
        questions.asks = make_asks_by_node(ask_counts, events.temporaries());
    }
    questions.load_first = node_places(use_counts);
    // A load's edges in time order (edges come in event order), to meet
    // them while walking its events, for its addresses: grouped by load
    // through a file beside the events' when they are in one, a piece at a
    // time, and the edges freed (when held) before the walk.
    NodeRuns<IndexedEdgeCodec> by_use(questions.load_first, events.temporaries(), "edges", "the edges grouped by load",
                                      "edges");
    {
        std::vector<std::pair<std::uint32_t, IndexedEdge>> piece;
        edges.each([&](std::size_t index, const RawEdge& edge) {
            piece.emplace_back(edge.use, IndexedEdge{static_cast<std::uint32_t>(index), edge});
            if (piece.size() >= RawEdges::piece_edges) {
                by_use.add(piece);
                piece.clear();
            }
        });
        by_use.add(piece);
        by_use.check_full();
        edges = RawEdges();
    }
    constexpr std::size_t piece_asks = std::size_t{1} << 16;
    std::vector<std::pair<std::uint32_t, DefAsk>> piece;  // (node kept under, ask)
    // Under each node, a run of asks a load (asks_in_horizon_order.hpp):
    // the pieces end with each load, so that a run begins where its node's
    // asks stand when its load is reached.
    constexpr std::uint32_t no_load = ~std::uint32_t{0};
    std::vector<std::uint32_t> last_load(nodes.size(), no_load);  // per node, the load of its latest asks
    for (std::uint32_t node = 0; node < nodes.size(); ++node) {
        if (by_use.count(node) == 0) {
            continue;
        }
        questions.asks->add(piece);
        piece.clear();
        // The load's events and its edges, each a piece at a time: a hot
        // load's run is never held whole.
        const std::uint64_t edge_count = by_use.count(node);
        std::uint64_t next_edge = 0;  // the load's edges before it are met
        std::vector<IndexedEdge> load_edges;
        std::size_t at = 0;  // next_edge's place in load_edges
        const std::uint64_t event_count = events.count(node);
        for (std::uint64_t first = 0; first < event_count && next_edge < edge_count; first += piece_asks) {
            const std::vector<NodeEvent> run =
                events.read(node, first, std::min<std::uint64_t>(piece_asks, event_count - first));
            for (const NodeEvent& event : run) {
                if (at == load_edges.size()) {
                    if (next_edge == edge_count) {
                        break;
                    }
                    const auto count = std::min<std::uint64_t>(piece_asks, edge_count - next_edge);
                    load_edges = by_use.get(by_use.first(node) + next_edge, static_cast<std::size_t>(count));
                    at = 0;
                }
                const IndexedEdge& edge = load_edges[at];
                if (edge.edge.t_use != event.t) {
                    continue;
                }
                const RawEdge& raw_edge = edge.edge;
                const DefAsk ask{edge.index, raw_edge.use, raw_edge.t_use, raw_edge.def, raw_edge.t_def, event.address};
                ++at;
                ++next_edge;
                const std::uint32_t under = kept_under(raw_edge);
                if (last_load[under] != node) {
                    questions.asks->start_run(under);
                    last_load[under] = node;
                }
                piece.emplace_back(under, ask);
                if (piece.size() >= piece_asks) {
                    questions.asks->add(piece);
                    piece.clear();
                }
            }
        }
    }
    questions.asks->add(piece);
    questions.asks->check_full();
    return questions;
}

}  // namespace tcgen::wet
