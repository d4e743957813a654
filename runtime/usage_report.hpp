#pragma once
// The predictor usage report a compressor prints after compressing (paper
// §4): per field, how often each prediction slot was the one written, and
// how often all missed, so users can drop predictors that never help.

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

namespace tcgen_runtime {

// slot_names and counts have `slots` entries; the last is the miss code.
inline void print_field_usage(std::FILE* out, std::string_view title, const std::string_view* slot_names,
                              const std::uint64_t* counts, std::size_t slots) {
    std::uint64_t total = 0;
    for (std::size_t slot = 0; slot < slots; ++slot) {
        total += counts[slot];
    }
    std::fprintf(out, "%.*s: %" PRIu64 " values\n", static_cast<int>(title.size()), title.data(), total);
    std::fprintf(out, "  %4s  %-14s %16s %8s\n", "code", "predictor", "hits", "share");
    for (std::size_t slot = 0; slot < slots; ++slot) {
        double share = total == 0 ? 0.0 : 100.0 * static_cast<double>(counts[slot]) / static_cast<double>(total);
        std::fprintf(out, "  %4zu  %-14.*s %16" PRIu64 " %7.2f%%\n", slot, static_cast<int>(slot_names[slot].size()),
                     slot_names[slot].data(), counts[slot], share);
    }
}

}  // namespace tcgen_runtime
