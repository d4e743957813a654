// A load's defs found by one sweep through time (def_sweep.hpp) rather than
// a search per execution (label_store_defs.cpp): for a load's whole value
// trace, and kept for lookups once a slice has asked for enough of a
// load's defs to pay for it.

#include "wet/labels/label_store.hpp"

#include <algorithm>
#include <unordered_map>

#include "wet/labels/def_encoding.hpp"

namespace tcgen::wet {

using namespace def_encoding;

std::optional<LabelStore::LoadSweep> LabelStore::plan_sweep(std::uint32_t load) {
    LoadSweep sweep;
    const Writers writers = writers_of(load);
    std::unordered_map<std::uint32_t, std::uint16_t> slots;  // store node -> its index
    for (const std::uint32_t* writer = writers.first; writer != writers.second; ++writer) {
        slots.emplace(*writer, static_cast<std::uint16_t>(sweep.stores.size()));
        sweep.writers.push_back(static_cast<std::uint16_t>(sweep.stores.size()));
        sweep.stores.push_back(*writer);
    }
    // A store that is not one that ran is left to the search, which names it.
    const auto ran = [&](std::uint32_t store) {
        return store < nodes_->size() && shape_of(store).access == 'S' && times_of(store) != Times::never;
    };
    for (std::uint32_t writer : sweep.stores) {
        if (!ran(writer)) {
            sweep.writers.clear();  // every def among them goes to the search
        }
    }
    using Kept = DefSweep::Kept;
    const std::vector<LoadDefs::Record> records = defs_.open(load).all();
    sweep.records.reserve(records.size());
    for (const LoadDefs::Record& record : records) {
        if (record.field1 == 0) {
            sweep.records.push_back({Kept::none, 0, 0});
            continue;
        }
        if (record.field1 == by_writers_field1) {
            const bool found = !sweep.writers.empty() && record.field2 == inferred_field2;
            sweep.records.push_back({found ? Kept::writers : Kept::unresolved, 0, 0});
            continue;
        }
        const std::uint32_t store = record.field1 - first_def_store;
        if (!ran(store)) {
            sweep.records.push_back({Kept::unresolved, 0, 0});
            continue;
        }
        auto slot = slots.find(store);
        if (slot == slots.end()) {
            if (sweep.stores.size() == DefSweep::max_stores) {
                return std::nullopt;
            }
            slot = slots.emplace(store, static_cast<std::uint16_t>(sweep.stores.size())).first;
            sweep.stores.push_back(store);
        }
        if (record.field2 >= first_distance) {
            sweep.records.push_back({Kept::distance, slot->second, record.field2 - first_distance});
        } else if (record.field2 == inferred_field2) {
            sweep.records.push_back({Kept::inferred, slot->second, 0});
        } else {
            sweep.records.push_back({Kept::rank, slot->second, record.field2 - first_rank});
        }
    }
    return sweep;
}

std::uint64_t LabelStore::sweep_steps(std::uint32_t load, const LoadSweep& sweep) const {
    std::uint64_t steps = node_executions(load);
    for (const std::uint32_t store : sweep.stores) {
        steps += node_executions(store);
    }
    return steps;
}

std::shared_ptr<LabelStore::StoreColumns> LabelStore::store_columns(std::uint32_t store) {
    if (std::shared_ptr<StoreColumns>* held = store_columns_.find(store)) {
        return *held;
    }
    auto columns = std::make_shared<StoreColumns>();
    if (store < nodes_->size() && times_of(store) != Times::never) {
        columns->times = node_times(store);
        columns->addresses = node_addresses(store);
    }
    if (columns->addresses.size() != columns->times.size()) {
        corrupt("node " + std::to_string(store) + " has " + std::to_string(columns->times.size()) +
                " timestamps and " + std::to_string(columns->addresses.size()) + " addresses");
    }
    columns->range = DefSweep::AddressRange::of(columns->addresses);
    const std::size_t bytes = 20 * columns->times.size() + sizeof(StoreColumns);
    return store_columns_.insert(store, std::move(columns), bytes);
}

const std::vector<std::uint64_t>& LabelStore::store_values(StoreColumns& columns, std::uint32_t store) {
    if (columns.values.empty() && !columns.times.empty()) {
        columns.values = values_.open(store).first_fields<std::uint64_t>();
        if (columns.values.size() != columns.times.size()) {
            corrupt("node " + std::to_string(store) + " has " + std::to_string(columns.times.size()) +
                    " timestamps and " + std::to_string(columns.values.size()) + " values");
        }
    }
    return columns.values;
}

void LabelStore::run_sweep(std::uint32_t load, LoadSweep& sweep, const std::vector<std::uint32_t>& times,
                           const std::vector<std::uint64_t>& addresses) {
    std::vector<DefSweep::Store> stores;
    for (const std::uint32_t store : sweep.stores) {
        sweep.columns.push_back(store_columns(store));
        stores.push_back(DefSweep::Store{store, store < nodes_->size() ? shape_of(store).size : std::uint16_t{0},
                                         &sweep.columns.back()->times, &sweep.columns.back()->addresses,
                                         sweep.columns.back()->range});
    }
    sweep.result = DefSweep::run(load, times, addresses, sweep.records, stores, sweep.writers);
}

const SweptDefs* LabelStore::keep_swept(std::uint32_t load, LoadSweep& sweep) {
    SweptDefs swept{std::move(sweep.stores), std::move(sweep.result.store), std::move(sweep.result.t)};
    const std::size_t bytes = swept.memory_bytes();
    if (bytes > swept_.budget()) {
        return nullptr;
    }
    return &swept_.insert(load, std::move(swept), bytes);
}

const SweptDefs* LabelStore::swept_defs(std::uint32_t load) {
    if (load >= nodes_->size() || defs_.empty(load)) {
        return nullptr;
    }
    if (const SweptDefs* swept = swept_.find(load)) {
        return swept;
    }
    std::optional<LoadSweep> sweep = plan_sweep(load);
    if (!sweep || 6 * node_executions(load) > swept_.budget()) {
        return nullptr;
    }
    run_sweep(load, *sweep, node_times(load), node_addresses(load));
    return keep_swept(load, *sweep);
}

bool LabelStore::sweep_due(std::uint32_t load, std::uint64_t index) {
    if (def_requests_.empty()) {
        def_requests_.assign(nodes_->size(), 0);
        sweep_after_.assign(nodes_->size(), 0);
    }
    std::uint32_t& requests = def_requests_[load];
    if (requests < UINT32_MAX) {
        ++requests;
    }
    if (sweep_after_[load] == 0) {
        // Estimated from the stores the load's writers and this def name:
        // planning the sweep would decode every record of the load.
        std::uint64_t steps = node_executions(load);
        const Writers writers = writers_of(load);
        for (const std::uint32_t* writer = writers.first; writer != writers.second; ++writer) {
            steps += *writer < nodes_->size() ? node_executions(*writer) : 0;
        }
        const LoadDefs::Record record = defs_.open(load).at(index);
        const std::uint32_t store = record.field1 - first_def_store;
        if (record.field1 >= first_def_store && store < nodes_->size()) {
            steps += node_executions(store);
        }
        const bool fits = 6 * node_executions(load) <= swept_.budget();
        sweep_after_[load] =
            fits ? static_cast<std::uint32_t>(std::min<std::uint64_t>(steps / steps_per_search + 1, UINT32_MAX))
                 : UINT32_MAX;
    }
    return requests >= sweep_after_[load] && sweep_after_[load] != UINT32_MAX;
}

std::optional<Def> LabelStore::def_at(std::uint32_t node, std::uint64_t index, std::uint32_t t) {
    if (defs_.empty(node)) {
        return std::nullopt;
    }
    const SweptDefs* swept = swept_.find(node);
    if (swept == nullptr && sweep_due(node, index)) {
        swept = swept_defs(node);
        if (swept == nullptr) {
            sweep_after_[node] = UINT32_MAX;  // never again
        }
    }
    if (swept != nullptr && index < swept->store.size()) {
        const std::uint16_t store = swept->store[index];
        if (store == DefSweep::no_def) {
            return std::nullopt;
        }
        if (store != DefSweep::unresolved) {
            return Def{swept->stores[store - 1], swept->t[index]};
        }
    }
    return searched_def(node, index, t);
}


bool LabelStore::values_by_sweep(std::uint32_t load, std::vector<std::uint64_t>& values,
                                 const std::vector<std::uint32_t>& times,
                                 const std::vector<std::uint64_t>& addresses) {
    std::optional<LoadSweep> sweep = plan_sweep(load);
    // A search among the load's writers asks each of them (latest_write).
    if (!sweep || sweep_steps(load, *sweep) >
                      (traced_sweep_ratio * std::max<std::size_t>(1, sweep->writers.size()) + 1) * values.size()) {
        return false;
    }
    run_sweep(load, *sweep, times, addresses);
    const std::uint16_t load_size = shape_of(load).size;
    const DefSweep::Result& result = sweep->result;
    for (std::uint64_t index = 0; index < values.size(); ++index) {
        const std::uint16_t store = index < result.store.size() ? result.store[index] : DefSweep::unresolved;
        if (store == DefSweep::no_def) {
            continue;
        }
        if (store == DefSweep::unresolved) {
            // A corrupt record, which the search names (or, past the
            // records, reports).
            if (const std::optional<DefExecution> def = def_execution(load, index, times[index], addresses[index])) {
                const StoreAddressIndex::Access access = store_access(def->store, def->execution);
                values[index] ^= value_from_def(access.value, access.address, shape_of(def->store).size,
                                                addresses[index], load_size);
            }
            continue;
        }
        const std::size_t slot = store - 1u;
        StoreColumns& columns = *sweep->columns[slot];
        const std::uint32_t execution = result.execution[index];
        values[index] ^= value_from_def(store_values(columns, sweep->stores[slot])[execution],
                                        columns.addresses[execution], shape_of(sweep->stores[slot]).size,
                                        addresses[index], load_size);
    }
    if (swept_.find(load) == nullptr) {
        keep_swept(load, *sweep);
    }
    return true;
}

}  // namespace tcgen::wet
