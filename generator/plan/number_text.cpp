#include "generator/plan/number_text.hpp"

#include <cstdio>

namespace tcgen {

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
