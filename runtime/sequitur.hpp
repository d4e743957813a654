#pragma once
// SEQUITUR (Nevill-Manning and Witten) over 32-bit symbols, one symbol at a
// time: the grammar of everything appended so far is kept digram-unique (no
// pair of adjacent symbols occurs twice; two overlapping occurrences, as in
// "aaa", count as one) and rule-useful (every rule but the start rule is
// used at least twice), and finishes into the canonical rule bodies of
// grammar_rules.hpp. The grammar back-end (grammar_codec.hpp) and
// libtcgen_wpp's GrammarBuilder share it.
//
// Determinism: the digram table is keyed on the symbols' values, never on
// addresses, and finish() numbers the rules canonically, so the same input
// gives the same rules on every run and every machine.
//
// Costs: linear time (amortised); 16 bytes per grammar symbol, 8 per rule
// and at most 16 per digram in the table (half full at most), with the
// vectors' growth slack: at most about 48 bytes per input symbol when the
// input has no repetition at all, far less on a trace. A grammar never has
// more symbols than the input (a new rule replaces four symbols by four, a
// rule reused or inlined removes one).
//
// How (made deterministic and free of recursion):
//   - Symbols live in one pool of nodes linked by 32-bit indices; each rule's
//     body is a circular list through a guard node.
//   - The digram table is open addressing over node indices, hashed and
//     compared on the two symbols' values (a terminal, or a rule's number):
//     never on an address, so the grammar is the same on every run.
//   - A digram is checked when it is created, but through a stack of
//     pending nodes drained after each operation rather than at once: a
//     substitution never runs in the middle of another. Whenever a digram
//     leaves the table, its neighbours are checked again, since an
//     overlapping twin ("aaa") that was left out of the table may now be the
//     only occurrence. A spare check is harmless (it finds the digram already
//     in the table, or a twin, or a true repeat to replace), so nothing needs
//     to know whether a pending node has been freed and reused meanwhile.
//   - Rule utility: a substitution removes only the two symbols that the
//     rule's body now holds, so only the rules its first and last symbols
//     refer to can drop to one use; both are checked (the reference checks
//     the first only).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "error.hpp"
#include "grammar_rules.hpp"

namespace tcgen_runtime {

namespace sequitur_detail {

inline constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint32_t max_nodes = none - 1;

enum class Kind : std::uint8_t { terminal, rule, guard, free };

struct Node {
    std::uint32_t value;  // the terminal, the rule referred to, or a guard's own rule
    std::uint32_t prev;
    std::uint32_t next;
    Kind kind;
};

struct RuleSlot {
    std::uint32_t guard;
    std::uint32_t uses;
};

class SequiturBuilder {
public:
    SequiturBuilder() {
        table.assign(1024, none);
        new_rule();  // rule 0: the start rule
    }

    // An Error past 2^32 - 2 grammar symbols.
    void append(std::uint32_t symbol) {
        const std::uint32_t node = new_node(Kind::terminal, symbol);
        insert_after(nodes[rules[0].guard].prev, node);
        drain();
    }

    // The rules of the symbols appended so far (grammar_rules.hpp: rule r's
    // body is symbols[offsets[r] .. offsets[r + 1])), canonically numbered:
    // in the order a depth-first walk from the start rule finishes them, so
    // that a body refers only to rules before it and the start rule is last.
    // The builder's own numbers (which reuse freed ones) never show. The
    // builder can go on appending afterwards.
    void finish(std::vector<std::uint64_t>& offsets, std::vector<GrammarSymbol>& symbols) const {
        const SequiturBuilder& s = *this;
        std::vector<std::uint32_t> number(s.rules.size(), none);
        std::vector<std::uint32_t> order;
        struct Visit {
            std::uint32_t rule;
            std::uint32_t node;
        };
        std::vector<Visit> stack{{0, s.nodes[s.rules[0].guard].next}};
        std::vector<bool> entered(s.rules.size(), false);
        entered[0] = true;
        while (!stack.empty()) {
            Visit& top = stack.back();
            if (s.is_guard(top.node)) {
                number[top.rule] = static_cast<std::uint32_t>(order.size());
                order.push_back(top.rule);
                stack.pop_back();
                continue;
            }
            const Node& node = s.nodes[top.node];
            top.node = node.next;
            if (node.kind == Kind::rule && !entered[node.value]) {
                entered[node.value] = true;
                stack.push_back(Visit{node.value, s.nodes[s.rules[node.value].guard].next});
            }
        }
        offsets.assign(1, 0);
        symbols.clear();
        for (const std::uint32_t rule : order) {
            const std::uint32_t guard = s.rules[rule].guard;
            for (std::uint32_t node = s.nodes[guard].next; node != guard; node = s.nodes[node].next) {
                const Node& n = s.nodes[node];
                symbols.push_back(n.kind == Kind::rule ? grammar_rule_base + number[n.value] : GrammarSymbol{n.value});
            }
            offsets.push_back(symbols.size());
        }
    }

private:
    std::vector<Node> nodes;
    std::vector<std::uint32_t> free_nodes;
    std::vector<RuleSlot> rules;
    std::vector<std::uint32_t> free_rules;
    std::vector<std::uint32_t> table;  // node indices, `none` when empty
    std::size_t table_entries = 0;
    std::vector<std::uint32_t> pending;

    // --- nodes and rules ---------------------------------------------------

    std::uint32_t new_node(Kind kind, std::uint32_t value) {
        std::uint32_t index;
        if (!free_nodes.empty()) {
            index = free_nodes.back();
            free_nodes.pop_back();
        } else {
            if (nodes.size() >= max_nodes) {
                fail("too long: the grammar would need more than " + std::to_string(max_nodes) + " symbols");
            }
            index = static_cast<std::uint32_t>(nodes.size());
            nodes.push_back(Node{});
        }
        nodes[index] = Node{value, none, none, kind};
        return index;
    }

    void free_node(std::uint32_t index) {
        nodes[index].kind = Kind::free;
        free_nodes.push_back(index);
    }

    std::uint32_t new_rule() {
        std::uint32_t rule;
        if (!free_rules.empty()) {
            rule = free_rules.back();
            free_rules.pop_back();
        } else {
            rule = static_cast<std::uint32_t>(rules.size());
            rules.push_back(RuleSlot{});
        }
        const std::uint32_t guard = new_node(Kind::guard, rule);
        nodes[guard].prev = guard;
        nodes[guard].next = guard;
        rules[rule] = RuleSlot{guard, 0};
        return rule;
    }

    // A symbol's identity for the digram table: terminals and rule numbers
    // kept apart by bit 32.
    std::uint64_t code(std::uint32_t node) const {
        const Node& n = nodes[node];
        return (n.kind == Kind::rule ? std::uint64_t{1} << 32 : 0) | n.value;
    }

    bool is_guard(std::uint32_t node) const { return nodes[node].kind == Kind::guard; }

    // Whether node starts a digram that may be in the table (not a guard, not
    // followed by one).
    bool starts_digram(std::uint32_t node) const {
        const Node& n = nodes[node];
        return n.kind != Kind::guard && n.kind != Kind::free && n.next != none && !is_guard(n.next);
    }

    // --- the digram table --------------------------------------------------

    std::size_t home(std::uint32_t node) const {
        std::uint64_t h = code(node) * 0x9E3779B97F4A7C15u ^ code(nodes[node].next);
        h ^= h >> 29;
        h *= 0xBF58476D1CE4E5B9u;
        h ^= h >> 32;
        return static_cast<std::size_t>(h) & (table.size() - 1);
    }

    bool same_digram(std::uint32_t a, std::uint32_t b) const {
        return code(a) == code(b) && code(nodes[a].next) == code(nodes[b].next);
    }

    // The slot holding node's digram, or the empty slot where it would go.
    std::size_t find_slot(std::uint32_t node) const {
        const std::size_t mask = table.size() - 1;
        std::size_t slot = home(node);
        while (table[slot] != none && !same_digram(table[slot], node)) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    void insert_at(std::size_t slot, std::uint32_t node) {
        table[slot] = node;
        ++table_entries;
        if (table_entries * 2 > table.size()) {
            grow_table();
        }
    }

    void grow_table() {
        std::vector<std::uint32_t> old(table.size() * 2, none);
        old.swap(table);
        for (const std::uint32_t node : old) {
            if (node != none) {
                table[find_slot(node)] = node;
            }
        }
    }

    // Linear probing's deletion by backward shift: every entry's home is
    // computed from its node's current digram, which the table's discipline
    // keeps true (an entry leaves before its node's links change).
    void erase_slot(std::size_t slot) {
        const std::size_t mask = table.size() - 1;
        std::size_t hole = slot;
        std::size_t probe = slot;
        for (;;) {
            probe = (probe + 1) & mask;
            if (table[probe] == none) {
                break;
            }
            const std::size_t want = home(table[probe]);
            const bool movable = hole <= probe ? (want <= hole || want > probe) : (want <= hole && want > probe);
            if (movable) {
                table[hole] = table[probe];
                hole = probe;
            }
        }
        table[hole] = none;
        --table_entries;
    }

    // Node's digram leaves the table if node is its entry; an overlapping
    // twin on either side must then be checked again.
    void forget(std::uint32_t node) {
        if (!starts_digram(node)) {
            return;
        }
        const std::size_t slot = find_slot(node);
        if (table[slot] == node) {
            erase_slot(slot);
            pending.push_back(nodes[node].prev);
            pending.push_back(nodes[node].next);
        }
    }

    // --- list surgery ------------------------------------------------------

    void join(std::uint32_t left, std::uint32_t right) {
        if (nodes[left].next != none) {
            forget(left);
        }
        nodes[left].next = right;
        nodes[right].prev = left;
        pending.push_back(left);
    }

    void insert_after(std::uint32_t at, std::uint32_t node) {
        join(node, nodes[at].next);
        join(at, node);
    }

    void remove(std::uint32_t node) {
        forget(node);
        join(nodes[node].prev, nodes[node].next);
        if (nodes[node].kind == Kind::rule) {
            --rules[nodes[node].value].uses;
        }
        free_node(node);
    }

    std::uint32_t copy_symbol(std::uint32_t node) {
        const Node& n = nodes[node];
        if (n.kind == Kind::rule) {
            ++rules[n.value].uses;
        }
        return new_node(n.kind, n.value);
    }

    // Replaces the digram starting at `first` by a reference to `rule`.
    void substitute(std::uint32_t first, std::uint32_t rule) {
        const std::uint32_t before = nodes[first].prev;
        remove(first);
        remove(nodes[before].next);
        const std::uint32_t reference = new_node(Kind::rule, rule);
        ++rules[rule].uses;
        insert_after(before, reference);
    }

    // A rule used once: its one reference is replaced by its body.
    void inline_rule(std::uint32_t reference) {
        const std::uint32_t rule = nodes[reference].value;
        const std::uint32_t guard = rules[rule].guard;
        const std::uint32_t first = nodes[guard].next;
        const std::uint32_t last = nodes[guard].prev;
        const std::uint32_t left = nodes[reference].prev;
        const std::uint32_t right = nodes[reference].next;
        forget(reference);
        join(left, first);
        join(last, right);  // (last, guard) was never in the table
        free_node(reference);
        free_node(guard);
        free_rules.push_back(rule);
    }

    void enforce_utility(std::uint32_t node) {
        if (nodes[node].kind == Kind::rule && rules[nodes[node].value].uses == 1) {
            inline_rule(node);
        }
    }

    // Two non-overlapping occurrences of one digram: `repeat` (just found)
    // and `entry` (in the table).
    void match(std::uint32_t repeat, std::uint32_t entry) {
        std::uint32_t rule;
        const std::uint32_t entry_second = nodes[entry].next;
        if (is_guard(nodes[entry].prev) && is_guard(nodes[entry_second].next) && nodes[nodes[entry].prev].value != 0) {
            // The entry is a whole rule's body: reuse the rule (never the
            // start rule, which nothing may refer to).
            rule = nodes[nodes[entry].prev].value;
            substitute(repeat, rule);
        } else {
            rule = new_rule();
            const std::uint32_t guard = rules[rule].guard;
            const std::uint32_t first = copy_symbol(repeat);
            const std::uint32_t second = copy_symbol(nodes[repeat].next);
            insert_after(guard, first);
            insert_after(first, second);
            substitute(entry, rule);
            substitute(repeat, rule);
            const std::size_t slot = find_slot(first);
            if (table[slot] == none) {
                insert_at(slot, first);
            }
        }
        const std::uint32_t guard = rules[rule].guard;
        enforce_utility(nodes[guard].next);
        enforce_utility(nodes[guard].prev);
    }

    void check(std::uint32_t node) {
        if (!starts_digram(node)) {
            return;
        }
        const std::size_t slot = find_slot(node);
        const std::uint32_t entry = table[slot];
        if (entry == none) {
            insert_at(slot, node);
            return;
        }
        if (entry == node || nodes[entry].next == node || nodes[node].next == entry) {
            return;  // this very digram, or an overlapping twin
        }
        match(node, entry);
    }

    void drain() {
        while (!pending.empty()) {
            const std::uint32_t node = pending.back();
            pending.pop_back();
            check(node);
        }
    }
};

}  // namespace sequitur_detail

using sequitur_detail::SequiturBuilder;

}  // namespace tcgen_runtime
