// The control flow as successor ranks (wet/flow/flow_stream.hpp): walks both
// ways, seeks and frame walks against the flow it was built from, with
// blocks of more successors than a rank byte holds; the saved form reloaded;
// forged saved forms refused with the place named.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "common/byte_io.hpp"
#include "wet/flow/flow_stream.hpp"

namespace {

using tcgen::ByteReader;
using tcgen::ByteWriter;
using tcgen::wet::FlowStream;
using tcgen::wet::WetError;

constexpr std::size_t blocks = 1000;

// Loops through blocks 1..8 with an occasional branch, and a dispatch block
// (0) that jumps to any of 600 blocks: ranks past 254 there.
std::vector<std::uint32_t> make_flow(std::size_t length, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<std::uint32_t> flow;
    std::uint32_t block = 1;
    while (flow.size() < length) {
        flow.push_back(block);
        if (block == 0) {
            block = 100 + static_cast<std::uint32_t>(random() % 600);
        } else if (block >= 100) {
            block = random() % 4 == 0 ? 0 : 1;
        } else if (block == 8) {
            block = random() % 8 == 0 ? 0 : 1;
        } else {
            block = random() % 16 == 0 ? 9 + static_cast<std::uint32_t>(random() % 3) : block + 1;
            if (block > 8) {
                block = 1;
            }
        }
    }
    return flow;
}

std::vector<std::uint8_t> saved(const FlowStream& stream) {
    ByteWriter writer;
    stream.save(writer);
    return std::move(writer.data());
}

FlowStream reload(const std::vector<std::uint8_t>& bytes) {
    ByteReader reader(bytes.data(), bytes.size(), "run.wet", "FLOW section");
    FlowStream stream = FlowStream::load(reader, blocks);
    reader.expect_end();
    return stream;
}

void expect_walks(FlowStream& stream, const std::vector<std::uint32_t>& flow, std::uint64_t seed) {
    ASSERT_EQ(stream.size(), flow.size());
    std::uint32_t block = 0;
    stream.seek(0);
    for (std::size_t t = 0; t < flow.size(); ++t) {
        ASSERT_TRUE(stream.next(block));
        ASSERT_EQ(block, flow[t]) << "forward at " << t;
    }
    EXPECT_FALSE(stream.next(block));
    for (std::size_t t = flow.size(); t-- > 0;) {
        ASSERT_TRUE(stream.prev(block));
        ASSERT_EQ(block, flow[t]) << "backward at " << t;
    }
    EXPECT_FALSE(stream.prev(block));
    std::mt19937_64 random(seed);
    for (int seek = 0; seek < 500; ++seek) {
        const std::uint64_t to = random() % (flow.size() + 1);
        stream.seek(to);
        ASSERT_EQ(stream.position(), to);
        for (int step = 0; step < 40; ++step) {
            const std::uint64_t at = stream.position();
            if (random() % 2 == 0) {
                ASSERT_EQ(stream.next(block), at < flow.size());
                if (at < flow.size()) {
                    ASSERT_EQ(block, flow[at]) << "next after a seek to " << to;
                }
            } else {
                ASSERT_EQ(stream.prev(block), at > 0);
                if (at > 0) {
                    ASSERT_EQ(block, flow[at - 1]) << "prev after a seek to " << to;
                }
            }
        }
    }
    std::vector<std::uint32_t> walked;
    stream.walk_all([&](std::uint32_t visited, std::uint64_t position) {
        ASSERT_EQ(position, walked.size());
        walked.push_back(visited);
    });
    EXPECT_EQ(walked, flow);
}

TEST(FlowStream, WalksSeeksAndReloadsMatchTheFlow) {
    const std::vector<std::uint32_t> flow = make_flow(30000, 1);
    for (const auto& [checkpoint, frame] : {std::pair<std::uint64_t, std::uint64_t>{1, 1}, {7, 50}, {64, 64},
                                            {4096, FlowStream::target_frame_records}, {100000, 1}}) {
        SCOPED_TRACE("checkpoint " + std::to_string(checkpoint) + ", frame " + std::to_string(frame));
        FlowStream stream = FlowStream::build(flow.data(), flow.size(), blocks, checkpoint, frame);
        EXPECT_EQ(stream.frame_records() % stream.checkpoint_records(), 0u);
        expect_walks(stream, flow, checkpoint);
        FlowStream loaded = reload(saved(stream));
        EXPECT_EQ(saved(loaded), saved(stream));
        EXPECT_EQ(loaded.saved_bytes(), saved(stream).size());
        expect_walks(loaded, flow, checkpoint + 1);
    }
}

TEST(FlowStream, TheSameFlowBuildsTheSameBytes) {
    const std::vector<std::uint32_t> flow = make_flow(20000, 2);
    EXPECT_EQ(saved(FlowStream::build(flow.data(), flow.size(), blocks, 64)),
              saved(FlowStream::build(flow.data(), flow.size(), blocks, 64)));
}

// The saved form: u64 count, checkpoint, frame records; u64 size and the
// successor table's zstd frame; per frame u64 size and its zstd frame.
std::string load_error(const std::vector<std::uint8_t>& bytes) {
    try {
        reload(bytes);
    } catch (const WetError& error) {
        return error.what();
    }
    return "(accepted)";
}

void put_u64(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint64_t value) {
    for (int k = 0; k < 8; ++k) {
        bytes[at + static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(value >> (8 * k));
    }
}

TEST(FlowStream, ForgedFramingIsRefusedWithItsPlace) {
    const std::vector<std::uint32_t> flow = make_flow(5000, 3);
    const std::vector<std::uint8_t> good = saved(FlowStream::build(flow.data(), flow.size(), blocks, 64, 256));
    ASSERT_EQ(load_error(good), "(accepted)");

    std::vector<std::uint8_t> frames = good;
    put_u64(frames, 16, 100);  // frames of 100 records, checkpoints every 64
    EXPECT_EQ(load_error(frames),
              "run.wet: error: FLOW section: control flow: 5000 timestamps in frames of 100 with a checkpoint every 64");
    std::vector<std::uint8_t> huge = good;
    put_u64(huge, 8, std::uint64_t{1} << 30);
    put_u64(huge, 16, std::uint64_t{1} << 30);
    EXPECT_NE(load_error(huge).find("in frames of 1073741824"), std::string::npos) << load_error(huge);

    // More timestamps than the frames present hold.
    std::vector<std::uint8_t> longer = good;
    put_u64(longer, 0, std::uint64_t{1} << 40);
    EXPECT_NE(load_error(longer).find("frames claimed"), std::string::npos) << load_error(longer);

    for (std::size_t cut : {std::size_t{10}, std::size_t{40}, good.size() - 1}) {
        std::vector<std::uint8_t> truncated(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
        EXPECT_NE(load_error(truncated).find("run.wet: error: FLOW section"), std::string::npos)
            << load_error(truncated);
    }
}

// Every byte flipped in turn: refused when loaded, refused by the walk that
// meets it, or (a byte zstd's entropy coding absorbs) walked to blocks that
// still follow one another as the successor table allows; never a crash.
TEST(FlowStream, EveryByteFlippedIsRefusedOrWalkedSafely) {
    const std::vector<std::uint32_t> flow = make_flow(3000, 4);
    const std::vector<std::uint8_t> good = saved(FlowStream::build(flow.data(), flow.size(), blocks, 64, 256));
    std::size_t refused = 0;
    for (std::size_t at = 0; at < good.size(); ++at) {
        std::vector<std::uint8_t> bytes = good;
        bytes[at] ^= 0x5a;
        try {
            FlowStream stream = reload(bytes);
            std::uint32_t block = 0;
            std::uint64_t steps = 0;
            while (stream.next(block)) {
                ASSERT_LT(block, blocks);
                ++steps;
            }
            EXPECT_EQ(steps, stream.size());
        } catch (const WetError&) {
            ++refused;
        } catch (const std::runtime_error&) {
            ++refused;
        }
    }
    EXPECT_GT(refused, good.size() / 2);
}

}  // namespace
