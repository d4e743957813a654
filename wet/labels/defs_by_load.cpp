// Each edge's def record and predicted value grouped by load (defs_by_load.hpp).

#include "wet/labels/defs_by_load.hpp"

#include <algorithm>

namespace tcgen::wet {
namespace {

bool earlier(const EdgeDef& a, const EdgeDef& b) {
    return a.t_use < b.t_use;
}

}  // namespace

void DefsByLoad::finish() {
    runs_.check_full();
    // A load's runs of several stores, merged into time order (one def a load execution).
    for (std::size_t load = 0; load < runs_.nodes(); ++load) {
        if (count(load) > 1) {
            std::vector<EdgeDef> defs = runs_.read(load);
            if (!std::is_sorted(defs.begin(), defs.end(), earlier)) {
                std::sort(defs.begin(), defs.end(), earlier);
                runs_.put(runs_.first(load), defs.data(), defs.size());
            }
        }
    }
}

std::vector<EdgeDef> DefsByLoad::read(std::size_t load, std::uint32_t t_first, std::uint32_t t_last) const {
    // The run's bounds by a binary search of its times, one def read a probe.
    const auto bound = [&](std::uint32_t t) {
        std::uint64_t low = runs_.first(load);
        std::uint64_t high = runs_.first(load + 1);
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
    if (count(load) == 0 || t_first > t_last) {
        return {};
    }
    // A short run is read whole: one read rather than a search's several.
    constexpr std::uint64_t read_whole = 256;
    if (count(load) <= read_whole) {
        std::vector<EdgeDef> defs = runs_.read(load);
        defs.erase(std::remove_if(defs.begin(), defs.end(),
                                  [&](const EdgeDef& def) { return def.t_use < t_first || def.t_use > t_last; }),
                   defs.end());
        return defs;
    }
    const std::uint64_t begin = bound(t_first);
    const std::uint64_t end = t_last == ~std::uint32_t{0} ? runs_.first(load + 1) : bound(t_last + 1);
    return runs_.get(begin, static_cast<std::size_t>(end - begin));
}

}  // namespace tcgen::wet
