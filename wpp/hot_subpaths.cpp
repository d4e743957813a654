// Hot subpaths of length L on the grammar DAG (after Larus, section 4.2):
// every length-L window of the expansion lies within the expansion of one
// deepest rule occurrence, where it crosses the boundary between two of
// that rule's body symbols. So each rule R counts the windows of its own
// body that do not lie within a single child rule, weighted by how many
// times R occurs in the expansion; for that it needs only the first and
// last L-1 symbols of each child (computed bottom-up), never the expansion.
// A child longer than 2(L-1) shows as its prefix, a gap, its suffix: no
// window spans the gap. Windows go into one table hashed by a rolling
// polynomial hash and compared in full, so a collision costs time, never a
// wrong count.

#include <tcgen/wpp/grammar.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace tcgen::wpp {
namespace {

constexpr std::uint64_t hash_base = 0x100000001B3u * 2 + 1;

std::uint64_t mix(std::uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDu;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53u;
    h ^= h >> 33;
    return h;
}

// Distinct windows of one length and their counts.
class WindowTable {
public:
    explicit WindowTable(std::size_t length) : length_(length), slots_(1024, none) {
        top_power_ = 1;
        for (std::size_t i = 1; i < length; ++i) {
            top_power_ *= hash_base;
        }
    }

    std::uint64_t top_power() const { return top_power_; }

    void add(const std::uint32_t* window, std::uint64_t hash, std::uint64_t weight) {
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t slot = static_cast<std::size_t>(mix(hash)) & mask;; slot = (slot + 1) & mask) {
            const std::uint32_t index = slots_[slot];
            if (index == none) {
                slots_[slot] = static_cast<std::uint32_t>(entries_.size());
                entries_.push_back(Entry{hash, weight});
                windows_.insert(windows_.end(), window, window + length_);
                if (entries_.size() * 2 > slots_.size()) {
                    grow();
                }
                return;
            }
            Entry& entry = entries_[index];
            if (entry.hash == hash &&
                std::memcmp(windows_.data() + index * length_, window, length_ * sizeof(std::uint32_t)) == 0) {
                entry.count += weight;
                return;
            }
        }
    }

    std::vector<Subpath> top(std::size_t wanted) const {
        std::vector<std::uint32_t> order(entries_.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            order[i] = static_cast<std::uint32_t>(i);
        }
        const auto before = [&](std::uint32_t a, std::uint32_t b) {
            if (entries_[a].count != entries_[b].count) {
                return entries_[a].count > entries_[b].count;
            }
            const std::uint32_t* x = windows_.data() + a * length_;
            const std::uint32_t* y = windows_.data() + b * length_;
            return std::lexicographical_compare(x, x + length_, y, y + length_);
        };
        if (wanted == 0 || wanted > order.size()) {
            wanted = order.size();
        }
        std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(wanted), order.end(), before);
        std::vector<Subpath> result(wanted);
        for (std::size_t i = 0; i < wanted; ++i) {
            result[i].count = entries_[order[i]].count;
            const std::uint32_t* window = windows_.data() + order[i] * length_;
            result[i].symbols.assign(window, window + length_);
        }
        return result;
    }

private:
    static constexpr std::uint32_t none = 0xFFFFFFFFu;
    struct Entry {
        std::uint64_t hash;
        std::uint64_t count;
    };

    void grow() {
        std::vector<std::uint32_t> slots(slots_.size() * 2, none);
        const std::size_t mask = slots.size() - 1;
        for (std::size_t index = 0; index < entries_.size(); ++index) {
            std::size_t slot = static_cast<std::size_t>(mix(entries_[index].hash)) & mask;
            while (slots[slot] != none) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = static_cast<std::uint32_t>(index);
        }
        slots_.swap(slots);
    }

    std::size_t length_;
    std::uint64_t top_power_;
    std::vector<std::uint32_t> slots_;
    std::vector<Entry> entries_;
    std::vector<std::uint32_t> windows_;
};

// Adds the windows of one gap-free run whose first and last symbols lie in
// different segments (every window when `segments` is null).
void count_run(WindowTable& table, const std::vector<std::uint32_t>& run, const std::uint32_t* segments,
               std::size_t length, std::uint64_t weight) {
    if (run.size() < length) {
        return;
    }
    std::uint64_t hash = 0;
    for (std::size_t i = 0; i < length; ++i) {
        hash = hash * hash_base + run[i];
    }
    for (std::size_t start = 0;; ++start) {
        if (segments == nullptr || segments[start] != segments[start + length - 1]) {
            table.add(run.data() + start, hash, weight);
        }
        if (start + length == run.size()) {
            return;
        }
        hash = (hash - run[start] * table.top_power()) * hash_base + run[start + length];
    }
}

// The most a window table of `windows` distinct windows of `length` costs:
// the symbols, an entry, two slots (the table is at most half full) and
// vectors' doubling.
std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

void check_memory(std::uint64_t windows, std::size_t length, std::uint64_t edge_symbols, std::uint64_t limit) {
    const std::uint64_t per_window = 2 * (4 * std::uint64_t{length} + 16) + 2 * 4;
    const std::uint64_t window_bytes = saturating_product(windows, per_window);
    const std::uint64_t edge_bytes = saturating_product(edge_symbols, 4);
    const std::uint64_t need = window_bytes > UINT64_MAX - edge_bytes ? UINT64_MAX : window_bytes + edge_bytes;
    if (need > limit || windows >= 0xFFFFFFFFu) {
        throw WppError("hot", "subpaths of " + std::to_string(length) + " symbols could need " +
                                  std::to_string(need >> 20) + " MiB, more than the limit of " +
                                  std::to_string(limit >> 20) + " MiB: choose a smaller length");
    }
}

}  // namespace

std::vector<Subpath> hot_subpaths(const Grammar& grammar, std::size_t length, std::size_t top,
                                  std::uint64_t memory_limit) {
    if (length == 0 || length > grammar.length()) {
        return {};
    }
    {
        // Distinct windows: no more than the expansion's windows, nor than
        // the windows each body boundary can start (L - 1 of them).
        const std::uint64_t in_sequence = grammar.length() - length + 1;
        const std::uint64_t crossing = saturating_product(grammar.body_symbols(), length);
        const std::uint64_t edges = saturating_product(2 * std::uint64_t{grammar.rule_count()}, length - 1);
        check_memory(std::min(in_sequence, crossing), length, edges, memory_limit);
    }
    const std::uint32_t rules = grammar.rule_count();
    // How many times each rule occurs in the expansion: from the start rule
    // down, parents (higher numbers) before children.
    std::vector<std::uint64_t> occurrences(rules, 0);
    occurrences[grammar.start_rule()] = 1;
    for (std::uint32_t rule = rules; rule-- > 0;) {
        const Symbol* body = grammar.body(rule);
        for (std::size_t i = 0; i < grammar.body_size(rule); ++i) {
            if (is_rule(body[i])) {
                occurrences[rule_of(body[i])] += occurrences[rule];
            }
        }
    }
    WindowTable table(length);
    if (length == 1) {
        for (std::uint32_t rule = 0; rule < rules; ++rule) {
            if (occurrences[rule] == 0) {
                continue;  // a rule the expansion never uses: its symbols occur nowhere
            }
            const Symbol* body = grammar.body(rule);
            for (std::size_t i = 0; i < grammar.body_size(rule); ++i) {
                if (!is_rule(body[i])) {
                    const std::uint32_t symbol = terminal_of(body[i]);
                    table.add(&symbol, symbol, occurrences[rule]);
                }
            }
        }
        return table.top(top);
    }
    // The first and the last min(length of the rule, L-1) symbols of each rule.
    const std::size_t edge = length - 1;
    std::vector<std::uint32_t> prefixes(std::size_t{rules} * edge);
    std::vector<std::uint32_t> suffixes(std::size_t{rules} * edge);
    const auto edge_size = [&](std::uint32_t rule) {
        return static_cast<std::size_t>(std::min<std::uint64_t>(grammar.expanded_length(rule), edge));
    };
    for (std::uint32_t rule = 0; rule < rules; ++rule) {
        const Symbol* body = grammar.body(rule);
        const std::size_t size = grammar.body_size(rule);
        const std::size_t want = edge_size(rule);
        std::uint32_t* prefix = prefixes.data() + std::size_t{rule} * edge;
        std::size_t have = 0;
        for (std::size_t i = 0; i < size && have < want; ++i) {
            if (is_rule(body[i])) {
                const std::uint32_t child = rule_of(body[i]);
                const std::size_t take = std::min(edge_size(child), want - have);
                std::copy_n(prefixes.data() + std::size_t{child} * edge, take, prefix + have);
                have += take;
            } else {
                prefix[have++] = terminal_of(body[i]);
            }
        }
        std::uint32_t* suffix = suffixes.data() + std::size_t{rule} * edge;
        std::size_t missing = want;  // suffix[0, missing) still to fill, from the right
        for (std::size_t i = size; i-- > 0 && missing > 0;) {
            if (is_rule(body[i])) {
                const std::uint32_t child = rule_of(body[i]);
                const std::size_t child_size = edge_size(child);
                const std::size_t take = std::min(child_size, missing);
                std::copy_n(suffixes.data() + std::size_t{child} * edge + (child_size - take), take,
                            suffix + (missing - take));
                missing -= take;
            } else {
                suffix[--missing] = terminal_of(body[i]);
            }
        }
    }
    std::vector<std::uint32_t> run;
    std::vector<std::uint32_t> segments;  // body index of each symbol (mod 2^32: compared L-1 apart only)
    for (std::uint32_t rule = 0; rule < rules; ++rule) {
        const std::uint64_t weight = occurrences[rule];
        if (weight == 0) {
            continue;
        }
        run.clear();
        segments.clear();
        const Symbol* body = grammar.body(rule);
        const std::size_t size = grammar.body_size(rule);
        for (std::size_t i = 0; i < size; ++i) {
            if (!is_rule(body[i])) {
                run.push_back(terminal_of(body[i]));
                segments.push_back(static_cast<std::uint32_t>(i));
                continue;
            }
            const std::uint32_t child = rule_of(body[i]);
            const std::uint64_t child_length = grammar.expanded_length(child);
            const std::uint32_t* prefix = prefixes.data() + std::size_t{child} * edge;
            const std::uint32_t* suffix = suffixes.data() + std::size_t{child} * edge;
            const std::size_t prefix_size = edge_size(child);
            run.insert(run.end(), prefix, prefix + prefix_size);
            segments.insert(segments.end(), prefix_size, static_cast<std::uint32_t>(i));
            if (child_length <= edge) {
                continue;  // the prefix is the whole expansion
            }
            if (child_length <= 2 * edge) {
                // Prefix and suffix overlap: the rest of the expansion.
                const std::size_t rest = static_cast<std::size_t>(child_length - edge);
                run.insert(run.end(), suffix + (edge - rest), suffix + edge);
                segments.insert(segments.end(), rest, static_cast<std::uint32_t>(i));
                continue;
            }
            count_run(table, run, segments.data(), length, weight);
            run.assign(suffix, suffix + edge);
            segments.assign(edge, static_cast<std::uint32_t>(i));
        }
        count_run(table, run, segments.data(), length, weight);
    }
    return table.top(top);
}

std::vector<Subpath> hot_subpaths_of_sequence(const std::uint32_t* symbols, std::size_t count, std::size_t length,
                                              std::size_t top, std::uint64_t memory_limit) {
    if (length == 0 || length > count) {
        return {};
    }
    check_memory(count - length + 1, length, 0, memory_limit);
    WindowTable table(length);
    std::uint64_t hash = 0;
    for (std::size_t i = 0; i < length; ++i) {
        hash = hash * hash_base + symbols[i];
    }
    for (std::size_t start = 0;; ++start) {
        table.add(symbols + start, hash, 1);
        if (start + length == count) {
            break;
        }
        hash = (hash - symbols[start] * table.top_power()) * hash_base + symbols[start + length];
    }
    return table.top(top);
}

}  // namespace tcgen::wpp
