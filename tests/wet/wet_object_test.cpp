// The WET object on a synthetic run written by the test (synthetic_wet.hpp):
// every query against what the raw records say directly (control flow both
// ways, values and addresses per pc, the def of every load execution, the
// control parent of every timestamp, backward slices by a naive fixed
// point), the same after a save and load, and saved or raw files that are
// corrupt, truncated or inconsistent refused with a one-line error.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <tcgen/wet.hpp>

#include "common/byte_io.hpp"
#include "common/files.hpp"

#include "raw_lookups.hpp"
#include "synthetic_wet.hpp"
#include "test_directory.hpp"
#include "tests/test_scale.hpp"
#include "wet/format/raw_files.hpp"
#include "wet_error_of.hpp"
#include "wet_file_bytes.hpp"

namespace {

using tcgen_test::wet_error_of;
using tcgen::wet::RawTrace;
using tcgen::wet::WetError;
using tcgen::wet::WholeExecutionTrace;

std::vector<std::uint32_t> parents_of(const RawTrace& raw) {
    return raw_lookups::control_parents(raw);
}

std::set<std::uint64_t> pcs_of(const RawTrace& raw) {
    std::set<std::uint64_t> pcs;
    for (const auto& node : raw.nodes) {
        pcs.insert(node.pc);
    }
    return pcs;
}

// (t, kind, pc, slot) rows of the slice semantics, computed over the raw records.
using Row = std::tuple<std::uint32_t, char, std::uint64_t, unsigned>;

std::vector<Row> reference_slice(const RawTrace& raw, const std::vector<std::uint32_t>& parents, std::uint64_t pc,
                                 std::uint32_t start) {
    const auto executed = raw_lookups::executed(raw);
    auto def = raw_lookups::defs(raw);
    constexpr std::uint32_t branch = 0xFFFFFFFFu;
    std::set<std::pair<std::uint32_t, std::uint32_t>> items;  // (t, node or branch)
    std::vector<std::pair<std::uint32_t, std::uint32_t>> work;
    const auto add = [&](std::uint32_t t, std::uint32_t id) {
        if (items.insert({t, id}).second) {
            work.push_back({t, id});
        }
    };
    for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
        if (raw.nodes[node].pc == pc && executed.count({node, start}) != 0) {
            add(start, node);
        }
    }
    while (!work.empty()) {
        const auto [t, id] = work.back();
        work.pop_back();
        if (parents[t - 1] != 0) {
            add(parents[t - 1], branch);
        }
        for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
            const bool same_execution = raw.nodes[node].block == raw.flow[t - 1] && executed.count({node, t}) != 0;
            const bool below = id == branch || (raw.nodes[id].access == 'S' && node < id);
            if (same_execution && below && raw.nodes[node].access == 'L') {
                add(t, node);
            }
        }
        if (id != branch && raw.nodes[id].access == 'L' && def.count({id, t}) != 0) {
            const auto [def_node, t_def] = def[{id, t}];
            add(t_def, def_node);
        }
    }
    std::vector<Row> rows;
    for (const auto& [t, id] : items) {
        if (id == branch) {
            rows.emplace_back(t, 'B', raw.blocks[raw.flow[t - 1]].pc, 0);
        } else {
            rows.emplace_back(t, raw.nodes[id].access, raw.nodes[id].pc, raw.nodes[id].slot);
        }
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b)
                                                : std::make_tuple(std::get<2>(a), std::get<1>(a), std::get<3>(a)) <
                                                      std::make_tuple(std::get<2>(b), std::get<1>(b), std::get<3>(b));
    });
    return rows;
}

// Every query of `wet` against the raw records.
void check_queries(WholeExecutionTrace& wet, const RawTrace& raw) {
    const std::vector<std::uint32_t> parents = parents_of(raw);
    ASSERT_EQ(wet.executed(), raw.flow.size());
    ASSERT_EQ(wet.events(), raw.events.size());
    ASSERT_EQ(wet.edges(), raw.edges.size());

    // Control flow: forward from 0, backward from the end, from the middle both ways.
    tcgen::wet::FlowStep step;
    auto cursor = wet.control_flow(0);
    for (std::uint32_t t = 1; t <= raw.flow.size(); ++t) {
        ASSERT_TRUE(cursor.next(step));
        ASSERT_EQ(step.t, t);
        ASSERT_EQ(step.block, raw.flow[t - 1]);
    }
    EXPECT_FALSE(cursor.next(step));
    for (std::uint32_t t = static_cast<std::uint32_t>(raw.flow.size()); t >= 1; --t) {
        ASSERT_TRUE(cursor.prev(step));
        ASSERT_EQ(step.t, t);
        ASSERT_EQ(step.block, raw.flow[t - 1]);
    }
    EXPECT_FALSE(cursor.prev(step));
    const auto middle = static_cast<std::uint32_t>(raw.flow.size() / 2);
    cursor = wet.control_flow(middle);
    ASSERT_TRUE(cursor.next(step));
    EXPECT_EQ(step.t, middle + 1);
    ASSERT_TRUE(cursor.prev(step));
    ASSERT_TRUE(cursor.prev(step));
    EXPECT_EQ(step.t, middle);
    EXPECT_EQ(step.block, raw.flow[middle - 1]);
    for (std::uint32_t t = static_cast<std::uint32_t>(raw.flow.size()); t >= 1; t -= 7) {
        EXPECT_EQ(wet.block_at(t), raw.flow[t - 1]);
        EXPECT_EQ(wet.control_parent(t), parents[t - 1]) << "t " << t;
        if (t <= 7) break;
    }
    for (std::uint32_t t = 1; t <= raw.flow.size(); ++t) {
        ASSERT_EQ(wet.control_parent(t), parents[t - 1]) << "t " << t;
    }

    // Values and addresses per pc, sorted by (t, slot); instances.
    for (const std::uint64_t pc : pcs_of(raw)) {
        std::vector<std::tuple<std::uint32_t, unsigned, char, std::uint64_t, std::uint64_t>> expected, got;
        std::set<std::uint32_t> times;
        for (const auto& event : raw.events) {
            const auto& node = raw.nodes[event.node];
            if (node.pc == pc) {
                expected.emplace_back(event.t, node.slot, node.access, event.value, event.address);
                times.insert(event.t);
            }
        }
        std::sort(expected.begin(), expected.end());
        for (const auto& access : wet.accesses(pc)) {
            got.emplace_back(access.t, access.slot, access.access, access.value, access.address);
        }
        EXPECT_EQ(got, expected) << "pc " << pc;
        EXPECT_EQ(wet.instances(pc), std::vector<std::uint32_t>(times.begin(), times.end()));
        // The same from counts, one instance at a time.
        ASSERT_EQ(wet.instance_count(pc), times.size()) << "pc " << pc;
        std::uint64_t instance = 0;
        for (const std::uint32_t t : times) {
            ASSERT_EQ(wet.instance_time(pc, ++instance), t) << "pc " << pc << " instance " << instance;
        }
        EXPECT_THROW(wet.instance_time(pc, 0), tcgen::wet::WetError);
        EXPECT_THROW(wet.instance_time(pc, times.size() + 1), tcgen::wet::WetError);
    }

    // The def of every load execution, walked backward then forward.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint32_t, std::uint32_t>> defs;
    for (const auto& edge : raw.edges) {
        defs[{edge.use, edge.t_use}] = {edge.def, edge.t_def};
    }
    for (std::size_t pass = 0; pass < 2; ++pass) {
        for (std::size_t k = 0; k < raw.events.size(); ++k) {
            const auto& event = raw.events[pass == 0 ? raw.events.size() - 1 - k : k];
            if (raw.nodes[event.node].access != 'L') {
                continue;
            }
            const auto def = wet.def_of(event.node, event.t);
            const auto found = defs.find({event.node, event.t});
            if (found == defs.end()) {
                ASSERT_FALSE(def.has_value());
            } else {
                ASSERT_TRUE(def.has_value());
                ASSERT_EQ(def->node, found->second.first);
                ASSERT_EQ(def->t, found->second.second);
            }
        }
    }

    // Slices from several instances of every pc.
    for (const std::uint64_t pc : pcs_of(raw)) {
        const std::vector<std::uint32_t> times = wet.instances(pc);
        for (std::size_t instance : {std::size_t{1}, times.size() / 2 + 1, times.size()}) {
            if (instance == 0 || instance > times.size()) {
                continue;
            }
            std::vector<Row> got;
            for (const auto& item : wet.backward_slice(pc, instance)) {
                got.emplace_back(item.t, item.kind, item.pc, item.slot);
            }
            EXPECT_EQ(got, reference_slice(raw, parents, pc, times[instance - 1]))
                << "pc " << pc << " instance " << instance;
        }
    }
}

TEST(WetObject, QueriesMatchTheRawRecords) {
    const RawTrace raw = synthetic_wet::make_trace(60, 1);
    tcgen::wet::check_raw_trace(raw, "synthetic");
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
    check_queries(wet, raw);
}

// Node ids out of block order (the blocks numbered backward, each block's
// nodes keeping their order), which a tracer could write: the WET groups
// the nodes by block itself; every query as above.
TEST(WetObject, QueriesMatchWithNodesOutOfBlockOrder) {
    RawTrace raw = synthetic_wet::make_trace(60, 1);
    const auto last = static_cast<std::uint32_t>(raw.blocks.size() - 1);
    std::reverse(raw.blocks.begin(), raw.blocks.end());
    for (std::uint32_t& block : raw.flow) {
        block = last - block;
    }
    for (tcgen::wet::RawNode& node : raw.nodes) {
        node.block = last - node.block;
    }
    tcgen::wet::check_raw_trace(raw, "renumbered");
    ASSERT_FALSE(std::is_sorted(raw.nodes.begin(), raw.nodes.end(),
                                [](const auto& a, const auto& b) { return a.block < b.block; }));
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
    for (std::uint32_t block = 0; block <= last; ++block) {
        std::vector<std::uint32_t> expected;
        for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
            if (raw.nodes[node].block == block) {
                expected.push_back(node);
            }
        }
        EXPECT_EQ(wet.nodes_of_block(block), expected) << "block " << block;
    }
    check_queries(wet, raw);
}

// Long enough that hot labels are compressed streams (short ones are plain
// records or constants), walked by the queries from wherever they stand.
TEST(WetObject, QueriesMatchOnCompressedStreams) {
    const RawTrace raw = synthetic_wet::make_trace(700, 8);
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
    const auto stats = wet.stats();
    const auto values = std::find_if(stats.begin(), stats.end(), [](const auto& row) { return row.name == "values"; });
    ASSERT_NE(values, stats.end());
    EXPECT_LT(values->compressed_bytes, values->raw_bytes / 2);  // not plain: compressed streams
    check_queries(wet, raw);
    const std::vector<std::uint8_t> bytes = wet.to_bytes();
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "long.wet");
    // Streams no query walked stay in their saved form: saving again gives
    // the same bytes, and walking them makes their cursors.
    EXPECT_EQ(loaded.to_bytes(), bytes);
    const std::size_t at_rest = loaded.memory_bytes();
    check_queries(loaded, raw);
    EXPECT_GT(loaded.memory_bytes(), at_rest);
}

// A checkpoint every few records: every stream of more than one chunk, so
// every query crosses chunk boundaries both ways; the same after a reload.
TEST(WetObject, QueriesMatchWithCheckpointsEveryFewRecords) {
    const RawTrace raw = synthetic_wet::make_trace(300, 9);
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw, nullptr, 5);
    check_queries(wet, raw);
    const std::vector<std::uint8_t> bytes = wet.to_bytes();
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "chunks.wet");
    check_queries(loaded, raw);
    EXPECT_EQ(loaded.to_bytes(), bytes);
}

// A run whose values and addresses no shared frame makes smaller (the
// frames and the chunks' places cost more than the chunks' own forms), so
// the build keeps each chunk its own. Their chunks' bytes were dropped once
// made (only their sizes kept for that choice), so those labels are made
// again from the events: every query still matches, and so does a reload.
TEST(WetObject, QueriesMatchWhereSharedFramesDoNotPay) {
    const RawTrace raw = synthetic_wet::make_trace(2000, 11);
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
    check_queries(wet, raw);
    const std::vector<std::uint8_t> bytes = wet.to_bytes();
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "unshared.wet");
    check_queries(loaded, raw);
    EXPECT_EQ(loaded.to_bytes(), bytes);
}

TEST(WetObject, ACapCutsTheLastBlockShort) {
    const RawTrace full = synthetic_wet::make_trace(40, 2);
    const RawTrace raw = synthetic_wet::make_trace(40, 2, full.events.size() - 2);
    tcgen::wet::check_raw_trace(raw, "synthetic");
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
    check_queries(wet, raw);
}

// save() writes the file a section at a time, each made twice (its size
// and checksum, then its bytes): the same bytes as to_bytes().
TEST(WetObject, SaveWritesTheBytesOfToBytes) {
    const RawTrace raw = synthetic_wet::make_trace(700, 8);
    const WholeExecutionTrace wet = WholeExecutionTrace::build(raw, nullptr, 5);
    const std::string path = testing::TempDir() + "wet_object_save.wet";
    wet.save(path);
    EXPECT_EQ(tcgen::read_whole_file(path), wet.to_bytes());
    std::remove(path.c_str());
}

// A writer with a sink hands on exactly the bytes one without gathers, in
// pieces of at most sink_piece_bytes but for a larger single write, which
// goes on whole and uncopied.
TEST(WetObject, AWriterWithASinkHandsOnWhatAWriterGathers) {
    using tcgen::ByteWriter;
    std::mt19937_64 random(11);
    std::vector<std::uint8_t> large(ByteWriter::sink_piece_bytes + 5);
    for (std::uint8_t& byte : large) {
        byte = static_cast<std::uint8_t>(random());
    }
    ByteWriter gathered;
    std::vector<std::uint8_t> handed;
    std::size_t largest_piece = 0;
    std::size_t large_writes_seen = 0;
    ByteWriter sunk([&](const std::uint8_t* data, std::size_t size) {
        handed.insert(handed.end(), data, data + size);
        largest_piece = std::max(largest_piece, size);
        large_writes_seen += data == large.data();
    });
    for (int step = 0; step < 200000; ++step) {
        const std::uint64_t value = random();
        for (ByteWriter* writer : {&gathered, &sunk}) {
            if (step % 50000 == 7) {
                writer->bytes(large.data(), large.size());
                continue;
            }
            switch (value % 5) {
                case 0:
                    writer->u8(static_cast<std::uint8_t>(value));
                    break;
                case 1:
                    writer->u16(static_cast<std::uint16_t>(value));
                    break;
                case 2:
                    writer->u32(static_cast<std::uint32_t>(value));
                    break;
                case 3:
                    writer->u64(value);
                    break;
                default:
                    writer->bytes(large.data() + value % 1000, value % 300);
            }
        }
    }
    EXPECT_LT(handed.size(), gathered.data().size());  // the rest still held
    sunk.flush();
    EXPECT_TRUE(sunk.data().empty());
    EXPECT_EQ(handed, gathered.data());
    EXPECT_EQ(largest_piece, large.size());
    EXPECT_EQ(large_writes_seen, 4u);
}

TEST(WetObject, FilesOnDiskRoundTrip) {
    const RawTrace raw = synthetic_wet::make_trace(50, 3);
    const std::string prefix = testing::TempDir() + "wet_object_test";
    synthetic_wet::write_trace(raw, prefix);
    const RawTrace read = tcgen::wet::read_raw_trace(prefix);
    ASSERT_EQ(read.events.size(), raw.events.size());
    WholeExecutionTrace built = WholeExecutionTrace::build(read);
    built.save(prefix + ".wet");
    WholeExecutionTrace loaded = WholeExecutionTrace::load(prefix + ".wet");
    EXPECT_EQ(loaded.name(), prefix + ".wet");
    check_queries(loaded, raw);
    // A walk moves the cursors; the saved form of what it holds stays the same after a reload.
    WholeExecutionTrace again = WholeExecutionTrace::from_bytes(loaded.to_bytes().data(), loaded.to_bytes().size(), "again");
    check_queries(again, raw);
    const auto stats = loaded.stats();
    ASSERT_FALSE(stats.empty());
    EXPECT_EQ(stats.back().name, "total");
    EXPECT_EQ(stats.back().compressed_bytes, loaded.to_bytes().size());
    EXPECT_EQ(stats.back().raw_bytes, 4 * raw.flow.size() * 2 + 20 * raw.events.size() + 8 * raw.edges.size() +
                                          8 * [&] {
                                              std::uint64_t count = 0;
                                              for (auto parent : parents_of(raw)) count += parent != 0;
                                              return count;
                                          }() + 24 * (raw.blocks.size() + raw.nodes.size()));
    EXPECT_GT(loaded.memory_bytes(), 0u);
}

TEST(WetObject, QueriesOutsideTheTraceAreErrors) {
    WholeExecutionTrace wet = WholeExecutionTrace::build(synthetic_wet::make_trace(5, 4));
    EXPECT_THROW(wet.accesses(0x9999), WetError);
    EXPECT_THROW(wet.backward_slice(0x1004, 0), WetError);
    EXPECT_THROW(wet.backward_slice(0x1004, 2), WetError);  // block 0 runs once
    EXPECT_THROW(wet.block_at(0), WetError);
    EXPECT_THROW(wet.block_at(wet.executed() + 1), WetError);
    EXPECT_THROW(wet.control_flow(wet.executed() + 1), WetError);
    try {
        wet.accesses(0x9999);
    } catch (const WetError& error) {
        EXPECT_STREQ(error.what(), "WET: error: no memory access has pc 0x9999");
    }
}

template <class Load>
std::string refusal_of(const Load& load) {
    try {
        load();
    } catch (const WetError& error) {
        return error.what();
    }
    return "";
}

// The refusal of `bytes` as a saved WET named bad.wet ("" if accepted): the
// same held whole (from_bytes) as read from a file a section at a time (load).
std::string message_of(const std::vector<std::uint8_t>& bytes) {
    const std::string name = "bad.wet";
    const std::string path = tcgen_test::test_file_path(name);
    tcgen::write_whole_file(path, bytes);
    const std::string held = refusal_of([&] { WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), path); });
    const std::string loaded = refusal_of([&] { WholeExecutionTrace::load(path); });
    std::remove(path.c_str());
    EXPECT_EQ(held, loaded);
    return held.rfind(path, 0) == 0 ? name + held.substr(path.size()) : held;
}

TEST(WetObject, CorruptOrTruncatedFilesAreRefused) {
    const std::vector<std::uint8_t> good = WholeExecutionTrace::build(synthetic_wet::make_trace(20, 5)).to_bytes();
    EXPECT_EQ(message_of(good), "");
    // Every byte flipped somewhere in each stretch of the file: never accepted silently as another WET.
    for (std::size_t at = 0; at < good.size(); at += 1 + good.size() / 300) {
        std::vector<std::uint8_t> bad = good;
        bad[at] ^= 0x40;
        const std::string message = message_of(bad);
        EXPECT_NE(message, "") << "byte " << at;
        EXPECT_EQ(message.find('\n'), std::string::npos);
        EXPECT_EQ(message.rfind("bad.wet: error: ", 0), 0u) << message;
    }
    for (std::size_t size = 0; size < good.size(); size += 1 + good.size() / 200) {
        const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size));
        EXPECT_NE(message_of(cut), "") << "size " << size;
    }
    std::vector<std::uint8_t> longer = good;
    longer.push_back(0);
    EXPECT_NE(message_of(longer), "");
    EXPECT_EQ(message_of({'n', 'o', 'p', 'e'}), "bad.wet: error: not a saved WET (no TCGENWET magic)");
    // A section that claims more bytes than the file holds: refused before any allocation.
    std::vector<std::uint8_t> huge = good;
    for (int i = 0; i < 8; ++i) {
        huge[16 + 4 + i] = 0xff;
    }
    EXPECT_NE(message_of(huge).find("the file is truncated"), std::string::npos) << message_of(huge);
    std::vector<std::uint8_t> checksum = good;
    checksum[16 + 20] ^= 1;  // the first byte of META's payload
    EXPECT_NE(message_of(checksum).find("checksum mismatch"), std::string::npos) << message_of(checksum);
}

// META's counts that `wet stats` reports, forged with the checksum made to
// match: more loads with a def than the loads with defs ran, more block
// executions with a control parent than blocks ran. Once accepted, stats
// reported 10^12 data dependences at a ratio of 5 x 10^9.
TEST(WetObject, ForgedMetaCountsAreRefused) {
    const std::vector<std::uint8_t> good = WholeExecutionTrace::build(synthetic_wet::make_trace(20, 5)).to_bytes();
    ASSERT_NE(wet_file_bytes::payload_of(good, "META"), 0u);
    const auto forged = [&](std::size_t field, std::uint64_t value) {
        return message_of(wet_file_bytes::with_meta_count(good, field, value));
    };
    const std::uint64_t trillion = 1'100'000'000'000ull;
    const std::string defs = forged(wet_file_bytes::meta_loads_with_a_def, trillion);
    EXPECT_NE(defs.find("META counts 1100000000000 loads with a def, the loads with defs ran"), std::string::npos)
        << defs;
    const std::string parents = forged(wet_file_bytes::meta_executions_with_a_control_parent, trillion);
    EXPECT_NE(parents.find("META counts 1100000000000 block executions with a control parent, of"),
              std::string::npos)
        << parents;
    EXPECT_EQ(parents.rfind("bad.wet: error: ", 0), 0u) << parents;
}

// Copies of a shared frame of values that no chunk refers to, in a whole
// file with its checksums made to match: refused by the bytes their chunks
// cover, before any is decoded (10,000 of them in 1.6 MB once took 5 s of
// decoding to accept).
TEST(WetObject, UnreferencedSharedFramesAreRefused) {
    const std::vector<std::uint8_t> good = WholeExecutionTrace::build(synthetic_wet::make_trace(400, 1)).to_bytes();
    const std::uint64_t frames = wet_file_bytes::get_u64(good, wet_file_bytes::payload_of(good, "VALS"));
    ASSERT_GT(frames, 0u) << "the synthetic run's values hold no shared frame";
    for (const std::size_t copies : {1, 1000}) {
        const std::string message = message_of(wet_file_bytes::with_unreferenced_frames(good, "VALS", copies));
        EXPECT_NE(message.find("values: shared frame " + std::to_string(frames) + " holds"), std::string::npos)
            << message;
        EXPECT_NE(message.find("its chunks refer to 0"), std::string::npos) << message;
    }
}

std::string raw_message(const RawTrace& raw) {
    return wet_error_of([&] { tcgen::wet::check_raw_trace(raw, "run"); });
}

TEST(WetRawTrace, InconsistentRecordsAreRefused) {
    const RawTrace good = synthetic_wet::make_trace(10, 6);
    EXPECT_EQ(raw_message(good), "");
    RawTrace bad = good;
    bad.flow[3] = 99;
    EXPECT_EQ(raw_message(bad), "run.flow: error: t 4: block 99 is not in run.blocks");
    bad = good;
    bad.events[5].t = static_cast<std::uint32_t>(good.flow.size() + 1);
    EXPECT_NE(raw_message(bad).find("run.events: error: event 5: t "), std::string::npos);
    bad = good;
    bad.events[5].node = 0;  // block 0 runs only at t 1
    EXPECT_NE(raw_message(bad).find("is in block 0, not in block"), std::string::npos) << raw_message(bad);
    bad = good;
    bad.edges[2].t_def = bad.edges[2].t_use + 1;
    EXPECT_NE(raw_message(bad).find("run.edges: error: edge 2: t_def"), std::string::npos);
    bad = good;
    bad.edges[2].def = bad.edges[2].use;
    EXPECT_NE(raw_message(bad).find("is not a store"), std::string::npos);
    bad = good;
    bad.nodes[3].access = 'X';
    EXPECT_EQ(raw_message(bad), "run.nodes: error: node 3: access is not L or S");
}

// An empty control flow (raw files of magics alone, or blocks and nodes that
// never ran): refused with the reason, not written into a .wet that no
// command can load.
TEST(WetRawTrace, AnEmptyControlFlowIsRefused) {
    RawTrace raw = synthetic_wet::make_trace(10, 6);
    raw.flow.clear();
    raw.events.clear();
    raw.edges.clear();
    EXPECT_EQ(raw_message(raw), "run.flow: error: no executed blocks: a WET needs a control flow of one block at least");
    EXPECT_EQ(raw_message(RawTrace{}),
              "run.flow: error: no executed blocks: a WET needs a control flow of one block at least");
    try {
        WholeExecutionTrace::build(raw);
        ADD_FAILURE() << "built a WET of an empty control flow";
    } catch (const WetError& error) {
        EXPECT_EQ(error.file(), "raw.flow");
    }
}

// A trace made in memory and never checked: build() checks it, so a node
// whose block is out of range (fields given in the wrong order) is an error,
// not a read past the blocks.
TEST(WetRawTrace, BuildChecksATraceMadeInMemory) {
    RawTrace raw;
    raw.blocks.push_back({0x400000, 8, 2, 'J'});
    raw.flow = {0, 0};
    raw.nodes.push_back({0x400004, 0, 'L', 0, 8});  // pc and block swapped
    raw.events = {{0, 1, 0x1000, 7}, {0, 2, 0x1000, 7}};
    try {
        WholeExecutionTrace::build(raw);
        FAIL() << "built a WET from a node outside the blocks";
    } catch (const tcgen::wet::WetError& error) {
        EXPECT_STREQ(error.what(), "raw.nodes: error: node 0: block 4194308 is not in raw.blocks");
    }
}

TEST(WetRawTrace, BadFilesAreRefusedWithTheirName) {
    const std::string prefix = testing::TempDir() + "wet_raw_test";
    synthetic_wet::write_trace(synthetic_wet::make_trace(10, 7), prefix);
    EXPECT_NO_THROW(tcgen::wet::read_raw_trace(prefix));
    synthetic_wet::write_file(prefix + ".events", "WTE1");
    try {
        tcgen::wet::read_raw_trace(prefix);
        ADD_FAILURE() << "a v1 events file was read";
    } catch (const WetError& error) {
        EXPECT_EQ(error.file(), prefix + ".events");
        EXPECT_NE(std::string(error.what()).find("magic WTE2 expected"), std::string::npos) << error.what();
    }
    synthetic_wet::write_file(prefix + ".events", std::string("WTE2") + std::string(23, '\0'));
    EXPECT_THROW(tcgen::wet::read_raw_trace(prefix), WetError);
    std::remove((prefix + ".edges").c_str());
    EXPECT_THROW(tcgen::wet::read_raw_trace(prefix), WetError);
}

// `wet run`'s way (a raw trace in memory, given up, its defs' tables in
// temporary files beside the output) and a kept raw trace's, with and
// without the files: the same bytes, and nothing left beside the output.
TEST(WetRawTrace, BuildWithTemporariesBesideIsTheBuildInMemory) {
    const std::string directory = testing::TempDir() + "wet_beside_test/";
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    const std::string output = directory + "out.wet";
    const RawTrace raw = synthetic_wet::make_trace(3000, 13);
    const std::vector<std::uint8_t> in_memory = WholeExecutionTrace::build(raw).to_bytes();
    EXPECT_EQ(WholeExecutionTrace::build(raw, nullptr, WholeExecutionTrace::default_checkpoint_records, output)
                  .to_bytes(),
              in_memory);
    RawTrace given_up = raw;
    EXPECT_EQ(WholeExecutionTrace::build(std::move(given_up), nullptr, WholeExecutionTrace::default_checkpoint_records,
                                         output)
                  .to_bytes(),
              in_memory);
    EXPECT_TRUE(std::filesystem::is_empty(directory));
    std::filesystem::remove_all(directory);
}

// `wet build`'s way (build_from_files: PREFIX.events read twice, its events
// grouped by node through a temporary file beside the output) against
// build(read_raw_trace()): the same bytes, the same refusal for every
// inconsistent trace, word for word, and nothing left beside the output.
TEST(WetRawTrace, BuildFromFilesIsTheBuildOfTheTraceReadWhole) {
    const std::string directory = testing::TempDir() + "wet_from_files_test/";
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    const std::string prefix = directory + "run";
    const std::string output = directory + "out.wet";
    const auto listing = [&] {
        std::set<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(directory)) {
            names.insert(entry.path().filename().string());
        }
        return names;
    };
    const RawTrace good = synthetic_wet::make_trace(2000, 11);
    synthetic_wet::write_trace(good, prefix);
    const std::set<std::string> written = listing();
    for (const std::uint64_t checkpoint : {std::uint64_t{4096}, std::uint64_t{64}}) {
        EXPECT_EQ(WholeExecutionTrace::build_from_files(prefix, output, nullptr, checkpoint).to_bytes(),
                  WholeExecutionTrace::build(tcgen::wet::read_raw_trace(prefix), nullptr, checkpoint).to_bytes())
            << "checkpoints every " << checkpoint;
        EXPECT_EQ(listing(), written);
    }
    std::vector<RawTrace> bad(8, good);
    bad[0].events[5].t = static_cast<std::uint32_t>(good.flow.size() + 1);
    bad[1].events[5].node = static_cast<std::uint32_t>(good.nodes.size());
    bad[2].edges[2].t_def = bad[2].edges[2].t_use + 1;
    bad[3].edges[2].def = bad[3].edges[2].use;
    bad[4].edges[7].t_def = 1;  // its store has no event at t 1: found once every event is read
    bad[5].edges[7].t_def = 1;  // ... and a later edge without its load event, refused first
    bad[5].edges[9] = bad[5].edges[8];
    bad[6].edges[9] = bad[6].edges[8];  // one edge per load event
    // Two edges whose stores have no event then: the build, which checks
    // those a store at a time where the raw files are streamed, names the
    // first, as the check of a trace read whole does.
    bad[7].edges[9].t_def = 1;
    bad[7].edges[3].t_def = 1;
    for (std::size_t index = 0; index < bad.size(); ++index) {
        synthetic_wet::write_trace(bad[index], prefix);
        const std::string whole = wet_error_of([&] { tcgen::wet::read_raw_trace(prefix); });
        EXPECT_FALSE(whole.empty()) << "bad trace " << index;
        EXPECT_EQ(wet_error_of([&] { WholeExecutionTrace::build_from_files(prefix, output); }), whole)
            << "bad trace " << index;
        EXPECT_EQ(listing(), written) << "bad trace " << index;
        if (index == 7) {
            EXPECT_NE(whole.find("edge 3: the store node "), std::string::npos) << whole;
        }
    }
    std::filesystem::remove_all(directory);
}

// The files of this process's open descriptors whose names hold `part`
// (an unlinked file's name ends " (deleted)").
std::size_t open_files_named(const std::string& part) {
    std::size_t count = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
        std::error_code error;
        const std::filesystem::path target = std::filesystem::read_symlink(entry.path(), error);
        count += !error && target.string().find(part) != std::string::npos ? 1 : 0;
    }
    return count;
}

// Under a memory cap (a small one: 4 KiB blocks of labels in memory), the
// labels made are kept in temporary files beside the output, unlinked and
// open while the WET lives: every query of the WET built matches the raw
// trace, it saves the very bytes of a build without a cap, a reload of
// them answers the same, and nothing is left beside the output.
TEST(WetRawTrace, AMemoryCapHoldsTheLabelsInFilesAndMakesTheSameBytes) {
    const tcgen_test::Directory directory("wet_memory_cap");
    const std::string prefix = directory.path + "run";
    const std::string output = directory.path + "out.wet";
    const RawTrace raw = synthetic_wet::make_trace(2000, 11);
    synthetic_wet::write_trace(raw, prefix);
    const std::set<std::string> written = directory.listing();
    const std::uint64_t checkpoint = 64;  // more chunks, more bytes of labels
    const std::vector<std::uint8_t> uncapped =
        WholeExecutionTrace::build_from_files(prefix, output, nullptr, checkpoint).to_bytes();
    EXPECT_EQ(open_files_named(output + ".labels."), 0u) << "no cap, no labels in files";
    for (const unsigned threads : {1u, 2u}) {
        WholeExecutionTrace capped =
            WholeExecutionTrace::build_from_files(prefix, output, nullptr, checkpoint, threads, std::uint64_t{1} << 20);
        EXPECT_GT(open_files_named(output + ".labels."), 0u) << "no labels spilled";
        EXPECT_EQ(directory.listing(), written);
        check_queries(capped, raw);
        EXPECT_EQ(capped.to_bytes(), uncapped) << threads << " threads";
    }
    EXPECT_EQ(open_files_named(output + ".labels."), 0u);
    EXPECT_EQ(directory.listing(), written);
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(uncapped.data(), uncapped.size(), "capped.wet");
    check_queries(loaded, raw);
}

// The same on a longer run, whose loads have more edges than DefsByLoad
// reads whole (its search for a window of times: the shared frames ask
// for a chunk's values, checkpoints every 64 records) and several stores
// (writers, whose questions are kept under their load), through the
// build's temporary files of the questions and of the defs by load.
TEST(WetRawTrace, BuildFromFilesOfALongRunIsTheBuildInMemory) {
    const std::string directory = testing::TempDir() + "wet_from_files_long_test/";
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    const std::string prefix = directory + "run";
    const RawTrace raw = synthetic_wet::make_trace(20000, 11);
    std::map<std::uint32_t, std::size_t> edges_per_load;
    std::map<std::uint32_t, std::set<std::uint32_t>> stores_per_load;  // its writers, when 2 or more
    for (const tcgen::wet::RawEdge& edge : raw.edges) {
        ++edges_per_load[edge.use];
        stores_per_load[edge.use].insert(edge.def);
    }
    std::size_t most = 0;
    for (const auto& [load, count] : edges_per_load) {
        most = std::max(most, count);
    }
    ASSERT_GT(most, std::size_t{256}) << "no load with more edges than are read whole";
    ASSERT_TRUE(std::any_of(stores_per_load.begin(), stores_per_load.end(),
                            [](const auto& load) { return load.second.size() >= 2; }))
        << "no load with writers, whose questions every writer reads";
    synthetic_wet::write_trace(raw, prefix);
    // Under the sanitizers (75 s there) only the checkpoints that search.
    const std::vector<std::uint64_t> checkpoints =
        tcgen_test::under_sanitizers ? std::vector<std::uint64_t>{64} : std::vector<std::uint64_t>{4096, 64};
    for (const std::uint64_t checkpoint : checkpoints) {
        EXPECT_EQ(WholeExecutionTrace::build_from_files(prefix, directory + "out.wet", nullptr, checkpoint).to_bytes(),
                  WholeExecutionTrace::build(raw, nullptr, checkpoint).to_bytes())
            << "checkpoints every " << checkpoint;
    }
    std::filesystem::remove_all(directory);
}

// A reader of the raw files PREFIX.* for read_raw_files() (as `wet run` and
// the fuzzer give them: whole bytes), over FILES but for the events and the
// edges, read from the strings given, which a test replaces with bad bytes.
auto whole_files(const std::string& prefix, const synthetic_wet::RawFileBytes& files, const std::string& events,
                 const std::string& edges) {
    return [&prefix, &files, &events, &edges](const std::string& name, bool) -> std::optional<std::vector<std::uint8_t>> {
        const std::string* bytes = name == prefix + ".blocks" ? &files.blocks
                                   : name == prefix + ".flow"   ? &files.flow
                                   : name == prefix + ".nodes"  ? &files.nodes
                                   : name == prefix + ".events" ? &events
                                   : name == prefix + ".edges"  ? &edges
                                   : name == prefix + ".regs" && !files.regs.empty() ? &files.regs
                                   : name == prefix + ".syms" && !files.syms.empty() ? &files.syms
                                                                                      : nullptr;
        if (bytes == nullptr) {
            return std::nullopt;
        }
        return std::vector<std::uint8_t>(bytes->begin(), bytes->end());
    };
}

// read_raw_trace() reads PREFIX.events a piece at a time; read_raw_files()
// over the files' whole bytes (as `wet run` and the fuzzer give them) must
// read the same events, build the same WET and refuse the same files.
TEST(WetRawTrace, EventsReadInPiecesAreTheEventsReadWhole) {
    const RawTrace raw = synthetic_wet::make_trace(20000, 11);
    ASSERT_GT(raw.events.size(), std::size_t{3 * 65536}) << "fewer events than the reader's pieces";
    const std::string prefix = testing::TempDir() + "wet_raw_pieces_test";
    synthetic_wet::write_trace(raw, prefix);
    const synthetic_wet::RawFileBytes files = synthetic_wet::raw_file_bytes(raw);
    std::string events_bytes = files.events;
    const auto whole = whole_files(prefix, files, events_bytes, files.edges);
    const RawTrace in_pieces = tcgen::wet::read_raw_trace(prefix);
    const RawTrace read_whole = tcgen::wet::read_raw_files(prefix, whole);
    ASSERT_EQ(in_pieces.events.size(), raw.events.size());
    ASSERT_EQ(read_whole.events.size(), raw.events.size());
    for (std::size_t index = 0; index < raw.events.size(); ++index) {
        const auto fields = [](const tcgen::wet::RawEvent& event) {
            return std::make_tuple(event.node, event.t, event.address, event.value);
        };
        ASSERT_EQ(fields(in_pieces.events[index]), fields(raw.events[index])) << "event " << index;
        ASSERT_EQ(fields(read_whole.events[index]), fields(raw.events[index])) << "event " << index;
    }
    EXPECT_EQ(WholeExecutionTrace::build(in_pieces).to_bytes(), WholeExecutionTrace::build(read_whole).to_bytes());

    // The same refusals, word for word: a wrong magic, a size that is no
    // whole number of records, a file too short for its magic.
    for (const std::string& bad : {std::string("WTE1") + files.events.substr(4), files.events.substr(0, files.events.size() - 5),
                                   std::string("WT")}) {
        events_bytes = bad;
        synthetic_wet::write_file(prefix + ".events", bad);
        const std::string from_pieces = wet_error_of([&] { tcgen::wet::read_raw_trace(prefix); });
        const std::string from_whole = wet_error_of([&] { tcgen::wet::read_raw_files(prefix, whole); });
        EXPECT_FALSE(from_pieces.empty()) << "read a bad events file of " << bad.size() << " bytes";
        EXPECT_EQ(from_pieces, from_whole);
    }
}

// PREFIX.edges, too, is read from disk a piece at a time (by
// read_raw_trace() and `wet build`): the same edges as the raw trace's, and
// the same refusals, word for word, as over the file's whole bytes.
TEST(WetRawTrace, EdgesReadInPiecesAreTheEdgesReadWhole) {
    const RawTrace raw = synthetic_wet::make_trace(20000, 11);
    ASSERT_GT(raw.edges.size(), std::size_t{2 * 65536}) << "fewer edges than the reader's pieces";
    const std::string directory = testing::TempDir() + "wet_edges_pieces_test/";
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    const std::string prefix = directory + "run";
    synthetic_wet::write_trace(raw, prefix);
    const synthetic_wet::RawFileBytes files = synthetic_wet::raw_file_bytes(raw);
    std::string edges_bytes = files.edges;
    const auto whole = whole_files(prefix, files, files.events, edges_bytes);
    const RawTrace in_pieces = tcgen::wet::read_raw_trace(prefix);
    ASSERT_EQ(in_pieces.edges.size(), raw.edges.size());
    for (std::size_t index = 0; index < raw.edges.size(); ++index) {
        const auto fields = [](const tcgen::wet::RawEdge& edge) {
            return std::make_tuple(edge.use, edge.def, edge.t_use, edge.t_def);
        };
        ASSERT_EQ(fields(in_pieces.edges[index]), fields(raw.edges[index])) << "edge " << index;
    }
    for (const std::string& bad : {std::string("WTD1") + files.edges.substr(4), files.edges.substr(0, files.edges.size() - 5),
                                   std::string("WT")}) {
        edges_bytes = bad;
        synthetic_wet::write_file(prefix + ".edges", bad);
        const std::string from_whole = wet_error_of([&] { tcgen::wet::read_raw_files(prefix, whole); });
        EXPECT_FALSE(from_whole.empty()) << "read a bad edges file of " << bad.size() << " bytes";
        EXPECT_EQ(wet_error_of([&] { tcgen::wet::read_raw_trace(prefix); }), from_whole);
        EXPECT_EQ(wet_error_of([&] { WholeExecutionTrace::build_from_files(prefix, directory + "out.wet"); }), from_whole);
    }
    std::filesystem::remove(prefix + ".edges");
    EXPECT_EQ(wet_error_of([&] { tcgen::wet::read_raw_trace(prefix); }),
              prefix + ".edges: error: cannot open: No such file or directory");
    std::filesystem::remove_all(directory);
}

}  // namespace
