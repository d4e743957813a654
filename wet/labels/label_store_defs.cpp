// A load's def searched for from its LoadDefs label, one execution at a
// time (label_store_sweep.cpp finds all of a load's at once): kept as a
// rank or a distance among its store's executions, inferred as the latest
// execution of its store that wrote the load's address, or as the latest
// such write among the load's writers; and the store address indexes that
// answer those searches for a def far back.

#include "wet/labels/label_store.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

#include "wet/labels/def_encoding.hpp"

namespace tcgen::wet {

using namespace def_encoding;

StoreAddressIndex::Access LabelStore::store_access(std::uint32_t store, std::uint64_t execution) {
    if (const StoreAddressIndex* index = store_indexes_.find(store)) {
        return index->access(static_cast<std::uint32_t>(execution));
    }
    return {address_at(store, execution), values_.open(store).at(execution).field1};
}

std::optional<Def> LabelStore::searched_def(std::uint32_t node, std::uint64_t index, std::uint32_t t) {
    const std::optional<DefExecution> def = def_execution(node, index, t);
    return def ? std::optional<Def>(Def{def->store, def->t}) : std::nullopt;
}

std::optional<LabelStore::DefExecution> LabelStore::def_execution(std::uint32_t node, std::uint64_t index,
                                                                  std::uint32_t t,
                                                                  std::optional<std::uint64_t> load_address) {
    if (defs_.empty(node)) {
        return std::nullopt;
    }
    const LoadDefs::Record record = defs_.open(node).at(index);
    if (record.field1 == 0) {
        return std::nullopt;
    }
    // Made only for a message: a slice asks for millions of defs.
    const auto where = [&] { return "def of node " + std::to_string(node) + " at t " + std::to_string(t); };
    const auto address = [&] { return load_address ? *load_address : address_at(node, index); };
    if (record.field1 == by_writers_field1) {
        const Writers writers = writers_of(node);
        if (writers.first == writers.second || record.field2 != inferred_field2) {
            corrupt(where() + ": found among the writers of a load that has none");
        }
        return latest_write(node, t, writers, address(), where);
    }
    const std::uint32_t store = record.field1 - first_def_store;
    if (store >= nodes_->size() || shape_of(store).access != 'S' || times_of(store) == Times::never) {
        corrupt(where() + ": node " + std::to_string(store) + " is not a store that ran");
    }
    if (record.field2 >= first_distance) {
        const std::uint32_t distance = record.field2 - first_distance;
        const std::optional<std::uint64_t> execution =
            distance <= t ? node_execution(store, t - distance) : std::nullopt;
        if (!execution) {
            corrupt(where() + ": store node " + std::to_string(store) + " did not run a distance of " +
                    std::to_string(distance) + " before");
        }
        return DefExecution{store, *execution, t - distance};
    }
    if (record.field2 == inferred_field2) {
        return latest_write(node, t, Writers{&store, &store + 1}, address(), where);
    }
    // A rank counts back from the store's latest execution before the load.
    const StoreAddressIndex* indexed = store_indexes_.find(store);
    const std::uint64_t before = executions_below(store, store_horizon(store, node, t), indexed);
    const std::uint64_t rank = record.field2 - first_rank;
    if (rank >= before) {
        corrupt(where() + ": rank " + std::to_string(rank) + " of " + std::to_string(before) + " earlier executions");
    }
    const std::uint64_t execution = before - 1 - rank;
    return DefExecution{store, execution, execution_time(store, execution, indexed)};
}

std::uint64_t LabelStore::executions_below(std::uint32_t store, std::uint64_t horizon,
                                           const StoreAddressIndex* indexed) {
    return indexed != nullptr && indexed->has_times() ? indexed->count_below(horizon)
                                                      : times_count_below(store, horizon);
}

std::uint32_t LabelStore::execution_time(std::uint32_t store, std::uint64_t execution,
                                         const StoreAddressIndex* indexed) {
    return indexed != nullptr && indexed->has_times() ? indexed->time(static_cast<std::uint32_t>(execution))
                                                      : times_at(store, execution);
}

template <class Where>
LabelStore::DefExecution LabelStore::latest_write(std::uint32_t load, std::uint32_t t, Writers writers,
                                                  std::uint64_t address, const Where& where) {
    // Each writer's executions before the load, asked latest last execution
    // first: once a write is found, a writer whose last execution is older
    // cannot beat it, and the others are asked only about their executions
    // after it (most loads read what was written last: one writer's search).
    // Writers that run at every execution of one block (several stores of
    // an unrolled loop) have the same executions: counted once.
    struct Asked {
        std::uint32_t store;
        std::uint64_t before;   // its executions before the load
        std::uint32_t last_t;   // the latest of them
        std::uint64_t horizon;  // before it
        bool with_block;        // runs at every execution of its block
    };
    std::array<Asked, max_load_writers> asked;
    std::size_t count = 0;
    std::uint64_t executions = 0;  // for a message
    for (const std::uint32_t* store = writers.first; store != writers.second; ++store) {
        const std::uint64_t horizon = store_horizon(*store, load, t);
        const bool with_block = times_of(*store) == Times::block;
        const auto same =
            std::find_if(asked.begin(), asked.begin() + static_cast<std::ptrdiff_t>(count), [&](const Asked& other) {
                return with_block && other.with_block && other.horizon == horizon &&
                       shape_of(other.store).block == shape_of(*store).block;
            });
        if (same != asked.begin() + static_cast<std::ptrdiff_t>(count)) {
            executions += same->before;
            asked[count++] = Asked{*store, same->before, same->last_t, horizon, true};
            continue;
        }
        const StoreAddressIndex* indexed = store_indexes_.find(*store);
        const std::uint64_t before = executions_below(*store, horizon, indexed);
        executions += before;
        if (before != 0) {
            const std::uint32_t last_t =
                writers.second - writers.first == 1 ? 0 : execution_time(*store, before - 1, indexed);
            asked[count++] = Asked{*store, before, last_t, horizon, with_block};
        }
    }
    std::sort(asked.begin(), asked.begin() + static_cast<std::ptrdiff_t>(count), [](const Asked& a, const Asked& b) {
        return a.last_t != b.last_t ? a.last_t > b.last_t : a.store > b.store;
    });
    // The later write; of two in one block execution, the later node's.
    const auto later = [](std::uint32_t t_a, std::uint32_t store_a, const DefExecution& b) {
        return t_a > b.t || (t_a == b.t && store_a > b.store);
    };
    std::optional<DefExecution> latest;
    for (std::size_t at = 0; at < count; ++at) {
        const Asked& writer = asked[at];
        if (latest && !later(writer.last_t, writer.store, *latest)) {
            break;
        }
        // Its executions that would be later than the write found.
        const std::uint64_t floor =
            latest ? executions_below(writer.store, latest->t + (writer.store > latest->store ? 0 : 1),
                                      store_indexes_.find(writer.store))
                   : 0;
        if (floor < writer.before) {
            if (const std::optional<DefExecution> write = inferred_def(writer.store, writer.before, address, floor)) {
                latest = write;
            }
        }
    }
    if (!latest) {
        std::string stores;
        for (const std::uint32_t* store = writers.first; store != writers.second; ++store) {
            stores += (stores.empty() ? "" : ", ") + std::to_string(*store);
        }
        corrupt(where() + ": none of store node" + (writers.second - writers.first > 1 ? "s " : " ") + stores + "'s " +
                std::to_string(executions) + " executions before it wrote address " + std::to_string(address));
    }
    return *latest;
}

LabelStore::Writers LabelStore::writers_of(std::uint32_t load) const {
    const auto found = std::lower_bound(writer_loads_.begin(), writer_loads_.end(), load);
    if (found == writer_loads_.end() || *found != load) {
        return {nullptr, nullptr};
    }
    const auto at = static_cast<std::size_t>(found - writer_loads_.begin());
    return {writers_.data() + writer_first_[at], writers_.data() + writer_first_[at + 1]};
}

std::optional<LabelStore::DefExecution> LabelStore::inferred_def(std::uint32_t store, std::uint64_t before,
                                                                 std::uint64_t address, std::uint64_t floor) {
    const std::uint16_t size = shape_of(store).size;
    // Execution j's address and timestamp: array reads when the store is
    // indexed, else steps of its labels (the address label's cursor walks
    // back from where times_count_below left the timestamps').
    const StoreAddressIndex* index = store_indexes_.find(store);
    Label<NodeAddresses>* stored = index != nullptr ? nullptr : &addresses_.open(store);
    const std::optional<std::uint32_t> sibling = address_sibling(store);
    Label<NodeAddresses>* base = stored != nullptr && sibling ? &addresses_.open(*sibling) : nullptr;
    const auto address_of = [&](std::uint64_t execution) {
        return index != nullptr ? index->access(static_cast<std::uint32_t>(execution)).address
                                : stored->at(execution).field1 + (base != nullptr ? base->at(execution).field1 : 0);
    };
    const auto def = [&](std::uint64_t execution) {
        return DefExecution{store, execution, execution_time(store, execution, index)};
    };
    const std::uint64_t span = before - floor;  // the executions asked about
    const std::uint64_t walked = std::min<std::uint64_t>(span, walked_executions);
    for (std::uint64_t back = 1; back <= walked; ++back) {
        if (covers(address_of(before - back), size, address)) {
            return def(before - back);
        }
    }
    if (walked == span) {
        return std::nullopt;
    }
    if (index == nullptr) {
        index = store_index(store);  // its own cache: `stored` and `base` stay open
    }
    if (index != nullptr) {
        const std::optional<std::uint32_t> execution = index->latest_covering(address, size, before - walked);
        return execution && *execution >= floor ? std::optional<DefExecution>(def(*execution)) : std::nullopt;
    }
    // A store too large for the budget of indexes: walked back a chunk at a
    // time, past the chunks whose addresses cannot cover the load's (their
    // ranges made by one walk through the store the first time).
    auto ranges = address_ranges_.find(store);
    if (ranges == address_ranges_.end()) {
        AddressRanges made;
        const std::uint64_t executions = node_executions(store);
        for (std::uint64_t execution = 0; execution < executions; ++execution) {
            made.add(address_of(execution));
        }
        ranges = address_ranges_.emplace(store, std::move(made)).first;
    }
    if (before > ranges->second.size()) {
        corrupt("store node " + std::to_string(store) + " ran " + std::to_string(ranges->second.size()) +
                " times, not " + std::to_string(before));
    }
    const std::optional<std::uint64_t> execution =
        ranges->second.latest_covering(before - walked, floor, address, size, address_of);
    return execution ? std::optional<DefExecution>(def(*execution)) : std::nullopt;
}

const StoreAddressIndex* LabelStore::store_index(std::uint32_t store) {
    if (const StoreAddressIndex* index = store_indexes_.find(store)) {
        return index;
    }
    // A store that runs with its block has its timestamps in the flow's
    // index: the index holds no copy.
    const bool with_times = times_of(store) != Times::block;
    const std::size_t bytes = StoreAddressIndex::bytes_for(node_executions(store), with_times);
    if (bytes > store_indexes_.budget()) {
        return nullptr;
    }
    return &store_indexes_.insert(
        store,
        StoreAddressIndex(node_addresses(store), with_times ? node_times(store) : std::vector<std::uint32_t>(),
                          node_values(store)),
        bytes);
}

}  // namespace tcgen::wet
