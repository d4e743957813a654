// Each edge's def record and predicted value grouped by load (defs_by_load.hpp).

#include "wet/labels/defs_by_load.hpp"

#include <algorithm>
#include <cstring>

#include <tcgen/wet/raw_trace.hpp>

namespace tcgen::wet {
namespace {

constexpr std::size_t record_bytes = 20;  // t_use (4), field1 (4), field2 (4), predicted (8), in this machine's order

void encode(const EdgeDef& def, std::uint8_t* record) {
    std::memcpy(record, &def.t_use, 4);
    std::memcpy(record + 4, &def.record.field1, 4);
    std::memcpy(record + 8, &def.record.field2, 4);
    std::memcpy(record + 12, &def.predicted, 8);
}

EdgeDef decode(const std::uint8_t* record) {
    EdgeDef def;
    std::memcpy(&def.t_use, record, 4);
    std::memcpy(&def.record.field1, record + 4, 4);
    std::memcpy(&def.record.field2, record + 8, 4);
    std::memcpy(&def.predicted, record + 12, 8);
    return def;
}

bool earlier(const EdgeDef& a, const EdgeDef& b) {
    return a.t_use < b.t_use;
}

}  // namespace

DefsByLoad::DefsByLoad(std::vector<std::uint64_t> first, const std::string& beside)
    : first_(std::move(first)), fill_(first_.begin(), first_.end() - 1) {
    if (beside.empty()) {
        memory_.resize(first_.back());
    } else {
        file_ = std::make_unique<TemporaryFile>(beside, "defs", "the defs grouped by load");
    }
}

void DefsByLoad::put(std::uint64_t at, const EdgeDef* defs, std::size_t count) {
    if (!file_) {
        std::copy(defs, defs + count, memory_.begin() + static_cast<std::ptrdiff_t>(at));
        return;
    }
    std::vector<std::uint8_t> bytes(count * record_bytes);
    for (std::size_t index = 0; index < count; ++index) {
        encode(defs[index], bytes.data() + index * record_bytes);
    }
    file_->write(at * record_bytes, bytes.data(), bytes.size());
}

std::vector<EdgeDef> DefsByLoad::get(std::uint64_t at, std::size_t count) const {
    if (!file_) {
        const auto begin = memory_.begin() + static_cast<std::ptrdiff_t>(at);
        return std::vector<EdgeDef>(begin, begin + static_cast<std::ptrdiff_t>(count));
    }
    std::vector<std::uint8_t> bytes(count * record_bytes);
    file_->read(at * record_bytes, bytes.data(), bytes.size());
    std::vector<EdgeDef> defs(count);
    for (std::size_t index = 0; index < count; ++index) {
        defs[index] = decode(bytes.data() + index * record_bytes);
    }
    return defs;
}

void DefsByLoad::add_store(std::vector<std::pair<std::uint32_t, EdgeDef>>& defs) {
    // One write per load the store is a def of: its run, at the load's fill.
    std::stable_sort(defs.begin(), defs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<EdgeDef> run;
    for (std::size_t begin = 0; begin < defs.size();) {
        const std::uint32_t load = defs[begin].first;
        run.clear();
        std::size_t end = begin;
        for (; end < defs.size() && defs[end].first == load; ++end) {
            run.push_back(defs[end].second);
        }
        put(fill_[load], run.data(), run.size());
        fill_[load] += run.size();
        begin = end;
    }
}

void DefsByLoad::finish() {
    for (std::size_t load = 0; load + 1 < first_.size(); ++load) {
        if (fill_[load] != first_[load + 1]) {
            throw WetError(file_ ? file_->name() : std::string("defs"),
                           "fewer defs of node " + std::to_string(load) + " than its edges");
        }
        // A load's runs of several stores, merged into time order (one def a load execution).
        if (count(load) > 1) {
            std::vector<EdgeDef> defs = get(first_[load], count(load));
            if (!std::is_sorted(defs.begin(), defs.end(), earlier)) {
                std::sort(defs.begin(), defs.end(), earlier);
                put(first_[load], defs.data(), defs.size());
            }
        }
    }
    fill_ = {};
}

std::vector<EdgeDef> DefsByLoad::read(std::size_t load, std::uint32_t t_first, std::uint32_t t_last) const {
    // The run's bounds by a binary search of its times, one def read a probe.
    const auto bound = [&](std::uint32_t t) {
        std::uint64_t low = first_[load];
        std::uint64_t high = first_[load + 1];
        while (low < high) {
            const std::uint64_t middle = low + (high - low) / 2;
            if (get(middle, 1)[0].t_use < t) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    };
    if (count(load) == 0 || t_first > t_last) {
        return {};
    }
    // A short run is read whole: one read rather than a search's several.
    constexpr std::uint64_t read_whole = 256;
    if (count(load) <= read_whole) {
        std::vector<EdgeDef> defs = get(first_[load], count(load));
        defs.erase(std::remove_if(defs.begin(), defs.end(),
                                  [&](const EdgeDef& def) { return def.t_use < t_first || def.t_use > t_last; }),
                   defs.end());
        return defs;
    }
    const std::uint64_t begin = bound(t_first);
    const std::uint64_t end = t_last == ~std::uint32_t{0} ? first_[load + 1] : bound(t_last + 1);
    return get(begin, static_cast<std::size_t>(end - begin));
}

}  // namespace tcgen::wet
