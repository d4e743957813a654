// The defs' questions of a raw trace (def_questions.hpp).

#include "wet/labels/def_questions.hpp"

#include <algorithm>

#include "wet/labels/def_encoding.hpp"
#include "wet/labels/grouping.hpp"

namespace tcgen::wet {

using namespace def_encoding;

namespace {

std::vector<std::vector<std::uint32_t>> load_writers(const std::vector<RawNode>& nodes,
                                                     const std::vector<RawEdge>& edges) {
    std::vector<std::vector<std::uint32_t>> writers(nodes.size());
    for (const RawEdge& edge : edges) {
        std::vector<std::uint32_t>& stores = writers[edge.use];
        if (std::find(stores.begin(), stores.end(), edge.def) == stores.end() && stores.size() <= max_load_writers) {
            stores.push_back(edge.def);
        }
    }
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

DefQuestions ask_defs(const std::vector<RawNode>& nodes, std::vector<RawEdge> edges, const EventsByNode& events) {
    DefQuestions questions;
    questions.edge_count = edges.size();
    questions.writers = load_writers(nodes, edges);
    const std::vector<std::vector<std::uint32_t>>& writers = questions.writers;
    questions.written_by.resize(nodes.size());
    for (std::uint32_t load = 0; load < nodes.size(); ++load) {
        for (const std::uint32_t store : writers[load]) {
            questions.written_by[store].push_back(load);
        }
    }
    const auto kept_under = [&](const RawEdge& edge) { return writers[edge.use].empty() ? edge.def : edge.use; };
    {
        std::vector<std::uint64_t> ask_counts(nodes.size(), 0);
        for (const RawEdge& edge : edges) {
            ++ask_counts[kept_under(edge)];
        }
        questions.asks = make_asks_by_node(ask_counts, events.temporaries_beside());
    }
    // A load's edges in time order (edges come in event order), to meet
    // them while walking its events, for its addresses.
    const Grouping<std::uint32_t> by_use = group_items<std::uint32_t>(
        edges.size(), nodes.size(), [&](std::size_t edge) { return edges[edge].use; });
    constexpr std::size_t piece_asks = std::size_t{1} << 16;
    std::vector<std::pair<std::uint32_t, DefAsk>> piece;  // (node kept under, ask)
    for (std::size_t node = 0; node < nodes.size(); ++node) {
        if (by_use.first[node + 1] == by_use.first[node]) {
            continue;
        }
        const std::uint32_t* edge = by_use.order.data() + by_use.first[node];
        const std::uint32_t* const edges_end = by_use.order.data() + by_use.first[node + 1];
        for (const NodeEvent& event : events.read(node)) {
            if (edge == edges_end || edges[*edge].t_use != event.t) {
                continue;
            }
            const RawEdge& raw_edge = edges[*edge];
            const DefAsk ask{*edge++, raw_edge.use, raw_edge.t_use, raw_edge.def, raw_edge.t_def, event.address};
            piece.emplace_back(kept_under(raw_edge), ask);
            if (piece.size() >= piece_asks) {
                questions.asks->add(piece);
                piece.clear();
            }
        }
    }
    questions.asks->add(piece);
    questions.asks->check_full();
    questions.load_first.assign(by_use.first.begin(), by_use.first.end());
    return questions;
}

std::vector<DefAsk> DefQuestions::asks_of(std::uint32_t store) const {
    std::vector<DefAsk> all = asks->read(store);
    for (const std::uint32_t load : written_by[store]) {
        const std::vector<DefAsk> load_asks = asks->read(load);
        all.insert(all.end(), load_asks.begin(), load_asks.end());
    }
    return all;
}

}  // namespace tcgen::wet
