#include "generator/table_layout.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace tcgen {
namespace {

constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > saturated / a) {
        return saturated;
    }
    return a * b;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return b > saturated - a ? saturated : a + b;
}

unsigned log2_exact(std::uint64_t power_of_two) {
    unsigned bits = 0;
    while (power_of_two > 1) {
        power_of_two >>= 1;
        ++bits;
    }
    return bits;
}

bool has_kind(const Field& field, PredictorKind kind) {
    return std::any_of(field.predictors.begin(), field.predictors.end(),
                       [kind](const Predictor& p) { return p.kind == kind; });
}

const char* kind_prefix(PredictorKind kind) {
    switch (kind) {
        case PredictorKind::last_value:
            return "lv";
        case PredictorKind::fcm:
            return "fcm";
        case PredictorKind::dfcm:
            return "dfcm";
    }
    return "?";
}

}  // namespace

std::uint64_t Table::bytes() const {
    return saturating_multiply(saturating_multiply(lines, entries_per_line), element_bytes);
}

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

std::vector<Table> field_tables(const Field& field) {
    std::vector<Table> tables;
    for (std::size_t i = 0; i < field.predictors.size(); ++i) {
        const Predictor& predictor = field.predictors[i];
        Table table;
        table.role = TableRole::predictor;
        table.predictor = i;
        table.entries_per_line = predictor.entries;
        table.element_bytes = field.bytes();
        std::string stem = kind_prefix(predictor.kind);
        if (predictor.kind == PredictorKind::last_value) {
            table.lines = field.l1;
        } else {
            stem += std::to_string(predictor.order);
            unsigned shift = predictor.order - 1;
            table.lines = shift >= 64 ? saturated : saturating_multiply(field.l2, std::uint64_t{1} << shift);
        }
        // A spec may repeat a predictor; the second gets "_2", and so on.
        unsigned repeat = 1;
        for (std::size_t j = 0; j < i; ++j) {
            const Predictor& earlier = field.predictors[j];
            repeat += earlier.kind == predictor.kind && earlier.order == predictor.order ? 1 : 0;
        }
        table.name = stem + "_table" + (repeat > 1 ? "_" + std::to_string(repeat) : "");
        tables.push_back(table);
    }
    for (PredictorKind kind : {PredictorKind::fcm, PredictorKind::dfcm}) {
        unsigned order = max_order(field, kind);
        if (order == 0) {
            continue;
        }
        Table history;
        history.name = std::string(kind_prefix(kind)) + "_history";
        history.role = kind == PredictorKind::fcm ? TableRole::fcm_history : TableRole::dfcm_history;
        history.lines = field.l1;
        history.entries_per_line = order;
        history.element_bytes = bytes_for_bits(hash_index_bits(field, order));
        tables.push_back(history);
    }
    if (has_kind(field, PredictorKind::dfcm) && !has_kind(field, PredictorKind::last_value)) {
        tables.push_back(Table{"last_value", TableRole::last_value, 0, field.l1, 1, field.bytes()});
    }
    return tables;
}

std::uint64_t field_table_bytes(const Field& field) {
    std::uint64_t total = 0;
    for (const Table& table : field_tables(field)) {
        total = saturating_add(total, table.bytes());
    }
    return total;
}

std::uint64_t records_per_block(const Spec& spec) {
    constexpr std::uint64_t block_target_bytes = std::uint64_t{4} << 20;
    return std::max<std::uint64_t>(1, block_target_bytes / spec.record_bytes());
}

MemoryEstimate estimate_memory(const Spec& spec) {
    MemoryEstimate estimate;
    for (const Field& field : spec.fields) {
        estimate.tables = saturating_add(estimate.tables, field_table_bytes(field));
    }
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
