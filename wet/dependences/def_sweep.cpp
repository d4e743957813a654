// One load's defs in one pass through time (def_sweep.hpp).

#include "wet/dependences/def_sweep.hpp"

#include <algorithm>
#include <limits>

#include "wet/labels/def_encoding.hpp"

namespace tcgen::wet {
namespace {

// Per start address, the latest execution of one store that wrote there:
// open addressing, linear probes. A slice's or a trace's sweep makes one
// lookup per candidate start of every execution of the load, so this is
// the sweep's inner loop; std::unordered_map's node per entry cost twice
// the time on the python3 run's loads.
class LatestWrites {
public:
    void write(std::uint64_t address, std::uint32_t execution) {
        if (2 * (count_ + 1) > keys_.size()) {
            grow();
        }
        std::size_t at = slot(address);
        while (executions_[at] != empty && keys_[at] != address) {
            at = (at + 1) & (keys_.size() - 1);
        }
        count_ += executions_[at] == empty ? 1 : 0;
        keys_[at] = address;
        executions_[at] = execution;
    }
    // The latest execution that started at `address`; `empty`: none.
    std::uint32_t latest(std::uint64_t address) const {
        if (keys_.empty()) {
            return empty;
        }
        for (std::size_t at = slot(address);; at = (at + 1) & (keys_.size() - 1)) {
            if (executions_[at] == empty || keys_[at] == address) {
                return executions_[at];
            }
        }
    }
    // No execution number reaches it: a node runs at most once per timestamp.
    static constexpr std::uint32_t empty = std::numeric_limits<std::uint32_t>::max();

private:
    std::size_t slot(std::uint64_t address) const {
        return static_cast<std::size_t>((address * 0x9E3779B97F4A7C15ULL) >> shift_);
    }
    void grow() {
        std::vector<std::uint64_t> keys(std::max<std::size_t>(64, 2 * keys_.size()));
        std::vector<std::uint32_t> executions(keys.size(), empty);
        std::swap(keys, keys_);
        std::swap(executions, executions_);
        shift_ = 64;
        for (std::size_t size = keys_.size(); size > 1; size >>= 1) {
            --shift_;
        }
        count_ = 0;
        for (std::size_t at = 0; at < keys.size(); ++at) {
            if (executions[at] != empty) {
                write(keys[at], executions[at]);
            }
        }
    }
    std::vector<std::uint64_t> keys_;
    std::vector<std::uint32_t> executions_;
    std::size_t count_ = 0;
    unsigned shift_ = 64;
};

// A store as the sweep goes: how many of its executions lie before the
// load's execution at hand, and (for one inferred from) the latest
// execution at each start address among those: in an array by address
// when its addresses span few slots (most stores write a stack frame, a
// buffer or a table: an array read instead of a hash probe halved the
// sweeps' time on the python3 run), else in a hash table.
struct StoreState {
    const DefSweep::Store* store = nullptr;
    bool inferred_from = false;
    std::uint64_t before = 0;
    LatestWrites writes;
    std::vector<std::uint32_t> by_slot;  // (address - lowest) / alignment -> latest execution
    // An array of at most this many slots per execution of the store, or
    // this many in all, is cheaper than the hash table's two per address.
    static constexpr std::uint64_t slots_per_execution = 4;
    static constexpr std::uint64_t slots_always = 256;

    void start() {
        if (!inferred_from) {
            return;
        }
        const DefSweep::AddressRange& range = store->range;
        const std::uint64_t slots = (range.highest - range.lowest) / range.alignment + 1;
        if (!store->addresses->empty() &&
            (slots <= slots_always || slots / slots_per_execution <= store->addresses->size())) {
            by_slot.assign(static_cast<std::size_t>(slots), LatestWrites::empty);
        }
    }
    void advance_to(std::uint64_t horizon) {
        const std::vector<std::uint32_t>& times = *store->times;
        const std::uint64_t lowest = store->range.lowest;
        const unsigned shift = static_cast<unsigned>(__builtin_ctzll(store->range.alignment));
        for (; before < times.size() && times[before] < horizon; ++before) {
            if (!inferred_from) {
                continue;
            }
            const std::uint64_t address = (*store->addresses)[before];
            if (!by_slot.empty()) {
                by_slot[static_cast<std::size_t>((address - lowest) >> shift)] = static_cast<std::uint32_t>(before);
            } else {
                writes.write(address, static_cast<std::uint32_t>(before));
            }
        }
    }
    std::uint32_t latest_at(std::uint64_t start) const {
        if (by_slot.empty()) {
            return writes.latest(start);
        }
        const DefSweep::AddressRange& range = store->range;
        if (start < range.lowest || start > range.highest) {
            return LatestWrites::empty;
        }
        return by_slot[static_cast<std::size_t>((start - range.lowest) / range.alignment)];
    }
    // The latest execution so far whose bytes cover `address`; `empty`:
    // none. A start address is a multiple of the alignment: a load's first
    // byte is covered by at most size / alignment + 1 of them, most often one.
    std::uint32_t latest_covering(std::uint64_t address) const {
        const std::uint16_t size = store->size;
        const std::uint64_t alignment = store->range.alignment;
        if (size == 0) {
            return LatestWrites::empty;
        }
        const std::uint64_t lowest = address >= size - 1u ? address - (size - 1u) : 0;
        std::uint32_t latest = LatestWrites::empty;
        for (std::uint64_t start = address & ~(alignment - 1);; start -= alignment) {
            if (start < lowest) {
                break;
            }
            const std::uint32_t found = latest_at(start);
            if (found != LatestWrites::empty && (latest == LatestWrites::empty || found > latest)) {
                latest = found;
            }
            if (start < alignment) {
                break;
            }
        }
        return latest;
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
    }
    for (const std::uint16_t writer : writers) {
        states[writer].inferred_from = true;
    }
    for (const Record& record : records) {
        if (record.kept == Kept::inferred) {
            states[record.store].inferred_from = true;
        }
    }
    for (StoreState& state : states) {
        state.start();
    }
    Result result;
    const std::size_t executions = std::min(times.size(), records.size());
    result.store.assign(executions, no_def);
    result.execution.assign(executions, 0);
    result.t.assign(executions, 0);
    const auto found = [&](std::size_t execution, std::size_t store, std::uint64_t store_execution) {
        result.store[execution] = static_cast<std::uint16_t>(store + 1);
        result.execution[execution] = static_cast<std::uint32_t>(store_execution);
        result.t[execution] = (*stores[store].times)[store_execution];
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
        case Kept::writers:
        case Kept::inferred: {
            // The latest covering write; of two at one t, the later node's.
            const std::uint16_t* first = record.kept == Kept::writers ? writers.data() : &record.store;
            const std::uint16_t* last = record.kept == Kept::writers ? writers.data() + writers.size() : first + 1;
            std::size_t best_store = 0;
            std::uint32_t best = LatestWrites::empty;
            for (const std::uint16_t* store = first; store != last; ++store) {
                StoreState& state = states[*store];
                state.advance_to(horizon(*store));
                const std::uint32_t write = state.latest_covering(addresses[execution]);
                if (write == LatestWrites::empty) {
                    continue;
                }
                if (best != LatestWrites::empty) {
                    const std::uint32_t write_t = (*stores[*store].times)[write];
                    const std::uint32_t best_t = (*stores[best_store].times)[best];
                    if (write_t < best_t || (write_t == best_t && stores[*store].node < stores[best_store].node)) {
                        continue;
                    }
                }
                best_store = *store;
                best = write;
            }
            if (best == LatestWrites::empty || first == last) {
                result.store[execution] = unresolved;
            } else {
                found(execution, best_store, best);
            }
            break;
        }
        case Kept::rank: {
            StoreState& state = states[record.store];
            state.advance_to(horizon(record.store));
            if (record.amount >= state.before) {
                result.store[execution] = unresolved;
            } else {
                found(execution, record.store, state.before - 1 - record.amount);
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
                found(execution, record.store, static_cast<std::uint64_t>(at - store_times.begin()));
            }
            break;
        }
        }
    }
    return result;
}

}  // namespace tcgen::wet
