#include "generator/plan/table_layout.hpp"

#include "generator/plan/passes/pass.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace tcgen {
namespace {

unsigned log2_exact(std::uint64_t power_of_two) {
    unsigned bits = 0;
    while (power_of_two > 1) {
        power_of_two >>= 1;
        ++bits;
    }
    return bits;
}

}  // namespace

unsigned hash_index_bits(const Field& field, unsigned order) {
    return log2_exact(field.l2) + order - 1;
}

unsigned bytes_for_bits(unsigned bits) {
    if (bits <= 8) {
        return 1;
    }
    if (bits <= 16) {
        return 2;
    }
    return bits <= 32 ? 4 : 8;
}

std::uint64_t records_per_block(const Spec& spec) {
    constexpr std::uint64_t block_target_bytes = std::uint64_t{4} << 20;
    return std::max<std::uint64_t>(1, block_target_bytes / spec.record_bytes());
}

MemoryEstimate estimate_memory(const Spec& spec) {
    MemoryEstimate estimate;
    estimate.tables = plan_code(spec).table_bytes();
    // One block of records, its code streams (a byte per field and record),
    // miss streams of at most the block's size, the compressed output of
    // about the same size, and bzip2 -9's own working memory (~7.6 MB).
    constexpr std::uint64_t bzip2_state_bytes = std::uint64_t{8} << 20;
    std::uint64_t records = records_per_block(spec);
    std::uint64_t block_bytes = records * spec.record_bytes();
    estimate.buffers = 3 * block_bytes + records * spec.fields.size() + spec.header_bytes() + bzip2_state_bytes;
    return estimate;
}

std::string with_thousands_separators(std::uint64_t value) {
    std::string digits = std::to_string(value);
    std::string result;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            result += ',';
        }
        result += digits[i];
    }
    return result;
}

std::string human_bytes(std::uint64_t value) {
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (value < 1024) {
        return std::to_string(value) + (value == 1 ? " byte" : " bytes");
    }
    double scaled = static_cast<double>(value) / 1024.0;
    std::size_t unit = 0;
    while (scaled >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        scaled /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", scaled, units[unit]);
    return text;
}

}  // namespace tcgen
