// Dynamic control parents from a block flow, in two linear passes over the
// flow that rebuild the same shadow call stack (FrameWalker):
//   1. the CFG of every function: nodes (function, block) and the distinct
//      edges seen between consecutive blocks of one frame;
//   then, per function, post-dominators (Cooper, Harvey and Kennedy's
//   iterative algorithm on the reverse CFG, rooted at the function's EXIT)
//   and the static control dependences (Ferrante et al.'s walk up the
//   post-dominator tree), as lists of controlling nodes per node;
//   2. the parents: the latest execution, in the current activation, of a
//   node that controls the current one.
//
// Pass 2 keeps one "last executed at" timestamp per node for all activations
// at once. A value written by a deeper activation of the same function would
// hide the enclosing activation's, so the first write of a node in an
// activation logs the old value and popping the frame restores it (an undo
// log). While a frame runs, every value of its function's nodes is then its
// own (>= its first timestamp) or an enclosing activation's (smaller), so
// "executed in this activation" is one comparison.
//
// Memory, besides the result (4 bytes per executed block) and nothing else
// per executed block: per static block 12 bytes; per node (a block as seen
// in one function) under 100 bytes (its block, function, successor cache,
// last timestamp, dominator state, its hash-table slots); per distinct
// CFG edge about 40 bytes (successor and predecessor lists, hash slot); per
// control dependence (node, controller) 8 bytes while built, 4 kept; per
// active frame 40 bytes; per first write of a controlling node in an active
// activation 8 bytes of undo log. All of these grow with the program's code
// and call depth, not with the length of the run: a 10.8 M-block run of
// python3 has 40 k static blocks and 68 k nodes.

#include "wet/dependences/control_dependence.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tcgen::wet {
namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kEmptyKey = std::numeric_limits<std::uint64_t>::max();

std::uint64_t pair_key(std::uint32_t high, std::uint32_t low) {
    return (std::uint64_t{high} << 32) | low;
}

// Open-addressing map from a 64-bit key (two 32-bit ids, never all ones) to a
// 32-bit value: the per-step lookups of both passes go through it, and a
// node-based std::unordered_map costs an allocation per entry.
class KeyMap {
public:
    KeyMap() : keys_(16, kEmptyKey), values_(16, kNone) {}

    std::uint32_t find(std::uint64_t key) const {
        for (std::size_t slot = home(key);; slot = (slot + 1) & mask()) {
            if (keys_[slot] == key) {
                return values_[slot];
            }
            if (keys_[slot] == kEmptyKey) {
                return kNone;
            }
        }
    }

    // Inserts key -> value unless key is present; returns the value now stored.
    std::uint32_t insert(std::uint64_t key, std::uint32_t value) {
        if (2 * (size_ + 1) > keys_.size()) {
            grow();
        }
        std::size_t slot = home(key);
        for (; keys_[slot] != kEmptyKey; slot = (slot + 1) & mask()) {
            if (keys_[slot] == key) {
                return values_[slot];
            }
        }
        keys_[slot] = key;
        values_[slot] = value;
        ++size_;
        return value;
    }

private:
    std::size_t mask() const { return keys_.size() - 1; }
    std::size_t home(std::uint64_t key) const {
        return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> 20) & mask();
    }

    void grow() {
        std::vector<std::uint64_t> keys(keys_.size() * 2, kEmptyKey);
        std::vector<std::uint32_t> values(values_.size() * 2, kNone);
        keys.swap(keys_);
        values.swap(values_);
        size_ = 0;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            if (keys[i] != kEmptyKey) {
                insert(keys[i], values[i]);
            }
        }
    }

    std::vector<std::uint64_t> keys_;
    std::vector<std::uint32_t> values_;
    std::size_t size_ = 0;
};

struct Frame {
    std::uint64_t return_address;  // the call block's pc + bytes (unused for the bottom frame)
    std::uint32_t function;        // entry block id
    std::uint32_t call_site;       // timestamp of the call block, 0 for the bottom frame
    std::uint32_t first_t;         // timestamp of the entry block's execution
    std::uint32_t last_node;       // pass 1: the node this frame executed last
    std::size_t undo_begin;        // pass 2: the frame's first entry in the undo log
};

// The shadow call stack both passes rebuild, step by step, exactly as the
// header describes it.
class FrameWalker {
public:
    // `first`: the block executed at t = 1.
    FrameWalker(const std::vector<BlockShape>& blocks, std::uint32_t first) : blocks_(blocks), previous_(first) {
        stack_.push_back(Frame{0, first, 0, 1, kNone, 0});
    }

    // Moves from timestamp t-1 to t (t >= 2), where `block` ran. Calls
    // on_pop(frame) for every popped frame, the top first, before removing
    // it. Returns true when a frame was pushed.
    template <class OnPop>
    bool advance(std::uint32_t t, std::uint32_t block, OnPop&& on_pop) {
        const BlockShape& previous = blocks_[previous_];
        previous_ = block;
        if (previous.end == 'C') {
            stack_.push_back(Frame{previous.pc + previous.bytes, block, t - 1, t, kNone, 0});
            return true;
        }
        if (previous.end == 'R') {
            const std::uint64_t pc = blocks_[block].pc;
            for (std::size_t i = stack_.size() - 1; i >= 1; --i) {
                if (stack_[i].return_address == pc) {
                    while (stack_.size() > i) {
                        on_pop(stack_.back());
                        stack_.pop_back();
                    }
                    break;
                }
            }
        }
        return false;
    }

    Frame& top() { return stack_.back(); }

private:
    const std::vector<BlockShape>& blocks_;
    std::uint32_t previous_;  // the block executed at t - 1
    std::vector<Frame> stack_;
};

// Nodes: a block as it runs in one function. Ids are dense in order of first
// execution, so everything indexed by node is deterministic.
struct Nodes {
    explicit Nodes(std::size_t block_count) : cached_function(block_count, kNone), cached_node(block_count, kNone) {}

    // The node of block in function, created when create is set; kNone when
    // absent and not created.
    std::uint32_t get(std::uint32_t function, std::uint32_t block, bool create) {
        if (cached_function[block] == function) {
            return cached_node[block];
        }
        const std::uint64_t key = pair_key(function, block);
        std::uint32_t node = by_key.find(key);
        if (node == kNone) {
            if (!create) {
                return kNone;
            }
            node = static_cast<std::uint32_t>(block_of.size());
            by_key.insert(key, node);
            block_of.push_back(block);
            function_of.push_back(function);
        }
        cached_function[block] = function;
        cached_node[block] = node;
        return node;
    }

    std::size_t size() const { return block_of.size(); }

    std::vector<std::uint32_t> block_of;
    std::vector<std::uint32_t> function_of;  // entry block id
    KeyMap by_key;                           // (function, block) -> node
    // The node each block had last: most blocks run in one function only, so
    // this spares the hash table nearly every step.
    std::vector<std::uint32_t> cached_function;
    std::vector<std::uint32_t> cached_node;
};

// Compressed adjacency: the targets of node v are items[begin[v] .. begin[v+1]).
struct Adjacency {
    std::vector<std::uint32_t> begin;
    std::vector<std::uint32_t> items;

    const std::uint32_t* first(std::uint32_t v) const { return items.data() + begin[v]; }
    const std::uint32_t* last(std::uint32_t v) const { return items.data() + begin[v + 1]; }
};

// pairs (from, to) -> the targets of every from, in the pairs' order.
Adjacency group(std::size_t node_count, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs,
                bool reverse) {
    Adjacency adjacency;
    adjacency.begin.assign(node_count + 1, 0);
    for (const auto& pair : pairs) {
        ++adjacency.begin[(reverse ? pair.second : pair.first) + 1];
    }
    for (std::size_t v = 0; v < node_count; ++v) {
        adjacency.begin[v + 1] += adjacency.begin[v];
    }
    adjacency.items.resize(pairs.size());
    std::vector<std::uint32_t> fill(adjacency.begin.begin(), adjacency.begin.end() - 1);
    for (const auto& pair : pairs) {
        const std::uint32_t from = reverse ? pair.second : pair.first;
        adjacency.items[fill[from]++] = reverse ? pair.first : pair.second;
    }
    return adjacency;
}

// Pass 1: the nodes and the distinct edges between them.
std::vector<std::pair<std::uint32_t, std::uint32_t>> discover_cfg(const std::vector<BlockShape>& blocks,
                                                                  const FlowPass& flow, std::size_t executed,
                                                                  Nodes& nodes) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    KeyMap edge_set;
    std::vector<std::uint32_t> last_successor;  // per node: skips the edge set for a repeated edge
    std::optional<FrameWalker> walker;
    each_block(flow, [&](std::uint64_t t, std::uint32_t block) {
        if (t > executed) {
            throw std::invalid_argument("control dependence: more than " + std::to_string(executed) +
                                        " executed blocks in the flow");
        }
        if (block >= blocks.size()) {
            throw std::invalid_argument("control dependence: the block executed at " + std::to_string(t) + " is " +
                                        std::to_string(block) + ", but there are only " +
                                        std::to_string(blocks.size()) + " blocks");
        }
        if (t >= 2) {
            walker->advance(static_cast<std::uint32_t>(t), block, [](const Frame&) {});
        } else {
            walker.emplace(blocks, block);
        }
        Frame& frame = walker->top();
        const std::uint32_t node = nodes.get(frame.function, block, true);
        if (node == last_successor.size()) {
            last_successor.push_back(kNone);
        }
        const std::uint32_t from = frame.last_node;
        if (from != kNone && last_successor[from] != node) {
            last_successor[from] = node;
            const auto index = static_cast<std::uint32_t>(edges.size());
            if (edge_set.insert(pair_key(from, node), index) == index) {
                edges.emplace_back(from, node);
            }
        }
        frame.last_node = node;
    });
    return edges;
}

// Immediate post-dominators of every node, ids node_count + f being the EXIT
// of function f (functions numbered in order of first execution). Also says
// which nodes have an edge to EXIT.
struct PostDominators {
    std::vector<std::uint32_t> ipdom;  // per node and EXIT; kNone for an EXIT
};

PostDominators post_dominators(const std::vector<BlockShape>& blocks, const Nodes& nodes,
                               const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges) {
    const std::size_t node_count = nodes.size();
    const Adjacency successors = group(node_count, edges, false);
    const Adjacency predecessors = group(node_count, edges, true);

    // Functions, and their nodes in node order.
    std::vector<std::uint32_t> function_index(blocks.size(), kNone);
    std::vector<std::uint32_t> function_of(node_count);
    std::uint32_t function_count = 0;
    for (std::size_t v = 0; v < node_count; ++v) {
        std::uint32_t& index = function_index[nodes.function_of[v]];
        if (index == kNone) {
            index = function_count++;
        }
        function_of[v] = index;
    }
    std::vector<std::pair<std::uint32_t, std::uint32_t>> membership(node_count);
    for (std::size_t v = 0; v < node_count; ++v) {
        membership[v] = {function_of[v], static_cast<std::uint32_t>(v)};
    }
    const Adjacency members = group(function_count, membership, false);

    // Edges to EXIT: a return, no successor, then whatever cannot reach EXIT.
    std::vector<char> to_exit(node_count, 0);
    for (std::size_t v = 0; v < node_count; ++v) {
        const auto node = static_cast<std::uint32_t>(v);
        to_exit[v] = blocks[nodes.block_of[v]].end == 'R' || successors.first(node) == successors.last(node);
    }
    std::vector<char> reaches_exit(node_count, 0);
    std::vector<std::uint32_t> work;
    for (std::size_t v = 0; v < node_count; ++v) {
        if (to_exit[v]) {
            reaches_exit[v] = 1;
            work.push_back(static_cast<std::uint32_t>(v));
        }
    }
    while (!work.empty()) {
        const std::uint32_t v = work.back();
        work.pop_back();
        for (const std::uint32_t* p = predecessors.first(v); p != predecessors.last(v); ++p) {
            if (!reaches_exit[*p]) {
                reaches_exit[*p] = 1;
                work.push_back(*p);
            }
        }
    }
    for (std::size_t v = 0; v < node_count; ++v) {
        if (!reaches_exit[v]) {
            to_exit[v] = 1;
        }
    }

    // Per function: postorder of the reverse CFG from EXIT (iterative DFS:
    // call depth must not follow the code's size), then the iteration.
    const std::size_t total = node_count + function_count;
    PostDominators result;
    result.ipdom.assign(total, kNone);
    std::vector<std::uint32_t> postorder_number(total, kNone);
    std::vector<char> seen(total, 0);
    std::vector<std::uint32_t> order;                          // reverse postorder, EXIT excluded
    std::vector<std::pair<std::uint32_t, std::uint32_t>> dfs;  // (vertex, next child index)
    for (std::uint32_t f = 0; f < function_count; ++f) {
        const auto exit = static_cast<std::uint32_t>(node_count + f);
        // The reverse CFG's successors: of EXIT, the nodes with an edge to it
        // (in node order); of a node, its CFG predecessors.
        std::vector<std::uint32_t> exit_children;
        for (const std::uint32_t* m = members.first(f); m != members.last(f); ++m) {
            if (to_exit[*m]) {
                exit_children.push_back(*m);
            }
        }
        order.clear();
        std::uint32_t number = 0;
        seen[exit] = 1;
        dfs.assign(1, {exit, 0});
        while (!dfs.empty()) {
            auto& [vertex, next] = dfs.back();
            const std::uint32_t* first = vertex == exit ? exit_children.data() : predecessors.first(vertex);
            const std::uint32_t* last =
                vertex == exit ? exit_children.data() + exit_children.size() : predecessors.last(vertex);
            if (first + next != last) {
                const std::uint32_t child = first[next++];
                if (!seen[child]) {
                    seen[child] = 1;
                    dfs.emplace_back(child, 0);
                }
                continue;
            }
            postorder_number[vertex] = number++;
            if (vertex != exit) {
                order.push_back(vertex);
            }
            dfs.pop_back();
        }
        std::reverse(order.begin(), order.end());

        std::vector<std::uint32_t>& ipdom = result.ipdom;
        ipdom[exit] = exit;  // the root dominates itself during the iteration
        const auto intersect = [&](std::uint32_t a, std::uint32_t b) {
            while (a != b) {
                while (postorder_number[a] < postorder_number[b]) {
                    a = ipdom[a];
                }
                while (postorder_number[b] < postorder_number[a]) {
                    b = ipdom[b];
                }
            }
            return a;
        };
        for (bool changed = true; changed;) {
            changed = false;
            for (const std::uint32_t v : order) {
                // Its predecessors in the reverse CFG: its CFG successors and EXIT.
                std::uint32_t candidate = to_exit[v] ? exit : kNone;
                for (const std::uint32_t* s = successors.first(v); s != successors.last(v); ++s) {
                    if (ipdom[*s] == kNone) {
                        continue;  // not processed yet
                    }
                    candidate = candidate == kNone ? *s : intersect(*s, candidate);
                }
                if (candidate != ipdom[v]) {
                    ipdom[v] = candidate;
                    changed = true;
                }
            }
        }
        ipdom[exit] = kNone;
    }
    return result;
}

// The controllers of every node: X controls Y (Y is control dependent on X).
Adjacency control_dependences(std::size_t node_count, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& edges,
                              const PostDominators& post) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> dependences;  // (dependent, controller)
    for (const auto& [from, to] : edges) {
        const std::uint32_t stop = post.ipdom[from];
        for (std::uint32_t runner = to; runner != stop; runner = post.ipdom[runner]) {
            dependences.emplace_back(runner, from);
        }
    }
    return group(node_count, dependences, false);
}

}  // namespace

void each_control_parent(const std::vector<BlockShape>& blocks, const FlowPass& flow, std::size_t executed,
                         const std::function<void(std::uint32_t t, std::uint32_t block, std::uint32_t parent)>& visit) {
    if (executed == 0) {
        return;
    }
    if (executed > std::numeric_limits<std::uint32_t>::max() || !flow) {
        throw std::invalid_argument("control dependence: " + std::to_string(executed) +
                                    " executed blocks do not fit 32-bit timestamps, or the flow is missing");
    }
    if (blocks.size() >= kNone) {
        throw std::invalid_argument("control dependence: too many blocks for 32-bit ids");
    }

    Nodes nodes(blocks.size());
    const auto edges = discover_cfg(blocks, flow, executed, nodes);
    const Adjacency controllers = control_dependences(nodes.size(), edges, post_dominators(blocks, nodes, edges));
    std::vector<char> is_controller(nodes.size(), 0);
    for (const std::uint32_t x : controllers.items) {
        is_controller[x] = 1;
    }

    std::vector<std::uint32_t> last_t(nodes.size(), 0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> undo;  // (node, value before this activation wrote it)
    std::optional<FrameWalker> walker;
    const auto restore = [&](const Frame& frame) {
        while (undo.size() > frame.undo_begin) {
            last_t[undo.back().first] = undo.back().second;
            undo.pop_back();
        }
    };
    // A flow read again from its file must be the one the first pass saw.
    const auto changed = [] {
        throw std::invalid_argument("control dependence: the flow changed between its two passes");
    };
    each_block(flow, [&](std::uint64_t step, std::uint32_t block) {
        const auto t = static_cast<std::uint32_t>(step);
        if (step > executed || block >= blocks.size()) {
            changed();
        }
        if (t >= 2) {
            if (walker->advance(t, block, restore)) {
                walker->top().undo_begin = undo.size();
            }
        } else {
            walker.emplace(blocks, block);
        }
        const Frame& frame = walker->top();
        const std::uint32_t node = nodes.get(frame.function, block, false);
        if (node == kNone) {
            changed();
        }
        std::uint32_t parent = 0;
        for (const std::uint32_t* x = controllers.first(node); x != controllers.last(node); ++x) {
            const std::uint32_t when = last_t[*x];
            if (when >= frame.first_t && when > parent) {
                parent = when;
            }
        }
        visit(t, block, parent != 0 ? parent : frame.call_site);
        if (is_controller[node]) {
            if (last_t[node] < frame.first_t) {
                undo.emplace_back(node, last_t[node]);
            }
            last_t[node] = t;
        }
    });
}

std::vector<std::uint32_t> dynamic_control_parents(const std::vector<BlockShape>& blocks, const std::uint32_t* flow,
                                                   std::size_t executed) {
    if (executed != 0 && flow == nullptr) {
        throw std::invalid_argument("control dependence: " + std::to_string(executed) +
                                    " executed blocks do not fit 32-bit timestamps, or the flow is missing");
    }
    std::vector<std::uint32_t> parents(executed);
    each_control_parent(blocks, flow_pass(flow, executed), executed,
                        [&](std::uint32_t t, std::uint32_t, std::uint32_t parent) { parents[t - 1] = parent; });
    return parents;
}

}  // namespace tcgen::wet
