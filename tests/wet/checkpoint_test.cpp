// Checkpoints: labels kept as chunks of independent streams (ChunkedStream,
// wet/labels/chunked_stream.hpp). Seeks to random positions, timestamp lookups and
// walks both ways across chunk boundaries against the records themselves
// (and a forward walk); saved and loaded byte for byte; forged checkpoints
// refused; and the whole WET's queries with checkpoints every few records.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <tcgen/wet.hpp>

#include "common/byte_io.hpp"
#include "runtime/checksum.hpp"
#include "synthetic_wet.hpp"
#include "tests/test_scale.hpp"
#include "wet/flow/flow_index.hpp"
#include "wet/flow/flow_stream.hpp"
#include "wet/labels/byte_planes.hpp"
#include "wet/labels/chunked_stream.hpp"
#include "wet/labels/label.hpp"
#include "wet/labels/shared_frames.hpp"

namespace {

using tcgen::ByteReader;
using tcgen::ByteWriter;
using tcgen::wet::ChunkedStream;
using tcgen::wet::FlowIndex;
using tcgen::wet::FlowStream;
using tcgen::wet::Label;
using tcgen::wet::NodeTimestamps;
using tcgen::wet::NodeValues;
using tcgen::wet::WetError;
using tcgen::wet::WholeExecutionTrace;

// Increasing timestamps with gaps of 1 to 40, in loops of repeated gaps (so
// that the streams compress), `count` of them.
std::vector<NodeTimestamps::Record> timestamps(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<NodeTimestamps::Record> records;
    std::uint32_t t = 1 + static_cast<std::uint32_t>(random() % 10);
    while (records.size() < count) {
        const std::uint32_t gap = 1 + static_cast<std::uint32_t>(random() % 40);
        for (std::uint64_t repeat = random() % 12; repeat-- > 0 && records.size() < count;) {
            records.push_back({t});
            t += gap;
        }
    }
    return records;
}

std::vector<NodeValues::Record> values(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<NodeValues::Record> records;
    for (std::size_t index = 0; index < count; ++index) {
        records.push_back({random() % 4 == 0 ? random() : 0x1000 + 8 * (index % 17)});
    }
    return records;
}

// What a forward walk from 0 yields: the reference the seeks are compared with.
template <class Stream>
std::vector<typename Stream::Record> forward_walk(ChunkedStream<Stream>& stream) {
    std::vector<typename Stream::Record> walked;
    typename Stream::Record record{};
    stream.seek(0);
    while (stream.next(record)) {
        walked.push_back(record);
    }
    return walked;
}

template <class Stream>
ChunkedStream<Stream> reloaded(const ChunkedStream<Stream>& stream, bool increasing) {
    ByteWriter writer;
    stream.save(writer);
    ByteReader reader(writer.data().data(), writer.data().size(), "test", "stream");
    ChunkedStream<Stream> loaded = ChunkedStream<Stream>::load(reader, "stream", increasing);
    reader.expect_end();
    ByteWriter again;
    loaded.save(again);
    EXPECT_EQ(again.data(), writer.data());  // byte-exact round trip
    return loaded;
}

TEST(Checkpoints, SeeksMatchAForwardWalkAcrossChunks) {
    const std::vector<NodeValues::Record> records = values(5000, 1);
    for (const std::uint64_t chunk : {1u, 7u, 64u, 1000u, 4999u, 5000u, 100000u}) {
        ChunkedStream<NodeValues> built = ChunkedStream<NodeValues>::build(records.data(), records.size(), chunk);
        ChunkedStream<NodeValues> stream = reloaded(built, false);
        EXPECT_EQ(stream.chunk_count(), (records.size() + chunk - 1) / chunk);
        const std::vector<NodeValues::Record> walked = forward_walk(stream);
        ASSERT_EQ(walked.size(), records.size());
        for (std::size_t index = 0; index < records.size(); ++index) {
            ASSERT_EQ(walked[index].field1, records[index].field1) << "chunk " << chunk << " record " << index;
        }
        // Backward from the end, through every boundary.
        NodeValues::Record record{};
        for (std::size_t index = records.size(); index-- > 0;) {
            ASSERT_TRUE(stream.prev(record));
            ASSERT_EQ(record.field1, records[index].field1) << "chunk " << chunk << " back to " << index;
        }
        EXPECT_FALSE(stream.prev(record));
        // Random seeks, each followed by steps both ways over a boundary or two.
        std::mt19937_64 random(chunk);
        for (int seek = 0; seek < 300; ++seek) {
            const std::uint64_t position = random() % (records.size() + 1);
            stream.seek(position);
            ASSERT_EQ(stream.position(), position);
            for (std::uint64_t step = 0; step < 3 && position + step < records.size(); ++step) {
                ASSERT_TRUE(stream.next(record));
                ASSERT_EQ(record.field1, records[position + step].field1);
            }
            stream.seek(position);
            for (std::uint64_t step = 1; step <= 3 && step <= position; ++step) {
                ASSERT_TRUE(stream.prev(record));
                ASSERT_EQ(record.field1, records[position - step].field1);
            }
        }
        EXPECT_THROW(stream.seek(records.size() + 1), std::runtime_error);
    }
}

TEST(Checkpoints, TimestampLookupsMatchTheRecords) {
    const std::vector<NodeTimestamps::Record> records = timestamps(6000, 2);
    std::vector<NodeTimestamps::Record> plain_copy = records;
    for (const std::uint64_t chunk : {1u, 5u, 64u, 256u, 6000u}) {
        Label<NodeTimestamps> built = Label<NodeTimestamps>::make(records, chunk);
        // Chunks of a few records take more bytes than the records: plain.
        ASSERT_EQ(built.is_stream(), chunk >= 64) << "chunk " << chunk;
        ByteWriter writer;
        built.save(writer);
        ByteReader reader(writer.data().data(), writer.data().size(), "test", "label");
        Label<NodeTimestamps> label = Label<NodeTimestamps>::load(reader, "label", true);
        std::mt19937_64 random(chunk + 10);
        const std::uint64_t last = records.back().field1;
        for (int lookup = 0; lookup < 2000; ++lookup) {
            // Timestamps anywhere, and runs of nearby ones (the cursor then walks from where it is).
            const std::uint64_t t = lookup % 3 == 0 ? random() % (last + 5) : (random() % (last + 5)) / 7 * 7;
            const auto below = std::lower_bound(records.begin(), records.end(), t,
                                                [](const auto& record, std::uint64_t value) { return record.field1 < value; });
            ASSERT_EQ(label.count_below(t), static_cast<std::uint64_t>(below - records.begin()))
                << "chunk " << chunk << " t " << t;
            const auto found = label.find(static_cast<std::uint32_t>(t));
            ASSERT_EQ(found.has_value(), below != records.end() && below->field1 == t);
            const std::uint64_t index = random() % records.size();
            ASSERT_EQ(label.at(index).field1, records[index].field1);
        }
        std::vector<NodeTimestamps::Record> all = label.all();
        ASSERT_EQ(all.size(), records.size());
        for (std::size_t index = 0; index < all.size(); ++index) {
            ASSERT_EQ(all[index].field1, records[index].field1);
        }
    }
}

// The bytes of a saved chunked stream of timestamps, and where chunk k's
// checkpoint lies in them.
struct Saved {
    std::vector<std::uint8_t> bytes;
    std::vector<std::size_t> checkpoints;
};

Saved saved_timestamps(const std::vector<NodeTimestamps::Record>& records, std::uint64_t chunk) {
    const auto stream = ChunkedStream<NodeTimestamps>::build(records.data(), records.size(), chunk);
    Saved saved;
    ByteWriter writer;
    stream.save(writer);
    saved.bytes = writer.data();
    // u64 count, u64 chunk records, then per chunk u64 first, u8 form, u64 size, bytes.
    std::size_t at = 16;
    while (at < saved.bytes.size()) {
        saved.checkpoints.push_back(at);
        std::uint64_t size = 0;
        for (int i = 7; i >= 0; --i) {
            size = (size << 8) | saved.bytes[at + 9 + static_cast<std::size_t>(i)];
        }
        at += 17 + static_cast<std::size_t>(size);
    }
    return saved;
}

void put_u64(std::vector<std::uint8_t>& bytes, std::size_t at, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) {
        bytes[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(value >> (8 * i));
    }
}

std::string load_message(const std::vector<std::uint8_t>& bytes) {
    try {
        ByteReader reader(bytes.data(), bytes.size(), "forged.wet", "label");
        ChunkedStream<NodeTimestamps>::load(reader, "timestamps", true);
    } catch (const WetError& error) {
        return error.what();
    }
    return "";
}

TEST(Checkpoints, ForgedCheckpointsAreRefused) {
    const std::vector<NodeTimestamps::Record> records = timestamps(400, 3);
    const Saved good = saved_timestamps(records, 100);
    ASSERT_EQ(good.checkpoints.size(), 4u);
    EXPECT_EQ(load_message(good.bytes), "");

    // A checkpoint that does not increase: refused on load.
    std::vector<std::uint8_t> back = good.bytes;
    put_u64(back, good.checkpoints[2], records[100].field1);
    EXPECT_NE(load_message(back).find("checkpoint 2 does not increase"), std::string::npos) << load_message(back);

    // One that increases but is not its chunk's first timestamp: loaded (the
    // chunk is not decoded on load), refused when a walk enters the chunk.
    std::vector<std::uint8_t> shifted = good.bytes;
    put_u64(shifted, good.checkpoints[2], records[200].field1 + 1);
    ASSERT_EQ(load_message(shifted), "");
    ByteReader reader(shifted.data(), shifted.size(), "forged.wet", "label");
    auto stream = ChunkedStream<NodeTimestamps>::load(reader, "timestamps", true);
    stream.seek(150);
    EXPECT_THROW(stream.seek(250), std::runtime_error);
    try {
        stream.seek(250);
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find("does not start where its checkpoint says"), std::string::npos)
            << error.what();
    }
    // A read of the whole stream is refused alike.
    try {
        std::vector<NodeTimestamps::Record> whole;
        stream.append_all(whole);
        ADD_FAILURE() << "a chunk off its checkpoint was read whole";
    } catch (const std::runtime_error& error) {
        EXPECT_NE(std::string(error.what()).find("chunk 2 does not start where its checkpoint says"), std::string::npos)
            << error.what();
    }

    // More chunks claimed than bytes could hold: refused before allocating them.
    std::vector<std::uint8_t> many = good.bytes;
    put_u64(many, 0, UINT64_MAX);
    put_u64(many, 8, 1);
    EXPECT_NE(load_message(many).find("chunks claimed"), std::string::npos) << load_message(many);
    // A chunk that holds fewer records than its place says.
    std::vector<std::uint8_t> fewer = good.bytes;
    put_u64(fewer, 8, 101);
    EXPECT_NE(load_message(fewer), "");
    std::vector<std::uint8_t> none = good.bytes;
    put_u64(none, 8, 0);
    EXPECT_NE(load_message(none).find("chunks of none"), std::string::npos) << load_message(none);
}

// A chunk is kept as a bidirectional stream or as zstd-compressed byte
// planes, whichever is smaller. Chunks of two shapes, alternating: a loop
// over a few random 64-bit values (a repeat an LZ coder finds, no predictor
// of one context does) and a stride with rare random jumps (which a
// predictor codes in a few bits a record). Both forms must occur, and every
// walk over them — forward, backward, seeks across chunk boundaries, after
// a byte-exact save and load — yields the records.
TEST(Checkpoints, ChunksTakeTheSmallerFormAndWalkAlike) {
    constexpr std::size_t chunk = 512;
    std::mt19937_64 random(11);
    std::vector<NodeValues::Record> records;
    for (std::size_t part = 0; part < 12; ++part) {
        std::vector<std::uint64_t> loop(24);
        for (std::uint64_t& value : loop) {
            value = random();
        }
        std::uint64_t value = random();
        for (std::size_t index = 0; index < chunk; ++index) {
            if (part % 2 == 0) {
                records.push_back({loop[index % loop.size()]});
            } else {
                value = random() % 64 == 0 ? random() : value + 24;
                records.push_back({value});
            }
        }
    }
    records.resize(records.size() - 100);  // a short last chunk
    const auto built = ChunkedStream<NodeValues>::build(records.data(), records.size(), chunk);
    EXPECT_GT(built.planes_chunks(), 0u);
    EXPECT_LT(built.planes_chunks(), built.chunk_count());
    ChunkedStream<NodeValues> stream = reloaded(built, false);
    EXPECT_EQ(stream.planes_chunks(), built.planes_chunks());

    const std::vector<NodeValues::Record> walked = forward_walk(stream);
    ASSERT_EQ(walked.size(), records.size());
    NodeValues::Record record{};
    for (std::size_t index = 0; index < records.size(); ++index) {
        ASSERT_EQ(walked[index].field1, records[index].field1) << "forward, record " << index;
    }
    std::vector<NodeValues::Record> whole;  // streams and planes alike, a chunk at a time
    stream.append_all(whole);
    ASSERT_EQ(whole.size(), records.size());
    for (std::size_t index = 0; index < records.size(); ++index) {
        ASSERT_EQ(whole[index].field1, records[index].field1) << "whole, record " << index;
    }
    for (std::size_t index = records.size(); index-- > 0;) {
        ASSERT_TRUE(stream.prev(record));
        ASSERT_EQ(record.field1, records[index].field1) << "backward, record " << index;
    }
    EXPECT_FALSE(stream.prev(record));
    for (int trial = 0; trial < 300; ++trial) {
        const std::uint64_t position = random() % (records.size() + 1);
        stream.seek(position);
        ASSERT_EQ(stream.position(), position);
        for (std::uint64_t step = 0; step < 40; ++step) {
            const std::uint64_t before = stream.position();
            if (random() % 2 == 0) {
                ASSERT_EQ(stream.next(record), before < records.size());
                if (before < records.size()) {
                    ASSERT_EQ(record.field1, records[before].field1);
                }
            } else {
                ASSERT_EQ(stream.prev(record), before > 0);
                if (before > 0) {
                    ASSERT_EQ(record.field1, records[before - 1].field1);
                }
            }
        }
    }
}

// A chunk of byte planes that is not what it claims: refused on load. (A
// frame changed inside may decompress to other records: in a .wet file the
// section's checksum refuses it.)
TEST(Checkpoints, ForgedBytePlanesAreRefused) {
    std::vector<NodeValues::Record> records;
    std::mt19937_64 random(5);
    std::vector<std::uint64_t> loop(16);
    for (std::uint64_t& value : loop) {
        value = random();
    }
    for (std::size_t index = 0; index < 600; ++index) {
        records.push_back({loop[index % loop.size()]});
    }
    const auto built = ChunkedStream<NodeValues>::build(records.data(), records.size(), 300);
    ASSERT_EQ(built.planes_chunks(), 2u);
    ByteWriter writer;
    built.save(writer);
    const std::vector<std::uint8_t> good = writer.data();
    // The first chunk: u64 first at 16, its form at 24, u64 size at 25, its frame at 33.
    ASSERT_EQ(good[24], 1);
    const auto message = [](const std::vector<std::uint8_t>& bytes) -> std::string {
        try {
            ByteReader reader(bytes.data(), bytes.size(), "forged.wet", "label");
            ChunkedStream<NodeValues>::load(reader, "values", false);
        } catch (const WetError& error) {
            return error.what();
        }
        return "";
    };
    EXPECT_EQ(message(good), "");
    std::vector<std::uint8_t> form = good;
    form[24] = 3;
    EXPECT_NE(message(form).find("chunk 0 of unknown form 3"), std::string::npos) << message(form);
    std::vector<std::uint8_t> placed = good;  // in a shared frame: its place is 8 bytes
    placed[24] = 2;
    EXPECT_NE(message(placed).find("chunk 0: a shared frame's place of"), std::string::npos) << message(placed);
    std::vector<std::uint8_t> frame = good;  // its zstd magic number
    frame[33] ^= 0x5a;
    EXPECT_NE(message(frame).find("chunk 0: its planes"), std::string::npos) << message(frame);
    std::vector<std::uint8_t> longer = good;
    put_u64(longer, 8, 301);  // chunks claim more records than their planes hold
    EXPECT_NE(message(longer).find("do not hold 301 records"), std::string::npos) << message(longer);
    std::vector<std::uint8_t> huge = good;  // a chunk of 2^61 records: refused before anything is allocated
    put_u64(huge, 0, std::uint64_t{1} << 61);
    put_u64(huge, 8, std::uint64_t{1} << 61);
    EXPECT_NE(message(huge).find("chunk 0 claims 2305843009213693952 records in byte planes"), std::string::npos)
        << message(huge);
}

// Runs of 1024 records read from a table of random values, each from its
// own offset: alone a chunk is random bytes, which zstd cannot compress;
// beside other runs of the table it is matches into them.
std::vector<NodeValues::Record> table_runs(const std::vector<std::uint64_t>& table, std::size_t runs,
                                           std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<NodeValues::Record> records;
    for (std::size_t run = 0; run < runs; ++run) {
        const std::size_t offset = random() % table.size();
        for (std::size_t index = 0; index < 1024; ++index) {
            records.push_back({table[(offset + index) % table.size()]});
        }
    }
    return records;
}

std::vector<std::uint64_t> random_table(std::size_t size, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<std::uint64_t> table(size);
    for (std::uint64_t& value : table) {
        value = random();
    }
    return table;
}

// The chunks of several labels (nodes) moved into shared frames: the nodes
// read the same table from different offsets, so chunks of different nodes
// share content. Saved and loaded (the frames, then each node's chunks),
// walked both ways and at random against the records; the same bytes again.
TEST(Checkpoints, ChunksInSharedFramesWalkAlike) {
    using tcgen::wet::SharedFrames;
    const std::vector<std::uint64_t> table = random_table(4096, 3);
    constexpr std::size_t chunk = 1024;
    std::vector<std::vector<NodeValues::Record>> nodes;
    std::vector<ChunkedStream<NodeValues>> built;
    for (std::uint64_t node = 0; node < 24; ++node) {
        nodes.push_back(table_runs(table, 2 + node % 3, 20 + node));
        nodes.back().resize(nodes.back().size() - 100 * (node % 10));  // short last chunks
        built.push_back(ChunkedStream<NodeValues>::build(nodes.back().data(), nodes.back().size(), chunk));
    }
    std::vector<SharedFrames::Piece> pieces;
    std::vector<std::pair<std::size_t, std::size_t>> owners;  // (node, chunk)
    for (std::size_t node = 0; node < built.size(); ++node) {
        built[node].each_unshared_chunk([&](std::size_t index, std::uint64_t first, std::size_t count) {
            pieces.push_back({reinterpret_cast<const std::uint8_t*>(nodes[node].data() + first), count, 8});
            owners.emplace_back(node, index);
        });
    }
    std::mt19937_64 shuffle(9);  // pieces in any order, as the builder orders them by content
    std::vector<std::size_t> order(pieces.size());
    for (std::size_t index = 0; index < order.size(); ++index) {
        order[index] = index;
    }
    std::shuffle(order.begin(), order.end(), shuffle);
    std::vector<SharedFrames::Piece> shuffled;
    for (const std::size_t index : order) {
        shuffled.push_back(pieces[index]);
    }
    std::uint64_t unshared_bytes = 0;
    for (const auto& stream : built) {
        unshared_bytes += stream.saved_bytes();
    }
    std::vector<SharedFrames::Place> places;
    const auto frames = SharedFrames::build(shuffled, places);
    ASSERT_GT(frames->size(), 1u);
    {
        // The same frames when the builder makes each piece's records only as
        // its frame is packed (what `wet build` does, so as not to hold them all).
        std::vector<SharedFrames::Piece> sizes_only;
        for (const SharedFrames::Piece& piece : shuffled) {
            sizes_only.push_back({nullptr, piece.count, piece.width});
        }
        std::vector<SharedFrames::Place> filled_places;
        const auto filled = SharedFrames::build(sizes_only, filled_places, [&](std::size_t piece, std::vector<std::uint8_t>& out) {
            out.insert(out.end(), shuffled[piece].bytes, shuffled[piece].bytes + shuffled[piece].count * 8);
        });
        ByteWriter as_given;
        frames->save(as_given);
        ByteWriter as_filled;
        filled->save(as_filled);
        EXPECT_EQ(as_filled.data(), as_given.data());
        ASSERT_EQ(filled_places.size(), places.size());
        for (std::size_t piece = 0; piece < places.size(); ++piece) {
            EXPECT_EQ(filled_places[piece].frame, places[piece].frame);
            EXPECT_EQ(filled_places[piece].offset, places[piece].offset);
        }
        EXPECT_THROW(SharedFrames::build(sizes_only, filled_places,
                                         [](std::size_t, std::vector<std::uint8_t>& out) { out.push_back(0); }),
                     std::logic_error);
    }
    for (std::size_t piece = 0; piece < order.size(); ++piece) {
        const auto& owner = owners[order[piece]];
        built[owner.first].share(owner.second, frames, places[piece]);
    }
    ByteWriter writer;
    frames->save(writer);
    for (const auto& stream : built) {
        stream.save(writer);
    }
    // Alone every chunk holds its stretch of the random table; shared, a
    // frame holds the table about once.
    EXPECT_LT(writer.data().size(), unshared_bytes / 4);

    ByteReader reader(writer.data().data(), writer.data().size(), "frames.wet", "label");
    const auto loaded_frames = SharedFrames::load(reader, "values");
    std::vector<ChunkedStream<NodeValues>> loaded;
    for (std::size_t node = 0; node < nodes.size(); ++node) {
        loaded.push_back(ChunkedStream<NodeValues>::load(reader, "values", false, loaded_frames));
    }
    loaded_frames->check_referenced(reader, "values");
    reader.expect_end();
    ByteWriter again;
    loaded_frames->save(again);
    for (const auto& stream : loaded) {
        stream.save(again);
    }
    EXPECT_EQ(again.data(), writer.data());

    NodeValues::Record record{};
    for (std::size_t node = 0; node < nodes.size(); ++node) {
        const std::vector<NodeValues::Record> walked = forward_walk(loaded[node]);
        ASSERT_EQ(walked.size(), nodes[node].size());
        for (std::size_t index = 0; index < walked.size(); ++index) {
            ASSERT_EQ(walked[index].field1, nodes[node][index].field1) << "node " << node << ", record " << index;
        }
        for (std::size_t index = nodes[node].size(); index-- > 0;) {
            ASSERT_TRUE(loaded[node].prev(record));
            ASSERT_EQ(record.field1, nodes[node][index].field1) << "node " << node << ", backward " << index;
        }
    }
    // Read whole a chunk at a time, each copied from its frame, after what
    // the vector held: the same records, the walk's cursor left where it was.
    for (std::size_t node = 0; node < nodes.size(); ++node) {
        std::vector<NodeValues::Record> whole{{42}};
        loaded[node].append_all(whole);
        ASSERT_EQ(whole.size(), nodes[node].size() + 1);
        EXPECT_EQ(whole[0].field1, 42u);
        for (std::size_t index = 0; index < nodes[node].size(); ++index) {
            ASSERT_EQ(whole[index + 1].field1, nodes[node][index].field1) << "node " << node << ", whole " << index;
        }
        EXPECT_EQ(loaded[node].position(), 0u);
    }
    // At random across nodes, so the frames' cache is filled and emptied.
    std::mt19937_64 random(6);
    for (int trial = 0; trial < 2000; ++trial) {
        const std::size_t node = random() % nodes.size();
        const std::uint64_t position = random() % nodes[node].size();
        loaded[node].seek(position);
        ASSERT_TRUE(loaded[node].next(record));
        ASSERT_EQ(record.field1, nodes[node][position].field1) << "node " << node << ", seek to " << position;
    }
    // With no frames, a shared chunk is refused by name.
    try {
        ByteReader without(again.data().data(), again.data().size(), "frames.wet", "label");
        SharedFrames::load(without, "values");
        ChunkedStream<NodeValues>::load(without, "values", false);
        ADD_FAILURE() << "a shared chunk without frames was accepted";
    } catch (const WetError& error) {
        EXPECT_NE(std::string(error.what()).find("is in a shared frame, and there are none"), std::string::npos)
            << error.what();
    }
}

// Forged shared frames and places: one error line, and nothing allocated
// beyond what a frame may hold whatever its header claims.
TEST(Checkpoints, ForgedSharedFramesAreRefused) {
    using tcgen::wet::SharedFrames;
    const std::vector<std::uint64_t> table = random_table(512, 4);
    std::vector<NodeValues::Record> records = table_runs(table, 2, 8);
    auto stream = ChunkedStream<NodeValues>::build(records.data(), records.size(), 1024);
    std::vector<SharedFrames::Piece> pieces;
    stream.each_unshared_chunk([&](std::size_t, std::uint64_t first, std::size_t count) {
        pieces.push_back({reinterpret_cast<const std::uint8_t*>(records.data() + first), count, 8});
    });
    std::vector<SharedFrames::Place> places;
    const auto frames = SharedFrames::build(pieces, places);
    ASSERT_EQ(frames->size(), 1u);
    for (std::size_t chunk = 0; chunk < places.size(); ++chunk) {
        stream.share(chunk, frames, places[chunk]);
    }
    ByteWriter writer;
    frames->save(writer);
    const std::size_t frames_end = writer.data().size();
    stream.save(writer);
    const std::vector<std::uint8_t> good = writer.data();
    // The frames: u64 count at 0, the frame's layout at 8, u32 decoded bytes
    // at 9, u64 size at 13, its zstd frame at 21.
    const auto message = [](const std::vector<std::uint8_t>& bytes) -> std::string {
        try {
            ByteReader reader(bytes.data(), bytes.size(), "forged.wet", "label");
            const auto loaded = SharedFrames::load(reader, "values");
            ChunkedStream<NodeValues>::load(reader, "values", false, loaded);
            loaded->check_referenced(reader, "values");
            reader.expect_end();
        } catch (const WetError& error) {
            return error.what();
        }
        return "";
    };
    EXPECT_EQ(message(good), "");
    std::vector<std::uint8_t> many = good;
    put_u64(many, 0, UINT64_MAX);
    EXPECT_NE(message(many).find("shared frames claimed"), std::string::npos) << message(many);
    std::vector<std::uint8_t> layout = good;
    layout[8] = 2;
    EXPECT_NE(message(layout).find("shared frame 0 of unknown layout 2"), std::string::npos) << message(layout);
    std::vector<std::uint8_t> huge = good;  // claims 4 GiB: refused before anything is allocated
    huge[9] = huge[10] = huge[11] = huge[12] = 0xff;
    EXPECT_NE(message(huge).find("shared frame 0 claims 4294967295 bytes, at most"), std::string::npos)
        << message(huge);
    std::vector<std::uint8_t> shorter = good;  // claims fewer bytes than its chunks refer to
    shorter[9] ^= 1;
    EXPECT_NE(message(shorter).find("values: shared frame 0 holds"), std::string::npos) << message(shorter);
    std::vector<std::uint8_t> magic = good;  // the zstd frame's magic number
    magic[21] ^= 0x5a;
    EXPECT_EQ(message(magic), "forged.wet: error: label: values: shared frame 0 is corrupt");
    std::vector<std::uint8_t> body = good;  // a byte inside the compressed data
    body[frames_end - 3] ^= 0x5a;
    EXPECT_NE(message(body).find("shared frame 0"), std::string::npos) << message(body);
    // A second copy of the frame that no chunk refers to: refused by the
    // bytes its chunks cover, before it is decoded (a file of many such
    // frames once cost seconds of decoding to load).
    std::vector<std::uint8_t> unreferenced(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(frames_end));
    unreferenced.insert(unreferenced.end(), good.begin() + 8, good.begin() + static_cast<std::ptrdiff_t>(frames_end));
    unreferenced.insert(unreferenced.end(), good.begin() + static_cast<std::ptrdiff_t>(frames_end), good.end());
    put_u64(unreferenced, 0, 2);
    EXPECT_NE(message(unreferenced).find("values: shared frame 1 holds"), std::string::npos) << message(unreferenced);
    EXPECT_NE(message(unreferenced).find("its chunks refer to 0"), std::string::npos) << message(unreferenced);
    // The first chunk's place: u64 records and records per chunk at
    // frames_end, then its checkpoint, form, u64 size 8, u32 frame, u32 offset.
    const std::size_t place = frames_end + 16 + 8 + 1 + 8;
    std::vector<std::uint8_t> frame = good;
    frame[place] = 1;
    EXPECT_NE(message(frame).find("chunk 0 lies outside the shared frames"), std::string::npos) << message(frame);
    std::vector<std::uint8_t> offset = good;
    offset[place + 4 + 3] = 0x7f;
    EXPECT_NE(message(offset).find("chunk 0 lies outside the shared frames"), std::string::npos) << message(offset);
}

// The blocks' timestamps from the flow's index, a few segments of a few
// frames each, against the flow itself, in random order (so segments are
// decoded and dropped from the cache again).
TEST(Checkpoints, FlowIndexLookupsMatchTheFlow) {
    const auto raw = synthetic_wet::make_trace(200, 12);
    std::vector<std::uint32_t> counts(raw.blocks.size(), 0);
    std::vector<std::vector<std::uint32_t>> times(raw.blocks.size());
    for (std::uint32_t t = 1; t <= raw.flow.size(); ++t) {
        ++counts[raw.flow[t - 1]];
        times[raw.flow[t - 1]].push_back(t);
    }
    const auto fail = [](const std::string& what) { throw std::runtime_error(what); };
    // (checkpoint, frame, segment) records; a segment that is no multiple of
    // the frame is one frame.
    for (const auto& [checkpoint, frame, segment] :
         {std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>{5, 5, 15}, {5, 15, 7}, {7, 7, 7}, {64, 128, 256},
          {4096, FlowStream::target_frame_records, 0},
          // checkpoints longer than any flow: one frame, allocated as long as
          // the flow, not as the claim
          {std::uint64_t{1} << 40, std::uint64_t{1} << 40, 0}}) {
        const auto stream = FlowStream::build(raw.flow.data(), raw.flow.size(), raw.blocks.size(), checkpoint, frame);
        FlowIndex index(stream, counts, fail, segment);
        std::mt19937_64 random(checkpoint * 31 + frame);
        for (int lookup = 0; lookup < 3000; ++lookup) {
            const auto block = static_cast<std::uint32_t>(random() % counts.size());
            const std::uint64_t t = 1 + random() % (raw.flow.size() + 1);
            const auto& own = times[block];
            const auto below = std::lower_bound(own.begin(), own.end(), t);
            ASSERT_EQ(index.count_below(block, t), static_cast<std::uint64_t>(below - own.begin()))
                << "checkpoint " << checkpoint << " block " << block << " t " << t;
            const auto found = index.find(block, t);
            ASSERT_EQ(found.has_value(), below != own.end() && *below == t);
            if (found) {
                ASSERT_EQ(*found, static_cast<std::uint64_t>(below - own.begin()));
            }
            if (!own.empty()) {
                const std::uint64_t execution = random() % own.size();
                ASSERT_EQ(index.at(block, execution), own[execution]);
            }
            // By position: the block at a random t and which of its executions that is.
            const std::uint64_t at = 1 + random() % raw.flow.size();
            const FlowIndex::Execution execution = index.execution_at(at);
            const auto& ran = times[raw.flow[at - 1]];
            ASSERT_EQ(execution.block, raw.flow[at - 1]) << "t " << at;
            ASSERT_EQ(execution.index,
                      static_cast<std::uint64_t>(std::lower_bound(ran.begin(), ran.end(), at) - ran.begin()));
            ASSERT_TRUE(index.holds_time(at));  // just decoded
        }
        for (std::uint32_t block = 0; block < counts.size(); ++block) {
            EXPECT_EQ(index.times(block), times[block]) << "block " << block;
        }
        EXPECT_THROW(index.at(0, counts[0]), std::runtime_error);
        EXPECT_THROW(index.execution_at(raw.flow.size() + 1), std::runtime_error);
        EXPECT_FALSE(index.holds_time(0));
        EXPECT_FALSE(index.holds_time(raw.flow.size() + 1));
    }
    // Counts the flow disagrees with: refused when the index is made.
    std::vector<std::uint32_t> wrong = counts;
    ++wrong[1];
    const auto stream = FlowStream::build(raw.flow.data(), raw.flow.size(), raw.blocks.size(), 5, 5);
    EXPECT_THROW(FlowIndex(stream, wrong, fail, 15), std::runtime_error);
}

// The whole WET with a checkpoint every few records: its flow cursors from
// random t both ways, and every lookup a slice makes, against the raw run; and
// the same after a save and load.
TEST(Checkpoints, WetQueriesAcrossCheckpoints) {
    const auto raw = synthetic_wet::make_trace(700, 8);
    for (const std::uint64_t chunk : {1u, 3u, 50u}) {
        WholeExecutionTrace built = WholeExecutionTrace::build(raw, nullptr, chunk);
        const std::vector<std::uint8_t> bytes = built.to_bytes();
        WholeExecutionTrace wet = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "chunks.wet");
        EXPECT_EQ(wet.to_bytes(), bytes);
        std::mt19937_64 random(chunk);
        tcgen::wet::FlowStep step;
        for (int seek = 0; seek < tcgen_test::scaled(400); ++seek) {
            const auto t = static_cast<std::uint32_t>(random() % (raw.flow.size() + 1));
            auto cursor = wet.control_flow(t);
            for (std::uint32_t ahead = 1; ahead <= 4 && t + ahead <= raw.flow.size(); ++ahead) {
                ASSERT_TRUE(cursor.next(step));
                ASSERT_EQ(step.t, t + ahead);
                ASSERT_EQ(step.block, raw.flow[t + ahead - 1]);
            }
            cursor = wet.control_flow(t);
            for (std::uint32_t back = 0; back < 4 && t > back; ++back) {
                ASSERT_TRUE(cursor.prev(step));
                ASSERT_EQ(step.t, t - back);
                ASSERT_EQ(step.block, raw.flow[t - back - 1]);
            }
            if (t >= 1) {
                ASSERT_EQ(wet.block_at(t), raw.flow[t - 1]);
            }
        }
        // Defs first (on the loaded WET, before any block's timestamps are
        // derived whole: the flow's index answers), then values at random
        // events: timestamp -> position lookups in the node labels.
        const std::size_t edge_step = tcgen_test::under_sanitizers ? 4 : 1;
        for (std::size_t e = 0; e < raw.edges.size(); e += edge_step) {
            const auto& edge = raw.edges[e];
            const auto def = wet.def_of(edge.use, edge.t_use);
            ASSERT_TRUE(def.has_value());
            ASSERT_EQ(def->node, edge.def);
            ASSERT_EQ(def->t, edge.t_def);
        }
        for (int lookup = 0; lookup < tcgen_test::scaled(400); ++lookup) {
            const auto& event = raw.events[random() % raw.events.size()];
            const auto accesses = wet.accesses(raw.nodes[event.node].pc);
            const auto found = std::find_if(accesses.begin(), accesses.end(), [&](const auto& access) {
                return access.t == event.t && access.slot == raw.nodes[event.node].slot &&
                       access.access == raw.nodes[event.node].access;
            });
            ASSERT_NE(found, accesses.end());
            EXPECT_EQ(found->value, event.value);
            EXPECT_EQ(found->address, event.address);
        }
    }
}

}  // namespace
