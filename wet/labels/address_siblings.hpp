#pragma once
// Address siblings: a node's addresses kept as their differences from the
// addresses of an earlier node of its block at the same block executions.
// Compiled code reaches several fields of one structure, or neighbouring
// elements of one array, from one base register: node n's address is then
// node m's plus the same constant at every execution, even when neither
// follows a pattern of its own (a pointer just loaded). Measured in
// docs/design/log.md ("Addresses from another node of the same block").
//
// A node takes a sibling only when both run at every execution of their
// block, so that their i-th addresses belong to the same block execution,
// and only a node that keeps its own addresses is a sibling: a reader adds
// one label to another, never follows a chain.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>
#include "runtime/task_pool.hpp"

namespace tcgen::wet {

// The siblings to try for a node: the latest nodes of its block that keep
// their own addresses (a structure's fields are read close together).
constexpr std::size_t address_sibling_candidates = 16;

// Per node, its sibling + 1 (0: it keeps its own addresses).
// `every_execution[n]`: node n ran at every execution of its block;
// `count_of(n)`: how many addresses node n has;
// `addresses_of(n, first, count)`: node n's addresses first .. first +
// count - 1, in execution order (read a piece at a time: a node's whole run
// is never held);
// `saved_bytes(pieces)`: what a label of the addresses would cost, where
// pieces(visit) calls visit(addresses) for each piece of them in order.
// Of the candidates, the one whose differences repeat most often is taken
// when they repeat more often than the node's own strides and its label of
// differences is the smaller.
// A block's nodes are chosen for in node order, each block on its own: with
// a pool, blocks side by side on its threads (the same choices; the
// callbacks are then called from any of them).
template <class CountOf, class AddressesOf, class SavedBytes>
std::vector<std::uint32_t> choose_address_siblings(const std::vector<RawNode>& nodes,
                                                   const std::vector<bool>& every_execution, std::size_t blocks,
                                                   const CountOf& count_of, const AddressesOf& addresses_of,
                                                   const SavedBytes& saved_bytes,
                                                   tcgen_runtime::TaskPool* pool = nullptr) {
    constexpr std::uint64_t piece_addresses = std::uint64_t{1} << 16;
    // visit(first, addresses) for node's addresses, a piece at a time.
    const auto each_piece = [&](std::uint32_t node, const auto& visit) {
        const std::uint64_t count = count_of(node);
        for (std::uint64_t first = 0; first < count; first += piece_addresses) {
            visit(first, addresses_of(node, first, std::min(piece_addresses, count - first)));
        }
    };
    struct Candidate {
        std::uint32_t node = 0;
        std::size_t hits = 0;  // differences equal to the one before
        std::uint64_t last = 0;
    };
    std::vector<std::uint32_t> sibling(nodes.size(), 0);
    // Chooses for `node`, whose block's latest nodes that keep their own
    // addresses are `candidates` (latest last), and adds it there when it
    // keeps its own.
    const auto choose_for = [&](std::uint32_t node, std::vector<std::uint32_t>& candidates) {
        const std::uint64_t count = count_of(node);
        std::vector<Candidate> tried;
        for (const std::uint32_t candidate : candidates) {
            if (count_of(candidate) == count) {  // else not the same block executions after all
                tried.push_back(Candidate{candidate, 0, 0});
            }
        }
        // The node's own strides and each candidate's differences, in one walk.
        std::size_t own_hits = 0;
        std::uint64_t before_last = 0;
        std::uint64_t last = 0;
        each_piece(node, [&](std::uint64_t first, const std::vector<std::uint64_t>& own) {
            for (std::size_t index = 0; index < own.size(); ++index) {
                const std::uint64_t at = first + index;
                own_hits += at >= 2 && own[index] - last == last - before_last ? 1 : 0;
                before_last = last;
                last = own[index];
            }
            for (Candidate& candidate : tried) {
                const std::vector<std::uint64_t> theirs = addresses_of(candidate.node, first, own.size());
                for (std::size_t index = 0; index < own.size(); ++index) {
                    const std::uint64_t difference = own[index] - theirs[index];
                    candidate.hits += first + index >= 1 && difference == candidate.last ? 1 : 0;
                    candidate.last = difference;
                }
            }
        });
        std::size_t best_hits = own_hits;
        const Candidate* best = nullptr;
        for (const Candidate& candidate : tried) {
            if (candidate.hits > best_hits) {
                best_hits = candidate.hits;
                best = &candidate;
            }
        }
        if (best != nullptr && count != 0) {
            const std::uint32_t best_node = best->node;
            const auto differences = [&](const auto& visit) {
                each_piece(node, [&](std::uint64_t first, std::vector<std::uint64_t> own) {
                    const std::vector<std::uint64_t> theirs = addresses_of(best_node, first, own.size());
                    for (std::size_t index = 0; index < own.size(); ++index) {
                        own[index] -= theirs[index];
                    }
                    visit(own);
                });
            };
            const auto own = [&](const auto& visit) {
                each_piece(node, [&](std::uint64_t, const std::vector<std::uint64_t>& addresses) { visit(addresses); });
            };
            if (saved_bytes(differences) < saved_bytes(own)) {
                sibling[node] = best_node + 1;
                return;
            }
        }
        if (candidates.size() == address_sibling_candidates) {
            candidates.erase(candidates.begin());
        }
        candidates.push_back(node);
    };
    // Per block, its nodes that ran at every execution, in node order.
    std::vector<std::vector<std::uint32_t>> block_nodes(blocks);
    for (std::uint32_t node = 0; node < nodes.size(); ++node) {
        if (every_execution[node]) {
            block_nodes[nodes[node].block].push_back(node);
        }
    }
    const auto choose_in_block = [&](std::size_t block) {
        std::vector<std::uint32_t> candidates;  // latest last
        for (const std::uint32_t node : block_nodes[block]) {
            choose_for(node, candidates);
        }
    };
    // The busiest blocks first: none left alone on a thread at the end.
    std::vector<std::uint32_t> busiest_first;
    std::vector<std::uint64_t> work(blocks, 0);
    for (std::size_t block = 0; block < blocks; ++block) {
        for (const std::uint32_t node : block_nodes[block]) {
            work[block] += count_of(node);
        }
        if (!block_nodes[block].empty()) {
            busiest_first.push_back(static_cast<std::uint32_t>(block));
        }
    }
    std::stable_sort(busiest_first.begin(), busiest_first.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return work[a] > work[b]; });
    tcgen_runtime::TaskPool::run(pool, busiest_first.size(),
                                 [&](std::size_t task) { choose_in_block(busiest_first[task]); });
    return sibling;
}

}  // namespace tcgen::wet
