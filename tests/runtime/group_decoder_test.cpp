// Decompression of restart groups on several threads (GroupDecoder, through
// decompress_on_threads): the output, every error and the output written
// before it are those of one thread, for every back-end, restart interval
// and thread count. Run under ThreadSanitizer by scripts/tsan.sh.

#include "runtime/driver.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/runtime/tcz_sections.hpp"
#include "tests/runtime/test_codec.hpp"
#include "tests/test_scale.hpp"

namespace tcgen_runtime {
namespace {

using tcgen_test::DeltaCodec;
using tcgen_test::DeltaCodecTemplate;
using Bytes = std::vector<std::uint8_t>;

// Records that the delta codec predicts in part: a count, and a word that
// jumps now and then.
Bytes counting_trace(std::size_t record_count, std::size_t extra_bytes, std::uint32_t seed) {
    std::mt19937 random(seed);
    Bytes bytes = {'H', 'D', 'R', '1'};
    std::uint32_t word = 0x1000;
    for (std::size_t index = 0; index < record_count; ++index) {
        if (random() % 5 == 0) {
            word = static_cast<std::uint32_t>(random());
        }
        std::uint8_t record[6];
        store_le<std::uint16_t>(record, static_cast<std::uint16_t>(index * 3));
        store_le<std::uint32_t>(record + 2, word);
        bytes.insert(bytes.end(), record, record + 6);
    }
    bytes.insert(bytes.end(), extra_bytes, 0xEE);
    return bytes;
}

template <class Codec>
Bytes compress_bytes(const Bytes& input, std::uint32_t restart_blocks, BackendChoice backend = {}) {
    WriteOptions options;
    options.restart_blocks = restart_blocks;
    options.backend = backend;
    options.threads = 1;
    MemorySource source(input);
    MemorySink sink;
    compress<Codec>(source, sink, options);
    return sink.bytes();
}

// What decompression on `threads` threads writes, and its error ("" if none).
struct Outcome {
    Bytes output;
    std::string error;
    RunTotals totals;
};

// With threads other than 1 the GroupDecoder's, whatever the size of the
// groups (decompress_on_threads would decode these small ones on one).
template <class Codec = DeltaCodec>
Outcome decompress_on(const Bytes& file, unsigned threads) {
    MemorySource source(file);
    MemorySink sink;
    Outcome outcome;
    std::uint64_t last_blocks = 0;
    auto progress = [&](const RunTotals& totals) {
        // One call per block, in order.
        EXPECT_EQ(totals.blocks, last_blocks + 1);
        last_blocks = totals.blocks;
    };
    try {
        if (threads == 1) {
            outcome.totals = decompress_on_threads<Codec>(source, sink, threads, progress);
        } else {
            GroupDecoder<Codec> decoder(source, threads);
            EXPECT_TRUE(decoder.started());
            outcome.totals = decoder.run(sink, progress);
        }
    } catch (const Error& error) {
        outcome.error = error.what();
    }
    outcome.output = sink.bytes();
    return outcome;
}

TEST(GroupDecoder, RoundTripsEveryBackendRestartIntervalAndThreadCount) {
    using SmallBlocks = DeltaCodecTemplate<4, 64>;
    const Bytes input = counting_trace(64 * 41 + 17, 3, 1);
    // Under the sanitizers: one group, a block a group, groups of two and
    // seven (the last cut short); fewer threads than groups and more.
    const std::vector<std::uint32_t> restarts =
        tcgen_test::under_sanitizers ? std::vector<std::uint32_t>{0, 1, 2, 7} : std::vector<std::uint32_t>{0, 1, 2, 3, 7};
    const std::vector<unsigned> thread_counts =
        tcgen_test::under_sanitizers ? std::vector<unsigned>{2, 5} : std::vector<unsigned>{0, 2, 3, 5};
    for (const Backend backend : {Backend::bzip2, Backend::lzma, Backend::zstd, Backend::cm}) {
        for (const std::uint32_t restart : restarts) {
            if (backend == Backend::cm && restart != 2) {
                continue;  // it sets up megabytes of tables per stream: one interval
            }
            const Bytes file = compress_bytes<SmallBlocks>(input, restart, backend);
            const Outcome one = decompress_on<SmallBlocks>(file, 1);
            ASSERT_EQ(one.error, "");
            ASSERT_EQ(one.output, input);
            for (const unsigned threads : thread_counts) {
                const Outcome many = decompress_on<SmallBlocks>(file, threads);
                EXPECT_EQ(many.error, "") << "restart " << restart << ", " << threads << " threads";
                EXPECT_EQ(many.output, input) << "restart " << restart << ", " << threads << " threads";
                EXPECT_EQ(many.totals.blocks, 42u);
                EXPECT_EQ(many.totals.records, one.totals.records);
                EXPECT_EQ(many.totals.input_bytes, file.size());
                EXPECT_EQ(many.totals.output_bytes, input.size());
            }
        }
    }
}

// Groups of fewer than min_group_bytes of records are decoded on one
// thread: the choice read from the preamble, which is then read again.
TEST(GroupDecoder, GroupsTooSmallForThreadsAreDecodedOnOne) {
    using SmallBlocks = DeltaCodecTemplate<4, 64>;  // 384 bytes a block
    const Bytes input = counting_trace(64 * 100, 3, 2);
    auto pays = [&](std::uint32_t restart) {
        const Bytes file = compress_bytes<SmallBlocks>(input, restart);
        MemorySource source(file);
        LookAheadSource ahead(source, TczPreambleLayout::spec_text);
        return GroupDecoder<SmallBlocks>::groups_pay_for_threads(ahead.ahead());
    };
    EXPECT_TRUE(pays(0));    // one group
    EXPECT_FALSE(pays(1));   // 384 bytes
    EXPECT_FALSE(pays(21));  // 8064
    EXPECT_TRUE(pays(22));   // 8448
    EXPECT_TRUE(GroupDecoder<SmallBlocks>::groups_pay_for_threads({1, 2, 3}));  // no preamble: the decoder says so
    const Bytes file = compress_bytes<SmallBlocks>(input, 1);
    for (const unsigned threads : {0u, 1u, 3u}) {
        MemorySource source(file);
        MemorySink sink;
        const RunTotals totals = decompress_on_threads<SmallBlocks>(source, sink, threads);
        EXPECT_EQ(sink.bytes(), input) << threads << " threads";
        EXPECT_EQ(totals.input_bytes, file.size());
    }
}

TEST(GroupDecoder, RoundTripsShortTracesAndConcatenations) {
    for (std::size_t size = 0; size <= 40; ++size) {
        const Bytes input = counting_trace(size / 6, size % 6, static_cast<std::uint32_t>(size));
        const Bytes file = compress_bytes<DeltaCodec>(input, 1);
        EXPECT_EQ(decompress_on(file, 3).output, input) << size;
    }
    // Members with different restart intervals, one of them empty.
    const Bytes first = counting_trace(103, 2, 7);
    const Bytes second = counting_trace(0, 0, 8);
    const Bytes third = counting_trace(61, 0, 9);
    Bytes file = compress_bytes<DeltaCodec>(first, 2);
    for (const auto& [input, restart] : {std::pair{second, 0u}, std::pair{third, 1u}}) {
        const Bytes member = compress_bytes<DeltaCodec>(input, restart);
        file.insert(file.end(), member.begin(), member.end());
    }
    Bytes expected = first;
    expected.insert(expected.end(), second.begin(), second.end());
    expected.insert(expected.end(), third.begin(), third.end());
    for (const unsigned threads : {1u, 2u, 4u}) {
        const Outcome outcome = decompress_on(file, threads);
        EXPECT_EQ(outcome.error, "") << threads;
        EXPECT_EQ(outcome.output, expected) << threads;
    }
}

// Every byte of a file of many small groups damaged in turn: each thread
// count writes what one thread writes, up to the same error. Under the
// sanitizers every third byte of each file, starting one byte further on
// for each restart interval: the three files are damaged at every offset.
TEST(GroupDecoder, EveryDamagedByteGivesTheErrorAndOutputOfOneThread) {
    const Bytes input = counting_trace(5 * 9 + 2, 1, 3);
    const std::size_t stride = tcgen_test::under_sanitizers ? 3 : 1;
    for (const std::uint32_t restart : {1u, 2u, 3u}) {
        const Bytes file = compress_bytes<DeltaCodec>(input, restart);
        ASSERT_EQ(find_sections(file).blocks.size(), 10u);
        const std::size_t first = tcgen_test::under_sanitizers ? restart - 1 : 0;
        for (std::size_t position = first; position < file.size(); position += stride) {
            Bytes damaged = file;
            damaged[position] = static_cast<std::uint8_t>(damaged[position] ^ 0x01);
            const Outcome one = decompress_on(damaged, 1);
            ASSERT_NE(one.error, "") << "byte " << position;
            for (const unsigned threads : {2u, 3u}) {
                const Outcome many = decompress_on(damaged, threads);
                EXPECT_EQ(many.error, one.error) << "restart " << restart << ", byte " << position;
                EXPECT_EQ(many.output, one.output) << "restart " << restart << ", byte " << position;
            }
        }
        // And cut short anywhere.
        for (std::size_t size = 0; size < file.size(); size += 7) {
            const Bytes truncated(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(size));
            const Outcome one = decompress_on(truncated, 1);
            const Outcome many = decompress_on(truncated, 3);
            EXPECT_EQ(many.error, one.error) << "restart " << restart << ", size " << size;
            EXPECT_EQ(many.output, one.output) << "restart " << restart << ", size " << size;
        }
    }
}

// A block whose records decode wrong (its check fails only once decoded) in
// a group far behind the first: the groups before it are written whole.
TEST(GroupDecoder, ABadBlockInALaterGroupStopsTheOutputBeforeIt) {
    using SmallBlocks = DeltaCodecTemplate<4, 64>;
    const Bytes input = counting_trace(64 * 30, 0, 4);
    const Bytes file = compress_bytes<SmallBlocks>(input, 2, Backend::zstd);
    const std::vector<std::size_t> blocks = find_sections(file).blocks;
    ASSERT_EQ(blocks.size(), 30u);
    Bytes damaged = file;
    // The stored check of the records of block 23, the last field of its
    // section (just before block 24 starts).
    damaged[blocks[23] - 1] ^= 0x40;
    const Outcome one = decompress_on<SmallBlocks>(damaged, 1);
    EXPECT_EQ(one.error, "checksum mismatch in block 23");
    EXPECT_EQ(one.output, Bytes(input.begin(), input.begin() + 4 + 22 * 64 * 6));
    for (const unsigned threads : {2u, 3u, 8u}) {
        const Outcome many = decompress_on<SmallBlocks>(damaged, threads);
        EXPECT_EQ(many.error, one.error) << threads;
        EXPECT_EQ(many.output, one.output) << threads;
    }
}

// A file that claims another spec is refused before anything is written.
TEST(GroupDecoder, RefusesAnotherSpecBeforeWriting) {
    using OtherSpec = DeltaCodecTemplate<4, 7>;
    const Bytes other = compress_bytes<DeltaCodecTemplate<0, 5>>(counting_trace(50, 0, 5), 1);
    const Outcome one = decompress_on<OtherSpec>(other, 1);
    const Outcome many = decompress_on<OtherSpec>(other, 4);
    EXPECT_NE(one.error, "");
    EXPECT_EQ(many.error, one.error);
    EXPECT_TRUE(many.output.empty());
}

}  // namespace
}  // namespace tcgen_runtime
