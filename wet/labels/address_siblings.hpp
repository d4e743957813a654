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

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

namespace tcgen::wet {

// The siblings to try for a node: the latest nodes of its block that keep
// their own addresses (a structure's fields are read close together).
constexpr std::size_t address_sibling_candidates = 16;

// Per node, its sibling + 1 (0: it keeps its own addresses).
// `every_execution[n]`: node n ran at every execution of its block;
// `addresses_of(n)`: node n's addresses in execution order;
// `saved_bytes(addresses)`: what a label of them would cost.
// Of the candidates, the one whose differences repeat most often is taken
// when they repeat more often than the node's own strides and its label of
// differences is the smaller.
template <class AddressesOf, class SavedBytes>
std::vector<std::uint32_t> choose_address_siblings(const std::vector<RawNode>& nodes,
                                                   const std::vector<bool>& every_execution, std::size_t blocks,
                                                   const AddressesOf& addresses_of, const SavedBytes& saved_bytes) {
    std::vector<std::uint32_t> sibling(nodes.size(), 0);
    std::vector<std::vector<std::uint32_t>> recent(blocks);  // per block, latest last
    for (std::uint32_t node = 0; node < nodes.size(); ++node) {
        if (!every_execution[node]) {
            continue;
        }
        const std::vector<std::uint64_t> own = addresses_of(node);
        std::vector<std::uint32_t>& candidates = recent[nodes[node].block];
        std::size_t best_hits = 0;
        for (std::size_t index = 2; index < own.size(); ++index) {
            best_hits += own[index] - own[index - 1] == own[index - 1] - own[index - 2] ? 1 : 0;
        }
        std::vector<std::uint64_t> best;
        std::uint32_t best_node = 0;
        for (const std::uint32_t candidate : candidates) {
            std::vector<std::uint64_t> differences = addresses_of(candidate);
            if (differences.size() != own.size()) {
                continue;  // not the same block executions after all
            }
            for (std::size_t index = 0; index < own.size(); ++index) {
                differences[index] = own[index] - differences[index];
            }
            std::size_t hits = 0;
            for (std::size_t index = 1; index < own.size(); ++index) {
                hits += differences[index] == differences[index - 1] ? 1 : 0;
            }
            if (hits > best_hits) {
                best_hits = hits;
                best = std::move(differences);
                best_node = candidate;
            }
        }
        if (!best.empty() && saved_bytes(best) < saved_bytes(own)) {
            sibling[node] = best_node + 1;
            continue;
        }
        if (candidates.size() == address_sibling_candidates) {
            candidates.erase(candidates.begin());
        }
        candidates.push_back(node);
    }
    return sibling;
}

}  // namespace tcgen::wet
