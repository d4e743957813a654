#include "runtime/usage_report.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace tcgen_runtime {
namespace {

std::string report_of(const std::string_view* names, const std::uint64_t* counts, std::size_t slots) {
    char* buffer = nullptr;
    std::size_t size = 0;
    std::FILE* out = open_memstream(&buffer, &size);
    print_field_usage(out, "Field 2 (64-bit)", names, counts, slots);
    std::fclose(out);
    std::string text(buffer, size);
    std::free(buffer);
    return text;
}

TEST(UsageReport, ListsEverySlotWithHitsAndShare) {
    const std::string_view names[] = {"FCM1[2] #1", "FCM1[2] #2", "miss"};
    const std::uint64_t counts[] = {6, 1, 1};
    EXPECT_EQ(report_of(names, counts, 3),
              "Field 2 (64-bit): 8 values\n"
              "  code  predictor                  hits    share\n"
              "     0  FCM1[2] #1                    6   75.00%\n"
              "     1  FCM1[2] #2                    1   12.50%\n"
              "     2  miss                          1   12.50%\n");
}

TEST(UsageReport, EmptyTraceHasZeroShares) {
    const std::string_view names[] = {"LV[1]", "miss"};
    const std::uint64_t counts[] = {0, 0};
    EXPECT_NE(report_of(names, counts, 2).find("0.00%"), std::string::npos);
}

}  // namespace
}  // namespace tcgen_runtime
