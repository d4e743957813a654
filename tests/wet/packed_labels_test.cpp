// A kind's labels packed in one buffer (wet/labels/packed_labels.hpp): every form
// (absent, constant, plain, a stream of several chunks) opens to the records
// it was made from, before and after the cache of open labels has turned
// over; loaded packs save the bytes they were loaded from; a forged label is
// refused when packed, with its owner named; at rest a label costs its saved
// bytes and an offset. A label built a piece at a time (Label::Builder) is
// the label made of all its records, whatever the pieces.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <tcgen/wet.hpp>

#include "common/byte_io.hpp"
#include "wet/labels/label_offsets.hpp"
#include "wet/labels/packed_labels.hpp"
#include "test_directory.hpp"

namespace {

using tcgen::ByteReader;
using tcgen::ByteWriter;
using tcgen::wet::Label;
using tcgen::wet::NodeTimestamps;
using tcgen::wet::NodeValues;
using tcgen::wet::PackedLabels;
using tcgen::wet::WetError;

constexpr std::uint64_t chunk_records = 64;

// Owner k's values: none, all equal, a few, or a stream of several chunks.
std::vector<NodeValues::Record> values_of(std::size_t owner) {
    std::mt19937_64 random(owner);
    std::vector<NodeValues::Record> records;
    switch (owner % 4) {
    case 0:
        break;
    case 1:
        records.assign(1 + owner % 7, NodeValues::Record{owner * 1000});
        break;
    case 2:
        for (std::size_t i = 0; i < 3; ++i) {
            records.push_back(NodeValues::Record{random()});
        }
        break;
    default:
        for (std::size_t i = 0; i < 3 * chunk_records + owner % 50; ++i) {
            records.push_back(NodeValues::Record{i % 5 == 0 ? random() : i * 8});
        }
        break;
    }
    return records;
}

std::vector<std::uint64_t> first_fields(Label<NodeValues>& label) {
    std::vector<std::uint64_t> fields;
    for (const auto& record : label.all()) {
        fields.push_back(record.field1);
    }
    return fields;
}

std::vector<std::uint64_t> first_fields(const std::vector<NodeValues::Record>& records) {
    std::vector<std::uint64_t> fields;
    for (const auto& record : records) {
        fields.push_back(record.field1);
    }
    return fields;
}

// Few open labels, so that the tests turn the cache over.
constexpr std::size_t open_limit = 16;

PackedLabels<NodeValues> packed(std::size_t owners) {
    std::vector<Label<NodeValues>> labels;
    for (std::size_t owner = 0; owner < owners; ++owner) {
        labels.push_back(Label<NodeValues>::make(values_of(owner), chunk_records));
    }
    return PackedLabels<NodeValues>::pack(std::move(labels), "values of node ", false, nullptr, open_limit);
}

TEST(PackedLabels, EveryFormOpensToItsRecords) {
    PackedLabels<NodeValues> labels = packed(40);
    ASSERT_EQ(labels.size(), 40u);
    for (std::size_t owner = 0; owner < labels.size(); ++owner) {
        const std::vector<NodeValues::Record> records = values_of(owner);
        EXPECT_EQ(labels.records(owner), records.size()) << owner;
        EXPECT_EQ(labels.empty(owner), records.empty()) << owner;
        EXPECT_EQ(first_fields(labels.open(owner)), first_fields(records)) << owner;
    }
}

// Labels spilled to a file, some added before the spill and most after:
// each counts and opens to its records (the counts answered from memory,
// the labels read back from the file).
TEST(PackedLabels, SpilledLabelsCountAndOpenTheirRecords) {
    const tcgen_test::Directory beside("beside");
    PackedLabels<NodeValues> labels("values of node ", false, open_limit);
    const std::size_t owners = 120;
    for (std::size_t owner = 0; owner < owners; ++owner) {
        if (owner == 10) {
            labels.spill(tcgen::wet::HeldBytes::Spill{beside.path + "out", tcgen::wet::HeldBytes::least_block_bytes});
        }
        labels.add(Label<NodeValues>::make(values_of(owner), chunk_records));
    }
    labels.shrink();
    EXPECT_LT(labels.memory_bytes(), labels.saved_bytes());  // most of it in the file
    for (std::size_t owner = 0; owner < owners; ++owner) {
        const std::vector<NodeValues::Record> records = values_of(owner);
        EXPECT_EQ(labels.records(owner), records.size()) << owner;
        EXPECT_EQ(labels.empty(owner), records.empty()) << owner;
        EXPECT_EQ(first_fields(labels.open(owner)), first_fields(records)) << owner;
    }
}

// More owners than the cache holds, opened at random: records read one by
// one match, whether the label was still open (its cursor where the last
// read left it) or reopened from its bytes.
TEST(PackedLabels, RandomReadsAcrossTheCacheAreExact) {
    const std::size_t owners = 10 * open_limit;
    PackedLabels<NodeValues> labels = packed(owners);
    std::vector<std::vector<NodeValues::Record>> expected(owners);
    for (std::size_t owner = 0; owner < owners; ++owner) {
        expected[owner] = values_of(owner);
    }
    std::mt19937_64 random(7);
    for (int read = 0; read < 20000; ++read) {
        // Mostly a few owners, sometimes any: hits and misses both.
        const std::size_t owner = read % 3 == 0 ? random() % owners : 3 + 4 * (random() % 6);
        if (expected[owner].empty()) {
            continue;
        }
        const std::uint64_t index = random() % expected[owner].size();
        ASSERT_EQ(labels.open(owner).at(index).field1, expected[owner][index].field1)
            << "owner " << owner << " record " << index;
    }
}

// Timestamps reopened after eviction still find their records.
TEST(PackedLabels, TimestampLookupsAfterEviction) {
    std::vector<Label<NodeTimestamps>> built;
    const std::size_t owners = open_limit + 10;
    for (std::size_t owner = 0; owner < owners; ++owner) {
        std::vector<NodeTimestamps::Record> times;
        for (std::uint32_t k = 0; k < 300; ++k) {
            times.push_back(NodeTimestamps::Record{static_cast<std::uint32_t>(1 + owner + 7 * k)});
        }
        built.push_back(Label<NodeTimestamps>::make(times, chunk_records));
    }
    PackedLabels<NodeTimestamps> labels =
        PackedLabels<NodeTimestamps>::pack(std::move(built), "timestamps of node ", true, nullptr, open_limit);
    for (int round = 0; round < 2; ++round) {
        for (std::size_t owner = 0; owner < owners; ++owner) {
            const std::uint32_t t = static_cast<std::uint32_t>(1 + owner + 7 * (owner % 300));
            ASSERT_EQ(labels.open(owner).find(t), owner % 300) << owner;
            ASSERT_FALSE(labels.open(owner).find(t + 1).has_value()) << owner;
        }
    }
}

std::vector<std::uint8_t> saved(const PackedLabels<NodeValues>& labels) {
    ByteWriter writer;
    labels.save(writer);
    return std::move(writer.data());
}

PackedLabels<NodeValues> load(const std::vector<std::uint8_t>& bytes, std::size_t owners) {
    ByteReader reader(bytes.data(), bytes.size(), "run.wet", "VALS section");
    PackedLabels<NodeValues> labels("values of node ", false, open_limit);
    labels.reserve(owners, reader.remaining());
    for (std::size_t owner = 0; owner < owners; ++owner) {
        labels.add(reader);
    }
    labels.shrink();
    reader.expect_end();
    return labels;
}

TEST(PackedLabels, LoadedLabelsSaveTheirBytesAndWalkAlike) {
    PackedLabels<NodeValues> built = packed(64);
    const std::vector<std::uint8_t> bytes = saved(built);
    EXPECT_EQ(built.saved_bytes(), bytes.size());
    PackedLabels<NodeValues> loaded = load(bytes, 64);
    EXPECT_EQ(saved(loaded), bytes);
    for (std::size_t owner = 0; owner < 64; ++owner) {
        EXPECT_EQ(loaded.saved_bytes(owner), built.saved_bytes(owner)) << owner;
        EXPECT_EQ(first_fields(loaded.open(owner)), first_fields(values_of(owner))) << owner;
    }
}

// Labels are checked whole when packed from a file, so that opening one
// later cannot fail: a chunk that lies about its records is refused there.
TEST(PackedLabels, ForgedLabelIsRefusedWithItsOwner) {
    PackedLabels<NodeValues> built = packed(8);
    std::vector<std::uint8_t> bytes = saved(built);
    // Owner 3's stream: form byte, then its u64 count of records; claim one
    // record more than its chunks hold.
    std::size_t at = 0;
    for (std::size_t owner = 0; owner < 3; ++owner) {
        at += static_cast<std::size_t>(built.saved_bytes(owner));
    }
    ASSERT_EQ(bytes[at], 2);  // a stream
    ++bytes[at + 1];
    try {
        load(bytes, 8);
        FAIL() << "a forged label was packed";
    } catch (const WetError& error) {
        EXPECT_NE(std::string(error.what()).find("values of node 3"), std::string::npos) << error.what();
    }
}

// At rest a label costs its saved bytes and about 2.5 bytes of offset: ten
// thousand constant labels, as a run's nodes that ran once give.
TEST(PackedLabels, AtRestALabelCostsItsSavedBytes) {
    std::vector<Label<NodeValues>> built;
    for (std::uint64_t owner = 0; owner < 10000; ++owner) {
        built.push_back(Label<NodeValues>::make({NodeValues::Record{owner}}, chunk_records));
    }
    const PackedLabels<NodeValues> labels = PackedLabels<NodeValues>::pack(std::move(built), "values of node ");
    EXPECT_LE(labels.memory_bytes(), labels.saved_bytes() + 5 * labels.size() / 2 + 1024);
}

// Starts of labels of every size, some groups spanning more than 64 KiB
// (held whole) among ones that do not: each owner's start reads back.
std::vector<std::uint8_t> saved(const Label<NodeValues>& label) {
    ByteWriter writer;
    label.save(writer);
    return writer.data();
}

TEST(LabelBuilder, PiecesOfAnySizeMakeTheLabelOfAllTheRecords) {
    for (std::size_t owner = 0; owner < 24; ++owner) {
        const std::vector<NodeValues::Record> records = values_of(owner);
        const Label<NodeValues> whole = Label<NodeValues>::make(records, chunk_records);
        for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{chunk_records},
                                        std::size_t{chunk_records + 1}, records.size() + 1}) {
            Label<NodeValues>::Builder builder(chunk_records);
            Label<NodeValues>::Builder measured(chunk_records);
            for (std::size_t first = 0; first < records.size(); first += piece) {
                const std::size_t count = std::min(piece, records.size() - first);
                builder.add(records.data() + first, count);
                measured.add(records.data() + first, count);
            }
            int asked_again = 0;
            const Label<NodeValues> built = builder.finish([&] {
                ++asked_again;
                return records;
            });
            EXPECT_EQ(saved(built), saved(whole)) << "owner " << owner << ", pieces of " << piece;
            EXPECT_EQ(measured.saved_bytes(), whole.saved_bytes()) << "owner " << owner << ", pieces of " << piece;
            // The records are asked for again only where they are kept plain.
            Label<NodeValues> built_again = Label<NodeValues>::make(records, chunk_records);
            EXPECT_EQ(asked_again, built_again.is_plain() ? 1 : 0) << "owner " << owner;
        }
    }
}

TEST(LabelOffsets, EveryStartReadsBack) {
    std::mt19937_64 random(7);
    for (const std::uint64_t largest : {std::uint64_t{40}, std::uint64_t{5000}, std::uint64_t{200000}}) {
        tcgen::wet::LabelOffsets offsets;
        std::vector<std::uint64_t> starts;
        std::uint64_t start = 0;
        for (std::size_t owner = 0; owner < 10000; ++owner) {
            starts.push_back(start);
            offsets.push_back(start);
            // Mostly small labels, a large one now and then.
            start += owner % 97 == 5 ? random() % largest : random() % 40;
        }
        ASSERT_EQ(offsets.size(), starts.size());
        for (std::size_t owner = 0; owner < starts.size(); ++owner) {
            ASSERT_EQ(offsets[owner], starts[owner]) << "owner " << owner << " of labels up to " << largest;
        }
        if (largest <= UINT16_MAX / tcgen::wet::LabelOffsets::group) {
            offsets.shrink_to_fit();
            EXPECT_LE(offsets.memory_bytes(), 5 * starts.size() / 2 + 64);
        }
    }
    // Starts past 4 GiB.
    tcgen::wet::LabelOffsets offsets;
    for (std::uint64_t owner = 0; owner < 100; ++owner) {
        offsets.push_back((std::uint64_t{5} << 32) + owner * 100000);
    }
    for (std::uint64_t owner = 0; owner < 100; ++owner) {
        EXPECT_EQ(offsets[owner], (std::uint64_t{5} << 32) + owner * 100000);
    }
}

}  // namespace
