// The predictor building blocks the generated code composes.

#include "runtime/predictors.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace tcgen_runtime {
namespace {

TEST(ZeroedTable, StartsZeroedAndAddressesLines) {
    ZeroedTable<std::uint32_t> table(4 * 3);
    for (std::size_t line = 0; line < 4; ++line) {
        for (std::size_t entry = 0; entry < 3; ++entry) {
            EXPECT_EQ(table.line(line, 3)[entry], 0u);
        }
    }
    table.line(2, 3)[1] = 7;
    EXPECT_EQ(table.line(0, 3)[7], 7u);  // line 2, entry 1 is element 7
}

// A table of structs (a field's contexts of first-level lines) keeps their
// alignment, small (calloc's memory) or large (a mapping), and its lines
// are whole structs.
TEST(ZeroedTable, KeepsTheAlignmentOfItsEntries) {
    struct alignas(64) Context {
        std::uint64_t lines[4];
        std::uint32_t history[3];
    };
    for (std::size_t contexts : {std::size_t{1}, std::size_t{3}, std::size_t{100}, std::size_t{4096}}) {
        ZeroedTable<Context> table(contexts);
        for (std::size_t index = 0; index < contexts; ++index) {
            Context* context = table.line(index, 1);
            ASSERT_EQ(reinterpret_cast<std::uintptr_t>(context) % 64, 0u) << contexts << " contexts";
            EXPECT_EQ(context->lines[3], 0u);
            EXPECT_EQ(context->history[2], 0u);
            context->history[2] = static_cast<std::uint32_t>(index + 1);
        }
        EXPECT_EQ(table.line(contexts - 1, 1)->history[2], contexts);
        table.clear();
        EXPECT_EQ(table.line(contexts - 1, 1)->history[2], 0u);
    }
}

TEST(ZeroedMemory, LargeTablesStartZeroedAndClearToZero) {
    const std::size_t bytes = (std::size_t{5} << 20) + 3;  // beyond malloc's mapping threshold
    ZeroedMemory memory(bytes);
    auto* data = static_cast<unsigned char*>(memory.data());
    ASSERT_NE(data, nullptr);
    EXPECT_EQ(memory.bytes(), bytes);
    EXPECT_EQ(data[0], 0);
    EXPECT_EQ(data[bytes / 2], 0);
    EXPECT_EQ(data[bytes - 1], 0);
    data[0] = 1;
    data[bytes - 1] = 2;
    memory.clear();
    EXPECT_EQ(data[0], 0);
    EXPECT_EQ(data[bytes - 1], 0);
}

// A restart clears the tables once per restart block; with tiny blocks that
// must cost what the block touched, not the table's size: the cleared
// table's pages are handed back (not resident) and read as zeros again.
TEST(ZeroedMemory, ClearingALargeTableDropsItsPagesInsteadOfWritingThem) {
    if (under_address_sanitizer()) {
        GTEST_SKIP() << "under AddressSanitizer tables come from calloc, to have their bounds checked";
    }
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t bytes = 256 * page;
    ZeroedMemory memory(bytes);
    auto* data = static_cast<unsigned char*>(memory.data());
    auto resident_pages = [&] {
        std::vector<unsigned char> resident(bytes / page);
        EXPECT_EQ(::mincore(data, bytes, resident.data()), 0);
        std::size_t count = 0;
        for (const unsigned char flags : resident) {
            count += flags & 1u;
        }
        return count;
    };
    EXPECT_EQ(resident_pages(), 0u);
    for (std::size_t at = 0; at < bytes; at += 16 * page) {
        data[at + 5] = 0xAB;
    }
    EXPECT_EQ(resident_pages(), 16u);
    memory.clear();
    EXPECT_EQ(resident_pages(), 0u);
    for (std::size_t at = 0; at < bytes; at += 16 * page) {
        EXPECT_EQ(data[at + 5], 0);
    }
}

// The one-thread reader and the writer clear the tables of a group that
// fills them in place, for the restart alone: the pages stay resident, and
// the thread's choice is what it was after.
TEST(ZeroedMemory, TablesClearedInPlaceKeepTheirPagesForItsLifetime) {
    if (under_address_sanitizer()) {
        GTEST_SKIP() << "under AddressSanitizer tables come from calloc, to have their bounds checked";
    }
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t bytes = 64 * page;
    ZeroedMemory memory(bytes);
    auto* data = static_cast<unsigned char*>(memory.data());
    for (std::size_t at = 0; at < bytes; at += page) {
        data[at] = 0xAB;
    }
    ASSERT_FALSE(clear_tables_in_place());
    {
        const TablesClearedInPlace in_place(true);
        EXPECT_TRUE(clear_tables_in_place());
        memory.clear();
        {
            const TablesClearedInPlace dropped(false);
            EXPECT_FALSE(clear_tables_in_place());
        }
        EXPECT_TRUE(clear_tables_in_place());
    }
    EXPECT_FALSE(clear_tables_in_place());
    std::vector<unsigned char> resident(bytes / page);
    ASSERT_EQ(::mincore(data, bytes, resident.data()), 0);
    for (std::size_t index = 0; index < resident.size(); ++index) {
        EXPECT_EQ(resident[index] & 1u, 1u) << "page " << index;
        EXPECT_EQ(data[index * page], 0) << "page " << index;
    }
}

TEST(ZeroedMemory, MovingHandsOverTheTable) {
    ZeroedMemory small(64);
    ZeroedMemory large(std::size_t{4} << 20);
    static_cast<unsigned char*>(small.data())[63] = 7;
    static_cast<unsigned char*>(large.data())[5] = 9;
    void* small_data = small.data();
    ZeroedMemory moved(std::move(small));
    EXPECT_EQ(moved.data(), small_data);
    EXPECT_EQ(small.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the test
    EXPECT_EQ(small.bytes(), 0u);
    moved = std::move(large);  // frees the small table, takes the large one
    EXPECT_EQ(moved.bytes(), std::size_t{4} << 20);
    EXPECT_EQ(static_cast<unsigned char*>(moved.data())[5], 9);
    ZeroedMemory empty(0);
    EXPECT_EQ(empty.data(), nullptr);
    empty.clear();  // nothing to clear
}

// A line taken with marks (a file with restart points) marks its 4 KiB
// page, or both pages where it straddles their boundary.
TEST(ZeroedMemory, MarkingMarksThePagesOfALine) {
    constexpr std::size_t page = ZeroedMemory::page_bytes;
    for (const std::size_t bytes : {16 * page, std::size_t{3} * page + 100}) {  // mapped, and from calloc
        ZeroedMemory memory(bytes);
        memory.mark(5 * 8, 8);  // harmless while the marks are off, and forgotten when they go on
        EXPECT_FALSE(memory.clears_touched_pages_only());
        memory.clear_touched_pages_only(true);
        EXPECT_TRUE(memory.clears_touched_pages_only());
        EXPECT_FALSE(memory.touched(0));
        memory.mark(page + 64, 64);     // a power of two: its one page
        memory.mark(2 * page - 4, 12);  // straddles pages 1 and 2
        memory.mark(3 * page, 100);     // the last, partial page (of the calloc one)
        for (std::size_t index = 0; index < (bytes + page - 1) / page; ++index) {
            EXPECT_EQ(memory.touched(index), index >= 1 && index <= 3) << "page " << index << " of " << bytes;
        }
        memory.clear();
        for (std::size_t index = 0; index < (bytes + page - 1) / page; ++index) {
            EXPECT_FALSE(memory.touched(index));
        }
    }
}

// A restart with the marks on zeroes the pages touched, in place (they stay
// resident), and no other page: a page written without being marked keeps
// its bytes, which no table does, and shows that nothing else was written.
TEST(ZeroedMemory, ClearingWithMarksZeroesExactlyTheTouchedPagesInPlace) {
    constexpr std::size_t page = ZeroedMemory::page_bytes;
    const std::size_t bytes = 256 * page;
    ZeroedMemory memory(bytes);
    auto* data = static_cast<unsigned char*>(memory.data());
    data[7 * page] = 0x11;  // switching the marks on empties the memory
    memory.clear_touched_pages_only(true);
    EXPECT_EQ(data[7 * page], 0);
    // Pages 3-5 (a run: one memset), 64 (the second word of marks), 255 (the last).
    for (const std::size_t index : {3u, 4u, 5u, 64u, 255u}) {
        memory.mark(index * page + 40, 8);
        data[index * page + 40] = 0xAB;
        data[index * page + page - 1] = 0xCD;  // the same page, beyond the line
    }
    data[100 * page] = 0x5A;  // written, never marked
    memory.clear();
    for (const std::size_t index : {3u, 4u, 5u, 64u, 255u}) {
        EXPECT_EQ(data[index * page + 40], 0) << "page " << index;
        EXPECT_EQ(data[index * page + page - 1], 0) << "page " << index;
        EXPECT_FALSE(memory.touched(index));
    }
    EXPECT_EQ(data[100 * page], 0x5A);
    if (!under_address_sanitizer()) {
        std::vector<unsigned char> resident(bytes / static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)));
        ASSERT_EQ(::mincore(data, bytes, resident.data()), 0);
        const std::size_t kernel_page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
        EXPECT_EQ(resident[3 * page / kernel_page] & 1u, 1u);  // zeroed in place, not handed back
    }
    // Switched off, a clear empties it all again.
    memory.clear_touched_pages_only(false);
    EXPECT_FALSE(memory.clears_touched_pages_only());
    memory.clear();
    EXPECT_EQ(data[100 * page], 0);
}

// What a restart does to a table with the marks on: every line taken with
// marks, and written, reads zero after it, lines of 12 bytes straddling
// pages included; a line taken without marks marks nothing.
TEST(ZeroedTable, ReadsZeroAfterARestartThatClearsOnlyTheTouchedPages) {
    const std::size_t lines = 20000;  // 240,000 bytes: mapped, 59 pages
    ZeroedTable<std::uint32_t> table(lines * 3);
    table.clear_touched_pages_only(true);
    for (int round = 0; round < 3; ++round) {
        for (std::size_t line = static_cast<std::size_t>(round); line < lines; line += 337) {
            std::uint32_t* entries = table.line<true>(line, 3);
            entries[0] = 1;
            entries[2] = 3;  // the last entry, on the next page where the line straddles
        }
        for (std::size_t line = 0; line < lines; line += 337) {
            EXPECT_TRUE(table.memory().touched(line * 12 / ZeroedMemory::page_bytes));
            EXPECT_TRUE(table.memory().touched((line * 12 + 11) / ZeroedMemory::page_bytes));
        }
        table.clear();
        for (std::size_t line = 0; line < lines; ++line) {
            const std::uint32_t* entries = table.line(line, 3);
            ASSERT_EQ(entries[0] | entries[1] | entries[2], 0u) << "line " << line << ", round " << round;
        }
        for (std::size_t page = 0; page < lines * 12 / ZeroedMemory::page_bytes; ++page) {
            ASSERT_FALSE(table.memory().touched(page)) << "page " << page << ", round " << round;
        }
    }
}

TEST(ZeroedTable, RefusesASizeBeyondMemory) {
    EXPECT_THROW(ZeroedTable<std::uint64_t>(~std::size_t{0} / 4), std::bad_alloc);
}

TEST(WrappingArithmetic, WrapsAtTheFieldWidth) {
    EXPECT_EQ(wrapping_add<std::uint8_t>(250, 10), 4);
    EXPECT_EQ(wrapping_subtract<std::uint8_t>(3, 5), 254);
    EXPECT_EQ(wrapping_subtract<std::uint16_t>(0, 1), 0xffff);
    EXPECT_EQ(wrapping_add<std::uint64_t>(~std::uint64_t{0}, 2), 1u);
}

TEST(SmartUpdate, ShiftsOnlyWhenTheFirstEntryDiffers) {
    std::uint32_t line[3] = {0, 0, 0};
    smart_update<3>(line, 5u);
    smart_update<3>(line, 5u);  // same as the first entry: no change
    smart_update<3>(line, 6u);
    EXPECT_EQ(line[0], 6u);
    EXPECT_EQ(line[1], 5u);
    EXPECT_EQ(line[2], 0u);
    smart_update<3>(line, 5u);  // equal to the second entry: still shifts
    EXPECT_EQ(line[0], 5u);
    EXPECT_EQ(line[1], 6u);
    EXPECT_EQ(line[2], 5u);
}

TEST(SmartUpdate, OneEntryLinesTakeTheNewValue) {
    std::uint8_t line[1] = {9};
    smart_update<1>(line, std::uint8_t{4});
    EXPECT_EQ(line[0], 4);
}

TEST(PushFront, AlwaysShifts) {
    std::uint64_t line[3] = {1, 2, 3};
    push_front<3>(line, std::uint64_t{1});
    EXPECT_EQ(line[0], 1u);
    EXPECT_EQ(line[1], 1u);
    EXPECT_EQ(line[2], 2u);
}

TEST(FindPrediction, ReturnsTheLowestMatchingSlotOrTheMissCode) {
    std::uint16_t predictions[4] = {1, 7, 3, 7};
    EXPECT_EQ(find_prediction(predictions, std::uint16_t{7}), 1u);
    EXPECT_EQ(find_prediction(predictions, std::uint16_t{1}), 0u);
    EXPECT_EQ(find_prediction(predictions, std::uint16_t{9}), 4u);
}

TEST(NextHash, ShiftsXorsAndMasks) {
    EXPECT_EQ(next_hash<std::uint32_t>(0x3, 0x1, 1, 0x7), 0x7u);  // (3 << 1) ^ 1 = 7
    EXPECT_EQ(next_hash<std::uint32_t>(0xf, 0x0, 2, 0xf), 0xcu);  // 0x3c & 0xf
    EXPECT_EQ(next_hash<std::uint16_t>(0xffff, 0xffff, 16, 0xffff), 0xffff);
}

// The incremental hash yields, for every order, what folding the last k
// values from scratch yields: the property that lets lower orders read a
// prefix of the highest order's history.
TEST(NextHash, IncrementalEqualsFromScratch) {
    const unsigned shift = 3;
    const std::uint64_t masks[4] = {0xff, 0x1ff, 0x3ff, 0x7ff};
    std::uint64_t history[4] = {0, 0, 0, 0};
    std::uint64_t values[64];
    for (unsigned t = 0; t < 64; ++t) {
        values[t] = (t * 2654435761u) & 0xff;
        for (unsigned k = 4; k >= 2; --k) {
            history[k - 1] = next_hash<std::uint64_t>(history[k - 2], values[t], shift, masks[k - 1]);
        }
        history[0] = values[t];
        for (unsigned order = 1; order <= 4 && order <= t + 1; ++order) {
            std::uint64_t scratch = 0;
            for (unsigned j = order; j >= 1; --j) {
                scratch = ((scratch << shift) ^ values[t + 1 - j]) & masks[order - j];
            }
            EXPECT_EQ(history[order - 1], scratch) << "t=" << t << " order=" << order;
        }
    }
}

// A field whose one predictor is a match window, coded in `line` by the
// encoder: what it predicted for each value (before learning it), and
// whether it was right (where it was, the code names it).
struct EncodedMatches {
    std::vector<std::uint32_t> predictions;
    std::vector<bool> hits;
};

template <bool marks = false, unsigned order>
EncodedMatches encode_matches(MatchTable<std::uint32_t, order>& table, const std::vector<std::uint32_t>& values,
                              std::size_t line = 0) {
    EncodedMatches encoded;
    table.search();
    for (std::uint32_t value : values) {
        const std::uint32_t predicted = *table.template find<marks>(line);
        encoded.predictions.push_back(predicted);
        encoded.hits.push_back(predicted == value);
        if (predicted == value) {
            table.start();
        }
        table.update(value);
    }
    return encoded;
}

template <bool marks = false, unsigned order>
std::vector<std::uint32_t> match_predictions(MatchTable<std::uint32_t, order>& table,
                                             const std::vector<std::uint32_t>& values, std::size_t line = 0) {
    return encode_matches<marks>(table, values, line).predictions;
}

// The decoder's side: the values rebuilt from the hits (from start()) and
// the other values (as if from misses).
template <unsigned order>
std::vector<std::uint32_t> decode_matches(MatchTable<std::uint32_t, order>& table,
                                          const std::vector<std::uint32_t>& values, const std::vector<bool>& hits) {
    std::vector<std::uint32_t> decoded;
    for (std::size_t i = 0; i < values.size(); ++i) {
        table.find(0);
        const std::uint32_t value = hits[i] ? table.start() : values[i];
        decoded.push_back(value);
        table.update(value);
    }
    return decoded;
}

TEST(MatchTable, FollowsARepeatOnceItsKeyRecurs) {
    MatchTable<std::uint32_t, 2> table(1024);
    // A sequence, something else, then the sequence again: from its third
    // value on (its first two are the key) the repeat is predicted through to
    // its end, and the window follows it past where the key ever occurred.
    std::vector<std::uint32_t> first = {10, 20, 30, 40, 50, 60, 70};
    match_predictions(table, first);
    match_predictions(table, {1, 2, 3});
    std::vector<std::uint32_t> again = match_predictions(table, first);
    EXPECT_EQ(std::vector<std::uint32_t>(again.begin() + 2, again.end()),
              std::vector<std::uint32_t>(first.begin() + 2, first.end()));
}

TEST(MatchTable, AWrongPredictionLooksTheKeyUpAgainAtItsLatestOccurrence) {
    MatchTable<std::uint32_t, 1> table(1024);
    // 5 was followed by 6, later by 7; after a miss, key 5 names the latter.
    match_predictions(table, {5, 6, 8, 5, 7, 8, 1, 5});
    EXPECT_EQ(*table.find(0), 7u);
    table.start();                  // its code named: a match starts
    table.update(7);
    EXPECT_EQ(*table.find(0), 8u);  // right, so it follows: after 5, 7 came 8
    table.update(9);                // wrong: the next find looks up key 9,
    EXPECT_EQ(*table.find(0), 0u);  // never seen, so 0
}

TEST(MatchTable, AMatchStartsOnlyWhereItsCodeIsNamed) {
    MatchTable<std::uint32_t, 1> table(1024);
    match_predictions(table, {5, 6, 7, 9, 6, 8, 5});
    EXPECT_EQ(*table.find(0), 6u);
    table.update(6);                // right, but another code was written:
    EXPECT_EQ(*table.find(0), 8u);  // no match followed (that would say 7), key 6 looked up
}

TEST(MatchTable, TheKeyIncludesThePcLine) {
    MatchTable<std::uint32_t, 1> table(1024);
    match_predictions(table, {3, 4, 3}, 1);
    EXPECT_EQ(*table.find(1), 4u);  // in line 1, 4 followed 3
    MatchTable<std::uint32_t, 1> other(1024);
    match_predictions(other, {3, 4}, 1);
    match_predictions(other, {3}, 2);
    EXPECT_EQ(*other.find(2), 0u);  // in line 2 nothing has followed 3
}

TEST(MatchTable, ClearForgetsEverything) {
    MatchTable<std::uint32_t, 2> table(1024);
    match_predictions(table, {1, 2, 3, 1, 2});
    EXPECT_EQ(*table.find(0), 3u);
    table.clear();
    EXPECT_EQ(match_predictions(table, {1, 2, 3}), (std::vector<std::uint32_t>{0, 0, 0}));
}

// Repeats near and far, some beyond the window, and values never seen.
std::vector<std::uint32_t> repetitive_values() {
    std::vector<std::uint32_t> values;
    std::uint32_t state = 12345;
    for (int round = 0; round < 400; ++round) {
        state = state * 1103515245u + 12345u;
        const std::uint32_t length = 1 + (state >> 24) % 40;
        const std::uint32_t back = 1 + (state >> 8) % 3000;
        for (std::uint32_t i = 0; i < length; ++i) {
            values.push_back(values.size() >= back && (state & 3) != 0 ? values[values.size() - back]
                                                                     : (state >> 4) % 97 + i);
        }
    }
    return values;
}

TEST(MatchTable, TheDecoderLookingUpOnlyWhereMatchesStartPredictsAsTheEncoder) {
    const std::vector<std::uint32_t> values = repetitive_values();
    MatchTable<std::uint32_t, 3> encoder(1024);
    const EncodedMatches encoded = encode_matches(encoder, values);
    std::size_t hits = 0;
    for (bool hit : encoded.hits) {
        hits += hit ? 1 : 0;
    }
    EXPECT_GT(hits, values.size() / 4);
    MatchTable<std::uint32_t, 3> decoder(1024);
    EXPECT_EQ(decode_matches(decoder, values, encoded.hits), values);
}

// With the marks on, a clear empties the key table's pages that find<true>
// marked and the window up to the last value written; the window wraps in
// the small one.
TEST(MatchTable, ClearingOnlyWhatWasWrittenForgetsEverythingToo) {
    const std::vector<std::uint32_t> values = repetitive_values();
    for (const std::size_t size : {std::size_t{1} << 16, std::size_t{1024}}) {  // mapped; from calloc, wrapping
        MatchTable<std::uint32_t, 2> fresh(size);
        const std::vector<std::uint32_t> expected = match_predictions(fresh, values);
        MatchTable<std::uint32_t, 2> table(size);
        match_predictions(table, values);
        table.clear_touched_pages_only(true);  // empties it
        for (int round = 0; round < 3; ++round) {
            EXPECT_EQ(match_predictions<true>(table, values), expected) << "round " << round << ", size " << size;
            table.clear();
        }
    }
}

}  // namespace
}  // namespace tcgen_runtime
