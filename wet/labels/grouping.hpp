#pragma once
// Items grouped by a key, each group in the items' order: a counting sort,
// the one way the WET groups anything (events by node, edges by store,
// nodes by block, the flow's timestamps by block).

#include <cstddef>
#include <vector>

namespace tcgen::wet {

// Group g's items are order[first[g]] .. order[first[g + 1] - 1].
template <class Index>
struct Grouping {
    std::vector<std::size_t> first;
    std::vector<Index> order;
};

// Items 0 .. count - 1 grouped by key(item); an item whose key is not below
// `groups` is left out. Index: the type of an item's number (u32 halves
// the memory of grouping a whole run's flow).
template <class Index, class Key>
Grouping<Index> group_items(std::size_t count, std::size_t groups, const Key& key) {
    Grouping<Index> grouping{std::vector<std::size_t>(groups + 1, 0), {}};
    for (std::size_t item = 0; item < count; ++item) {
        const std::size_t group = key(item);
        if (group < groups) {
            ++grouping.first[group + 1];
        }
    }
    for (std::size_t group = 0; group < groups; ++group) {
        grouping.first[group + 1] += grouping.first[group];
    }
    grouping.order.resize(grouping.first[groups]);
    std::vector<std::size_t> fill(grouping.first.begin(), grouping.first.end() - 1);
    for (std::size_t item = 0; item < count; ++item) {
        const std::size_t group = key(item);
        if (group < groups) {
            grouping.order[fill[group]++] = static_cast<Index>(item);
        }
    }
    return grouping;
}

}  // namespace tcgen::wet
