// The zstd frames outside the .tcz format (runtime/zstd_codec.hpp), which
// the WET's labels, flow and dataflow are saved in: a frame at any level
// states its content size, an empty input is a frame too, and a frame
// decodes only to exactly the size it states.

#include "runtime/zstd_codec.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

namespace tcgen_runtime {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes repeating_bytes(std::size_t size) {
    Bytes bytes(size);
    for (std::size_t i = 0; i < size; ++i) {
        bytes[i] = static_cast<std::uint8_t>((i * 7) % 23);
    }
    return bytes;
}

TEST(ZstdFrame, RoundTripsAtEveryLevelItIsUsedAt) {
    const Bytes data = repeating_bytes(100000);
    for (const int level : {1, 15, 19}) {
        const Bytes frame = zstd_frame(data, level);
        EXPECT_LT(frame.size(), data.size() / 10) << level;
        EXPECT_EQ(zstd_frame_content_size(frame.data(), frame.size()), std::optional<std::uint64_t>(data.size()));
        Bytes out(data.size());
        ASSERT_TRUE(zstd_unframe(frame.data(), frame.size(), out.data(), data.size())) << level;
        EXPECT_EQ(out, data) << level;
    }
}

// Inputs above the size a thread's kept context codes (coded in a context
// of their own) and frames made with the match finder's tables held small
// (the WET's register dataflow) decode as any other frame.
TEST(ZstdFrame, LargeInputsAndSmallTablesRoundTrip) {
    const Bytes data = repeating_bytes(zstd_frame_kept_context_limit + 4097);
    Bytes out(data.size());
    const Bytes large = zstd_frame(data, 19);
    ASSERT_TRUE(zstd_unframe(large.data(), large.size(), out.data(), out.size()));
    EXPECT_EQ(out, data);
    for (const int level : {1, 19}) {
        const Bytes small_tables = zstd_frame(data, level, 16, 15);
        EXPECT_LT(small_tables.size(), data.size() / 10) << level;
        EXPECT_EQ(zstd_frame_content_size(small_tables.data(), small_tables.size()),
                  std::optional<std::uint64_t>(data.size()));
        std::fill(out.begin(), out.end(), std::uint8_t{0});
        ASSERT_TRUE(zstd_unframe(small_tables.data(), small_tables.size(), out.data(), out.size())) << level;
        EXPECT_EQ(out, data) << level;
    }
    Bytes empty_out(1);
    const Bytes empty = zstd_frame(Bytes{}, 19, 16, 15);
    EXPECT_EQ(zstd_frame_content_size(empty.data(), empty.size()), std::optional<std::uint64_t>(0));
    EXPECT_TRUE(zstd_unframe(empty.data(), empty.size(), empty_out.data(), 0));
}

TEST(ZstdFrame, AnEmptyInputIsAFrame) {
    const Bytes frame = zstd_frame(Bytes{}, 15);
    EXPECT_FALSE(frame.empty());
    EXPECT_EQ(zstd_frame_content_size(frame.data(), frame.size()), std::optional<std::uint64_t>(0));
    std::uint8_t out = 0;
    EXPECT_TRUE(zstd_unframe(frame.data(), frame.size(), &out, 0));
}

TEST(ZstdFrame, RefusesAnotherSizeAndDamage) {
    const Bytes data = repeating_bytes(5000);
    Bytes frame = zstd_frame(data, 15);
    Bytes out(data.size() + 1);
    EXPECT_FALSE(zstd_unframe(frame.data(), frame.size(), out.data(), data.size() + 1));
    EXPECT_FALSE(zstd_unframe(frame.data(), frame.size(), out.data(), data.size() - 1));
    EXPECT_FALSE(zstd_unframe(frame.data(), frame.size() - 1, out.data(), data.size()));
    const Bytes not_a_frame(16, 0x55);
    EXPECT_EQ(zstd_frame_content_size(not_a_frame.data(), not_a_frame.size()), std::nullopt);
    EXPECT_FALSE(zstd_unframe(not_a_frame.data(), not_a_frame.size(), out.data(), 16));
}

}  // namespace
}  // namespace tcgen_runtime
