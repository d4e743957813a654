#pragma once
// Reading the predictor usage report a generated compressor prints on
// standard error: per field, how often each slot was the one written.

#include <cstdint>
#include <string>
#include <vector>

namespace tcgen::tune {

// hits[field - 1][code]; the last code of a field is its miss code. Fields
// the report does not show are left empty, and so is the whole result when
// there is no report: the tuner then searches without its hints.
using UsageCounts = std::vector<std::vector<std::uint64_t>>;

// The report of a compressor of `field_count` fields. Reads lines
// "Field N ...: ... values" and under them "  CODE  NAME ... HITS SHARE%"; it
// ignores everything else, so that added columns or lines do not break it.
UsageCounts parse_usage_report(const std::string& text, std::size_t field_count);

}  // namespace tcgen::tune
