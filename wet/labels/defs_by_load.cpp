// Each edge's def record and predicted value grouped by load (defs_by_load.hpp).

#include "wet/labels/defs_by_load.hpp"

#include <algorithm>

namespace tcgen::wet {
namespace {

bool earlier(const EdgeDef& a, const EdgeDef& b) {
    return a.t_use < b.t_use;
}

}  // namespace

void DefsByLoad::add_store(std::uint32_t store, std::vector<std::pair<std::uint32_t, EdgeDef>>& defs) {
    for (const auto& [load, def] : defs) {
        if (load < last_store_.size() && last_store_[load] != store) {
            runs_.start_run(load);
            last_store_[load] = store;
        }
    }
    runs_.add(defs);
}

std::vector<EdgeDef> DefsByLoad::read(std::size_t load, std::uint32_t t_first, std::uint32_t t_last) const {
    if (count(load) == 0 || t_first > t_last) {
        return {};
    }
    // Each run's part by a binary search of its times, one def read a
    // probe; a short run is read whole: one read rather than a search's
    // several.
    constexpr std::uint64_t read_whole = 256;
    std::vector<EdgeDef> defs;
    const auto runs = runs_.runs(load);
    for (const auto& [first, end] : runs) {
        if (end - first <= read_whole) {
            for (const EdgeDef& def : runs_.get(first, static_cast<std::size_t>(end - first))) {
                if (def.t_use >= t_first && def.t_use <= t_last) {
                    defs.push_back(def);
                }
            }
            continue;
        }
        const auto bound = [&, first = first, end = end](std::uint32_t t) {
            std::uint64_t low = first;
            std::uint64_t high = end;
            while (low < high) {
                const std::uint64_t middle = low + (high - low) / 2;
                if (runs_.get(middle, 1)[0].t_use < t) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            return low;
        };
        const std::uint64_t begin = bound(t_first);
        const std::uint64_t stop = t_last == ~std::uint32_t{0} ? end : bound(t_last + 1);
        const std::vector<EdgeDef> part = runs_.get(begin, static_cast<std::size_t>(stop - begin));
        defs.insert(defs.end(), part.begin(), part.end());
    }
    // A load's runs of several stores, merged into time order (one def a load execution).
    if (runs.size() > 1) {
        std::sort(defs.begin(), defs.end(), earlier);
    }
    return defs;
}

}  // namespace tcgen::wet
