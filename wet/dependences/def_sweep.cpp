// One load's defs in one pass through time (def_sweep.hpp).

#include "wet/dependences/def_sweep.hpp"

#include <algorithm>
#include <limits>

#include "wet/labels/def_encoding.hpp"

namespace tcgen::wet {
namespace {

constexpr std::uint32_t no_execution = std::numeric_limits<std::uint32_t>::max();

// What a table of one store keeps per start address: its latest execution
// there (a node runs at most once per timestamp, so no execution number
// reaches no_execution) and that execution's timestamp, kept rather than
// read back from the store's timestamps at random.
struct StoreWrite {
    std::uint32_t execution = no_execution;
    std::uint32_t t = 0;
    bool empty() const { return execution == no_execution; }
};

// What the writers' table keeps per start address: the latest write there
// of any of the load's writers of one size, as the store (an index into
// the sweep's stores), its execution and its timestamp.
struct Write {
    std::uint32_t t = 0;
    std::uint32_t execution = no_execution;
    std::uint16_t store = 0;
    bool empty() const { return execution == no_execution; }
};

// Per start address, an entry: open addressing, linear probes. A slice's
// or a trace's sweep makes one lookup per candidate start of every
// execution of the load, so this is the sweep's inner loop;
// std::unordered_map's node per entry cost twice the time on the python3
// run's loads.
template <class Entry>
class AddressTable {
public:
    // The entry at `address`, empty if there was none; the caller fills it.
    Entry& at(std::uint64_t address) {
        if (2 * (count_ + 1) > keys_.size()) {
            grow();
        }
        std::size_t slot = slot_of(address);
        while (!entries_[slot].empty() && keys_[slot] != address) {
            slot = (slot + 1) & (keys_.size() - 1);
        }
        if (entries_[slot].empty()) {
            keys_[slot] = address;
            ++count_;
        }
        return entries_[slot];
    }
    Entry find(std::uint64_t address) const {
        if (keys_.empty()) {
            return Entry{};
        }
        for (std::size_t slot = slot_of(address);; slot = (slot + 1) & (keys_.size() - 1)) {
            if (entries_[slot].empty() || keys_[slot] == address) {
                return entries_[slot];
            }
        }
    }

private:
    std::size_t slot_of(std::uint64_t address) const {
        return static_cast<std::size_t>((address * 0x9E3779B97F4A7C15ULL) >> shift_);
    }
    void grow() {
        std::vector<std::uint64_t> keys(std::max<std::size_t>(64, 2 * keys_.size()));
        std::vector<Entry> entries(keys.size());
        std::swap(keys, keys_);
        std::swap(entries, entries_);
        shift_ = 64;
        for (std::size_t size = keys_.size(); size > 1; size >>= 1) {
            --shift_;
        }
        count_ = 0;
        for (std::size_t slot = 0; slot < keys.size(); ++slot) {
            if (!entries[slot].empty()) {
                at(keys[slot]) = entries[slot];
            }
        }
    }
    std::vector<std::uint64_t> keys_;
    std::vector<Entry> entries_;
    std::size_t count_ = 0;
    unsigned shift_ = 64;
};

// The latest write at each start address of writes of `size` bytes whose
// addresses lie in `range`: in an array by address when the range spans
// few slots (most stores write a stack frame, a buffer or a table: an
// array read instead of a hash probe halved the sweeps' time on the
// python3 run), else in a hash table.
template <class Entry>
class LatestByStart {
public:
    // An array of at most this many slots per write, or this many in all,
    // is cheaper than the hash table's two per address.
    static constexpr std::uint64_t slots_per_write = 4;
    static constexpr std::uint64_t slots_always = 256;

    void start(std::uint16_t size, const DefSweep::AddressRange& range, std::uint64_t writes) {
        size_ = size;
        range_ = range;
        shift_ = static_cast<unsigned>(__builtin_ctzll(range.alignment));
        const std::uint64_t slots = ((range.highest - range.lowest) >> shift_) + 1;
        if (writes != 0 && (slots <= slots_always || slots / slots_per_write <= writes)) {
            by_slot_.assign(static_cast<std::size_t>(slots), Entry{});
        }
    }
    // Where a write at `start` (in the range) goes.
    Entry& at(std::uint64_t start) {
        return by_slot_.empty() ? table_.at(start)
                                : by_slot_[static_cast<std::size_t>((start - range_.lowest) >> shift_)];
    }
    // The latest write so far whose bytes cover `address`, by `later`
    // (a, b: a is the later); empty: none. A start address is a multiple of
    // the alignment: a load's first byte is covered by at most
    // size / alignment + 1 of them, most often one.
    template <class Later>
    Entry latest_covering(std::uint64_t address, const Later& later) const {
        Entry latest;
        if (size_ == 0) {
            return latest;
        }
        const std::uint64_t lowest = address >= size_ - 1u ? address - (size_ - 1u) : 0;
        for (std::uint64_t start = address & ~(range_.alignment - 1);; start -= range_.alignment) {
            if (start < lowest) {
                break;
            }
            const Entry found = at_start(start);
            if (!found.empty() && (latest.empty() || later(found, latest))) {
                latest = found;
            }
            if (start < range_.alignment) {
                break;
            }
        }
        return latest;
    }

private:
    Entry at_start(std::uint64_t start) const {
        if (by_slot_.empty()) {
            return table_.find(start);
        }
        if (start < range_.lowest || start > range_.highest) {
            return Entry{};
        }
        return by_slot_[static_cast<std::size_t>((start - range_.lowest) >> shift_)];
    }
    std::uint16_t size_ = 0;
    DefSweep::AddressRange range_;
    unsigned shift_ = 0;
    std::vector<Entry> by_slot_;
    AddressTable<Entry> table_;
};

// The load's writers of one size, their writes kept together: a def among
// the writers is then one lookup per size rather than one per writer (the
// loads of memcpy and its kin have tens of writers: on the bzip2 run's
// load traces a lookup per writer was most of the sweeps' time).
struct WriterGroup {
    const std::vector<DefSweep::Store>* stores = nullptr;
    LatestByStart<Write> writes;

    // The later of two writes; of two at one t, the later node's.
    bool later(const Write& a, const Write& b) const {
        return a.t != b.t ? a.t > b.t : (*stores)[a.store].node > (*stores)[b.store].node;
    }
    void add(const Write& write, std::uint64_t address) {
        Write& held = writes.at(address);
        if (held.empty() || later(write, held)) {
            held = write;
        }
    }
    Write latest_covering(std::uint64_t address) const {
        return writes.latest_covering(address, [this](const Write& a, const Write& b) { return later(a, b); });
    }
};

// A store as the sweep goes: how many of its executions lie before the
// load's execution at hand; for one a def is inferred from, the latest
// execution at each start address among those; for one of the load's
// writers, its writes added to its size's group.
struct StoreState {
    const DefSweep::Store* store = nullptr;
    std::uint16_t index = 0;  // in the sweep's stores
    bool inferred_from = false;
    WriterGroup* group = nullptr;
    std::uint64_t before = 0;
    LatestByStart<StoreWrite> writes;

    void start() {
        if (inferred_from) {
            writes.start(store->size, store->range, store->addresses->size());
        }
    }
    // Its timestamp of the next execution, or one past any timestamp.
    std::uint64_t next_t() const {
        return before < store->times->size() ? (*store->times)[before] : std::uint64_t{1} << 32;
    }
    void advance_to(std::uint64_t horizon) {
        const std::vector<std::uint32_t>& times = *store->times;
        for (; before < times.size() && times[before] < horizon; ++before) {
            const std::uint64_t address = (*store->addresses)[before];
            const auto execution = static_cast<std::uint32_t>(before);
            if (inferred_from) {
                writes.at(address) = StoreWrite{execution, times[before]};
            }
            if (group != nullptr) {
                group->add(Write{times[before], execution, index}, address);
            }
        }
    }
    // The latest execution so far whose bytes cover `address`; empty: none.
    StoreWrite latest_covering(std::uint64_t address) const {
        return writes.latest_covering(
            address, [](const StoreWrite& a, const StoreWrite& b) { return a.execution > b.execution; });
    }
};

}  // namespace

DefSweep::AddressRange DefSweep::AddressRange::of(const std::vector<std::uint64_t>& addresses) {
    AddressRange range;
    if (addresses.empty()) {
        return range;
    }
    std::uint64_t bits = 64;
    range.lowest = addresses.front();
    range.highest = addresses.front();
    for (const std::uint64_t address : addresses) {
        bits |= address;
        range.lowest = std::min(range.lowest, address);
        range.highest = std::max(range.highest, address);
    }
    range.alignment = bits & (~bits + 1);  // the lowest bit set, 64 at most
    return range;
}

DefSweep::Result DefSweep::run(std::uint32_t load, const std::vector<std::uint32_t>& times,
                               const std::vector<std::uint64_t>& addresses, const std::vector<Record>& records,
                               const std::vector<Store>& stores, const std::vector<std::uint16_t>& writers) {
    std::vector<StoreState> states(stores.size());
    for (std::size_t at = 0; at < stores.size(); ++at) {
        states[at].store = &stores[at];
        states[at].index = static_cast<std::uint16_t>(at);
    }
    for (const Record& record : records) {
        if (record.kept == Kept::inferred) {
            states[record.store].inferred_from = true;
        }
    }
    for (StoreState& state : states) {
        state.start();
    }
    // The writers by size, each group's range the union of its writers'.
    std::vector<WriterGroup> groups;
    {
        std::vector<std::uint16_t> sizes;
        for (const std::uint16_t writer : writers) {
            if (std::find(sizes.begin(), sizes.end(), stores[writer].size) == sizes.end()) {
                sizes.push_back(stores[writer].size);
            }
        }
        groups.resize(sizes.size());
        for (std::size_t group = 0; group < sizes.size(); ++group) {
            AddressRange range{64, std::numeric_limits<std::uint64_t>::max(), 0};
            std::uint64_t writes = 0;
            for (const std::uint16_t writer : writers) {
                const Store& store = stores[writer];
                if (store.size == sizes[group] && !store.addresses->empty()) {
                    range.alignment = std::min(range.alignment, store.range.alignment);
                    range.lowest = std::min(range.lowest, store.range.lowest);
                    range.highest = std::max(range.highest, store.range.highest);
                    writes += store.addresses->size();
                }
                if (store.size == sizes[group]) {
                    states[writer].group = &groups[group];
                }
            }
            groups[group].stores = &stores;
            groups[group].writes.start(sizes[group], writes != 0 ? range : AddressRange{}, writes);
        }
    }
    // The writers' earliest next write: until the load reaches it, no
    // writer has a write to add.
    std::uint64_t writers_next = 0;
    Result result;
    const std::size_t executions = std::min(times.size(), records.size());
    result.store.assign(executions, no_def);
    result.execution.assign(executions, 0);
    result.t.assign(executions, 0);
    const auto found = [&](std::size_t execution, std::size_t store, std::uint64_t store_execution,
                           std::uint32_t store_t) {
        result.store[execution] = static_cast<std::uint16_t>(store + 1);
        result.execution[execution] = static_cast<std::uint32_t>(store_execution);
        result.t[execution] = store_t;
    };
    for (std::size_t execution = 0; execution < executions; ++execution) {
        const Record& record = records[execution];
        const std::uint32_t t = times[execution];
        const auto horizon = [&](std::size_t store) {
            return def_encoding::store_horizon(stores[store].node, load, t);
        };
        switch (record.kept) {
        case Kept::none:
            break;
        case Kept::unresolved:
            result.store[execution] = unresolved;
            break;
        case Kept::writers: {
            // A write at t is before the load when its store's node comes
            // first in the block: none can be added while writers_next > t.
            if (writers_next <= t) {
                writers_next = std::uint64_t{1} << 32;
                for (const std::uint16_t writer : writers) {
                    states[writer].advance_to(horizon(writer));
                    writers_next = std::min(writers_next, states[writer].next_t());
                }
            }
            // The latest covering write; of two at one t, the later node's.
            Write best;
            for (const WriterGroup& group : groups) {
                const Write write = group.latest_covering(addresses[execution]);
                if (!write.empty() && (best.empty() || group.later(write, best))) {
                    best = write;
                }
            }
            if (best.empty()) {
                result.store[execution] = unresolved;
            } else {
                found(execution, best.store, best.execution, best.t);
            }
            break;
        }
        case Kept::inferred: {
            StoreState& state = states[record.store];
            state.advance_to(horizon(record.store));
            const StoreWrite write = state.latest_covering(addresses[execution]);
            if (write.empty()) {
                result.store[execution] = unresolved;
            } else {
                found(execution, record.store, write.execution, write.t);
            }
            break;
        }
        case Kept::rank: {
            StoreState& state = states[record.store];
            state.advance_to(horizon(record.store));
            if (record.amount >= state.before) {
                result.store[execution] = unresolved;
            } else {
                const std::uint64_t write = state.before - 1 - record.amount;
                found(execution, record.store, write, (*stores[record.store].times)[write]);
            }
            break;
        }
        case Kept::distance: {
            const std::vector<std::uint32_t>& store_times = *stores[record.store].times;
            const auto at = record.amount <= t ? std::lower_bound(store_times.begin(), store_times.end(),
                                                                  t - record.amount)
                                               : store_times.end();
            if (at == store_times.end() || *at != t - record.amount) {
                result.store[execution] = unresolved;
            } else {
                found(execution, record.store, static_cast<std::uint64_t>(at - store_times.begin()), *at);
            }
            break;
        }
        }
    }
    return result;
}

}  // namespace tcgen::wet
