// The build's temporary files: the defs' questions grouped by store
// (AsksByNode, read in the order of their horizons by AsksInHorizonOrder)
// and each edge's def grouped by load (DefsByLoad), through a temporary
// file against the same through memory; a node's events walked a piece at
// a time (EventWalk); records grouped by node in a compressed temporary
// file (FramedRuns), read from anywhere; and a temporary file's
// refusals (a write beyond the size limit, a read
// beyond what was written), one line each, with nothing left behind; bytes
// held in memory or spilled to a temporary file (HeldBytes). And
// the raw edges the build walks in passes over their file (RawEdges): the
// same edges as held, and a file changed between passes refused.

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <tcgen/wet/raw_trace.hpp>
#include "runtime/byte_order.hpp"
#include "test_directory.hpp"
#include "wet/format/raw_edges.hpp"
#include "wet/labels/asks_by_node.hpp"
#include "wet/labels/asks_in_horizon_order.hpp"
#include "wet/labels/def_encoding.hpp"
#include "wet/labels/def_questions.hpp"
#include "wet/labels/defs_by_load.hpp"
#include "wet/labels/event_walk.hpp"
#include "wet/labels/events_by_node.hpp"
#include "wet/labels/framed_runs.hpp"
#include "wet/labels/held_bytes.hpp"
#include "wet/labels/temporary_file.hpp"
#include "wet_error_of.hpp"

namespace {

using tcgen::wet::AsksInHorizonOrder;
using tcgen::wet::DefAsk;
using tcgen::wet::DefQuestions;
using tcgen::wet::DefsByLoad;
using tcgen::wet::EdgeDef;
using tcgen::wet::EventsByNode;
using tcgen::wet::EventWalk;
using tcgen::wet::HeldBytes;
using tcgen::wet::NodeEvent;
using tcgen::wet::RawEdge;
using tcgen::wet::RawEdges;
using tcgen::wet::RawEvent;
using tcgen::wet::TemporaryFile;
using tcgen_test::Directory;
using tcgen_test::wet_error_of;

bool same(const std::vector<EdgeDef>& a, const std::vector<EdgeDef>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t index = 0; index < a.size(); ++index) {
        if (a[index].t_use != b[index].t_use || a[index].record.field1 != b[index].record.field1 ||
            a[index].record.field2 != b[index].record.field2 || a[index].predicted != b[index].predicted) {
            return false;
        }
    }
    return true;
}

// Random loads' defs from random stores, one def a load execution, added a
// store at a time as the build adds them, each in pieces; read back whole
// and in windows, in time order, short runs (read whole) and long ones
// (searched) alike.
TEST(DefsByLoad, ThroughAFileIsThroughMemory) {
    const Directory directory("defs_by_load_test");
    std::mt19937_64 random(5);
    constexpr std::size_t nodes = 12;
    const std::vector<std::uint64_t> edge_counts = {0, 3, 700, 0, 1, 256, 257, 40, 0, 2000, 5, 0};
    std::vector<std::uint64_t> first(nodes + 1, 0);
    for (std::size_t node = 0; node < nodes; ++node) {
        first[node + 1] = first[node] + edge_counts[node];
    }
    // Per load its defs in time order (every other t), each from a random store.
    std::vector<std::vector<EdgeDef>> expected(nodes);
    std::vector<std::vector<std::pair<std::uint32_t, EdgeDef>>> by_store(nodes);
    for (std::uint32_t load = 0; load < nodes; ++load) {
        for (std::uint64_t index = 0; index < edge_counts[load]; ++index) {
            const EdgeDef def{static_cast<std::uint32_t>(2 * index + 1 + load),
                              {static_cast<std::uint32_t>(random()), static_cast<std::uint32_t>(random())},
                              random()};
            expected[load].push_back(def);
            by_store[random() % nodes].emplace_back(load, def);
        }
    }
    const std::set<std::string> before = directory.listing();
    DefsByLoad in_memory(first, "");
    DefsByLoad in_file(first, directory.path + "out.wet");
    EXPECT_EQ(directory.listing(), before) << "the temporary file is unlinked once open";
    // Stores in a shuffled order, each in pieces of random sizes.
    std::vector<std::uint32_t> store_order(nodes);
    std::iota(store_order.begin(), store_order.end(), 0);
    std::shuffle(store_order.begin(), store_order.end(), random);
    for (const std::uint32_t store : store_order) {
        const std::vector<std::pair<std::uint32_t, EdgeDef>>& all = by_store[store];
        for (std::size_t begin = 0; begin < all.size();) {
            const std::size_t count = std::min<std::size_t>(all.size() - begin, 1 + random() % 300);
            std::vector<std::pair<std::uint32_t, EdgeDef>> piece(
                all.begin() + static_cast<std::ptrdiff_t>(begin),
                all.begin() + static_cast<std::ptrdiff_t>(begin + count));
            std::vector<std::pair<std::uint32_t, EdgeDef>> copy = piece;
            in_memory.add_store(store, copy);
            in_file.add_store(store, piece);
            begin += count;
        }
    }
    in_memory.finish();
    in_file.finish();
    for (std::uint32_t load = 0; load < nodes; ++load) {
        EXPECT_TRUE(same(in_file.read(load, 0, ~std::uint32_t{0}), expected[load])) << "load " << load;
        EXPECT_TRUE(same(in_memory.read(load, 0, ~std::uint32_t{0}), expected[load])) << "load " << load;
        for (int window = 0; window < 20; ++window) {
            const auto t_first = static_cast<std::uint32_t>(random() % (2 * edge_counts[load] + 4));
            const auto t_last = static_cast<std::uint32_t>(t_first + random() % 600);
            std::vector<EdgeDef> wanted;
            for (const EdgeDef& def : expected[load]) {
                if (def.t_use >= t_first && def.t_use <= t_last) {
                    wanted.push_back(def);
                }
            }
            EXPECT_TRUE(same(in_file.read(load, t_first, t_last), wanted))
                << "load " << load << ", t " << t_first << ".." << t_last;
            EXPECT_TRUE(same(in_memory.read(load, t_first, t_last), wanted))
                << "load " << load << ", t " << t_first << ".." << t_last;
        }
    }
}

// Random asks of random stores, added in pieces as the build adds them:
// each store's read back in the order added, through a file as in memory.
TEST(AsksByNode, ThroughAFileIsThroughMemory) {
    const Directory directory("asks_by_node_test");
    std::mt19937_64 random(9);
    constexpr std::size_t stores = 9;
    std::vector<std::vector<DefAsk>> expected(stores);
    std::vector<std::pair<std::uint32_t, DefAsk>> all;
    for (std::uint32_t edge = 0; edge < 5000; ++edge) {
        const auto store = static_cast<std::uint32_t>(random() % stores == 4 ? 4 : random() % 3);
        const DefAsk ask{edge, static_cast<std::uint32_t>(random()), static_cast<std::uint32_t>(random()),
                         store, static_cast<std::uint32_t>(random()), random()};
        expected[store].push_back(ask);
        all.emplace_back(store, ask);
    }
    std::vector<std::uint64_t> counts(stores);
    for (std::size_t store = 0; store < stores; ++store) {
        counts[store] = expected[store].size();
    }
    const std::set<std::string> before = directory.listing();
    const auto in_memory = tcgen::wet::make_asks_by_node(counts, "");
    const auto in_file = tcgen::wet::make_asks_by_node(counts, directory.path + "out.wet");
    EXPECT_EQ(directory.listing(), before) << "the temporary file is unlinked once open";
    for (std::size_t begin = 0; begin < all.size(); begin += 700) {
        std::vector<std::pair<std::uint32_t, DefAsk>> piece(
            all.begin() + static_cast<std::ptrdiff_t>(begin),
            all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), begin + 700)));
        std::vector<std::pair<std::uint32_t, DefAsk>> copy = piece;
        in_memory->add(piece);
        in_file->add(copy);
    }
    in_memory->check_full();
    in_file->check_full();
    const auto same_asks = [](const std::vector<DefAsk>& a, const std::vector<DefAsk>& b) {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const DefAsk& x, const DefAsk& y) {
                   return x.edge == y.edge && x.use == y.use && x.t_use == y.t_use && x.def == y.def &&
                          x.t_def == y.t_def && x.address == y.address;
               });
    };
    for (std::size_t store = 0; store < stores; ++store) {
        EXPECT_TRUE(same_asks(in_file->read(store), expected[store])) << "store " << store;
        EXPECT_TRUE(same_asks(in_memory->read(store), expected[store])) << "store " << store;
    }
}

// A store's asks, as ask_defs keeps them: under the store a run a load (of
// loads without writers), under each load it is a writer of that load's
// run, each in time order; among them runs longer than a piece and more
// runs than share the merge's buffer at the least piece. Merged, they come
// in the order of their horizons, every ask once, through a file as in
// memory.
TEST(AsksInHorizonOrder, MergesEveryRunOfAStoreAndItsLoads) {
    const Directory directory("asks_in_horizon_order_test");
    std::mt19937_64 random(17);
    constexpr std::uint32_t store = 1500;  // loads below it and above it
    constexpr std::uint32_t node_count = 3000;
    std::vector<std::uint32_t> loads(node_count);
    std::iota(loads.begin(), loads.end(), 0);
    loads.erase(loads.begin() + store);
    std::shuffle(loads.begin(), loads.end(), random);
    loads.resize(1200);
    std::sort(loads.begin(), loads.end());
    const std::vector<std::uint32_t> written = {loads[3], loads[700]};  // loads it is a writer of
    std::vector<std::pair<std::uint32_t, DefAsk>> all;                  // (kept under, ask), a load at a time
    std::vector<std::uint64_t> counts(node_count, 0);
    std::uint32_t edge = 0;
    for (const std::uint32_t load : loads) {
        const bool writers = std::find(written.begin(), written.end(), load) != written.end();
        const std::uint64_t asks = load == loads[10] ? 3000 : writers ? 2500 : 1 + random() % 20;
        std::uint32_t t = static_cast<std::uint32_t>(random() % 50);
        for (std::uint64_t ask = 0; ask < asks; ++ask, t += 1 + static_cast<std::uint32_t>(random() % 40)) {
            const std::uint32_t def = writers && ask % 2 == 1 ? store + 1 : store;
            const std::uint32_t under = writers ? load : store;
            all.emplace_back(under, DefAsk{edge++, load, t, def, t / 2, random()});
            ++counts[under];
        }
    }
    for (const std::string& beside : {std::string(), directory.path + "out.wet"}) {
        DefQuestions questions;
        questions.asks = tcgen::wet::make_asks_by_node(counts, beside);
        questions.written_by.resize(node_count);
        questions.written_by[store] = written;
        std::uint32_t last_load = ~0U;
        std::vector<std::pair<std::uint32_t, DefAsk>> piece;
        for (const auto& [under, ask] : all) {
            if (ask.use != last_load) {  // the pieces end with each load, as in ask_defs
                questions.asks->add(piece);
                piece.clear();
                questions.asks->start_run(under);
                last_load = ask.use;
            }
            piece.emplace_back(under, ask);
        }
        questions.asks->add(piece);
        questions.asks->check_full();
        EXPECT_EQ(questions.asks->runs(store).size(), loads.size() - written.size());

        AsksInHorizonOrder merged(questions, store);
        std::vector<bool> given(all.size(), false);
        std::uint64_t last_horizon = 0;
        std::size_t count = 0;
        DefAsk ask;
        while (merged.next(ask)) {
            const std::uint64_t horizon = tcgen::wet::def_encoding::store_horizon(store, ask.use, ask.t_use);
            ASSERT_LE(last_horizon, horizon) << "ask " << count << ", edge " << ask.edge;
            ASSERT_LT(ask.edge, given.size());
            ASSERT_FALSE(given[ask.edge]) << "edge " << ask.edge << " given twice";
            given[ask.edge] = true;
            last_horizon = horizon;
            ++count;
        }
        EXPECT_EQ(count, all.size()) << (beside.empty() ? "in memory" : "through a file");
        EXPECT_TRUE(AsksInHorizonOrder(questions, store + 1).empty());
    }
}

// A node's events walked to horizons in order, and asked for the first at
// or after a time behind the walk (held, or searched for in the run),
// ahead of it, and beyond its last: what a whole run read at once says.
TEST(EventWalk, FindsWhatTheWholeRunFinds) {
    const Directory directory("event_walk_test");
    std::mt19937_64 random(23);
    constexpr std::uint32_t nodes = 3;
    std::vector<RawEvent> events;
    std::uint32_t t = 0;
    for (std::size_t index = 0; index < 5 * EventWalk::piece_events + 77; ++index) {
        t += 1 + static_cast<std::uint32_t>(random() % 3);
        events.push_back(RawEvent{static_cast<std::uint32_t>(random() % 5 == 0 ? 0 : 1), t, random(), random()});
    }
    std::vector<std::uint64_t> counts(nodes, 0);
    for (const RawEvent& event : events) {
        ++counts[event.node];
    }
    const EventsByNode in_memory = EventsByNode::in_memory(events, nodes);
    EventsByNode::Scatter scatter(directory.path + "out.wet", counts);
    scatter.add(events.data(), events.size());
    const EventsByNode in_file = scatter.finish();
    for (const EventsByNode* grouped : std::vector<const EventsByNode*>{&in_memory, &in_file}) {
        for (std::uint32_t node = 0; node < nodes; ++node) {
            const std::vector<NodeEvent> whole = grouped->read(node);
            const auto first_at = [&](std::uint64_t time) {
                return static_cast<std::uint64_t>(
                    std::lower_bound(whole.begin(), whole.end(), time,
                                     [](const NodeEvent& event, std::uint64_t value) { return event.t < value; }) -
                    whole.begin());
            };
            EventWalk walk(*grouped, node);
            ASSERT_EQ(walk.size(), whole.size());
            std::uint64_t visited = 0;
            for (std::uint64_t horizon = 0; horizon <= t + 10; horizon += 1 + random() % 5000) {
                const std::uint64_t before = walk.walk_to(horizon, [&](const NodeEvent& event) {
                    EXPECT_EQ(event.t, whole[visited].t);
                    ++visited;
                });
                ASSERT_EQ(before, first_at(horizon)) << "node " << node << ", horizon " << horizon;
                ASSERT_EQ(visited, before);
                for (int probe = 0; probe < 4; ++probe) {
                    const auto time = static_cast<std::uint32_t>(probe == 0   ? horizon - random() % 100
                                                                 : probe == 1 ? random() % (horizon + 1)
                                                                 : probe == 2 ? horizon + random() % 200000
                                                                              : t + 1 + random() % 10);
                    const std::uint64_t found = walk.lower_bound(time);
                    ASSERT_EQ(found, first_at(time)) << "node " << node << ", t " << time << ", horizon " << horizon;
                    if (found < whole.size()) {
                        EXPECT_EQ(walk.at(found).t, whole[found].t);
                        EXPECT_EQ(walk.at(found).value, whole[found].value);
                    }
                }
            }
            EXPECT_EQ(walk.walk_to(std::uint64_t{t} + 1, [&](const NodeEvent&) { ++visited; }), whole.size());
            EXPECT_EQ(visited, whole.size());
        }
    }
}

// A node given more records than were counted for it, or fewer, is refused
// in one line naming the file (the counts come from a first read of the
// same raw files: one that changed in between).
TEST(AsksByNode, MoreOrFewerThanCountedAreRefused) {
    const Directory directory("asks_counted_test");
    const auto more = tcgen::wet::make_asks_by_node({2, 1}, directory.path + "out.wet");
    std::vector<std::pair<std::uint32_t, DefAsk>> piece = {{1, DefAsk{}}, {0, DefAsk{}}, {1, DefAsk{}}};
    const std::string too_many = wet_error_of([&] { more->add(piece); });
    EXPECT_EQ(too_many.rfind(directory.path + "out.wet.asks.", 0), 0u) << too_many;
    EXPECT_NE(too_many.find(".tmp: error: more questions of node 1 than were counted"), std::string::npos) << too_many;

    const auto fewer = tcgen::wet::make_asks_by_node({2, 1}, "");
    piece = {{1, DefAsk{}}, {0, DefAsk{}}};
    fewer->add(piece);
    EXPECT_EQ(wet_error_of([&] { fewer->check_full(); }), "asks: error: fewer questions of node 0 than were counted");
    piece = {{2, DefAsk{}}};
    EXPECT_EQ(wet_error_of([&] { fewer->add(piece); }), "asks: error: more questions of node 2 than were counted");
}

TEST(TemporaryFile, RefusalsAreOneLineAndLeaveNothing) {
    const Directory directory("temporary_file_test");
    {
        const TemporaryFile file(directory.path + "out.wet", "defs", "the defs grouped by load");
        EXPECT_TRUE(directory.listing().empty());
        EXPECT_EQ(file.name().rfind(directory.path + "out.wet.defs.", 0), 0u) << file.name();
        const std::vector<std::uint8_t> bytes(100, 7);
        file.write(0, bytes.data(), bytes.size());
        std::vector<std::uint8_t> back(100);
        file.read(0, back.data(), back.size());
        EXPECT_EQ(back, bytes);
        EXPECT_EQ(wet_error_of([&] { file.read(50, back.data(), back.size()); }),
                  file.name() + ": error: read error: the file is shorter than was written");
        // A write beyond the file size limit, as a full disk refuses it.
        rlimit limit{};
        ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &limit), 0);
        const rlimit lowered{4096, limit.rlim_max};
        const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
        ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lowered), 0);
        const std::string written = wet_error_of([&] { file.write(1 << 20, bytes.data(), bytes.size()); });
        setrlimit(RLIMIT_FSIZE, &limit);
        std::signal(SIGXFSZ, old_handler);
        EXPECT_EQ(written, file.name() + ": error: cannot write the defs grouped by load: File too large");
    }
    EXPECT_TRUE(directory.listing().empty());
    const std::string missing = directory.path + "no such directory/out.wet";
    const std::string refused =
        wet_error_of([&] { TemporaryFile(missing, "defs", "the defs grouped by load"); });
    EXPECT_NE(refused.find(": error: cannot create the temporary file of the defs grouped by load: No such file"),
              std::string::npos)
        << refused;
    EXPECT_EQ(refused.find('\n'), std::string::npos);
}

// Bytes appended in runs of any size, held in memory and spilled (a block of
// 64 bytes, so that most are in the file): every place reads back what was
// appended there, in place where memory holds it, whole through write_to();
// and the spilled file is gone with its holder.
TEST(HeldBytes, ReadsBackWhatWasAppendedWhereverItIsHeld) {
    const Directory directory("held_bytes_test");
    std::mt19937 random(5);
    std::vector<std::uint8_t> appended;
    HeldBytes in_memory;
    {
        HeldBytes spilled;
        spilled.spill(HeldBytes::Spill{directory.path + "out.wet", 64}, "the bytes of a test");
        EXPECT_TRUE(spilled.spills());
        std::vector<std::pair<std::uint64_t, std::size_t>> runs;
        for (int run = 0; run < 400; ++run) {
            std::vector<std::uint8_t> bytes(random() % 3 == 0 ? random() % 300 : random() % 20);
            for (std::uint8_t& byte : bytes) {
                byte = static_cast<std::uint8_t>(random());
            }
            runs.emplace_back(appended.size(), bytes.size());
            appended.insert(appended.end(), bytes.begin(), bytes.end());
            in_memory.append(bytes.data(), bytes.size());
            spilled.append(bytes.data(), bytes.size());
        }
        in_memory.shrink();
        spilled.shrink();
        ASSERT_EQ(in_memory.size(), appended.size());
        ASSERT_EQ(spilled.size(), appended.size());
        // The spilled holder keeps about a block; the other, everything.
        EXPECT_LT(spilled.memory_bytes(), std::size_t{1024});
        EXPECT_GE(in_memory.memory_bytes(), appended.size());
        std::vector<std::uint8_t> scratch;
        for (const auto& [at, size] : runs) {
            const std::vector<std::uint8_t> expected(appended.begin() + static_cast<std::ptrdiff_t>(at),
                                                     appended.begin() + static_cast<std::ptrdiff_t>(at + size));
            const std::uint8_t* held = in_memory.view(at, size, scratch);
            EXPECT_EQ(std::vector<std::uint8_t>(held, held + size), expected) << "at " << at;
            EXPECT_TRUE(size == 0 || held != scratch.data()) << "a run held in memory is read in place";
            const std::uint8_t* back = spilled.view(at, size, scratch);
            EXPECT_EQ(std::vector<std::uint8_t>(back, back + size), expected) << "at " << at;
        }
        for (int probe = 0; probe < 200; ++probe) {
            const std::uint64_t at = random() % appended.size();
            const std::size_t size = random() % (appended.size() - at + 1);
            std::vector<std::uint8_t> back(size);
            spilled.read(at, size, back.data());
            EXPECT_TRUE(std::equal(back.begin(), back.end(), appended.begin() + static_cast<std::ptrdiff_t>(at)))
                << "at " << at << ", " << size << " bytes";
        }
        for (const HeldBytes* held : {&in_memory, &spilled}) {
            tcgen::ByteWriter writer;
            held->write_to(writer, 0, held->size());
            EXPECT_EQ(writer.data(), appended);
        }
        EXPECT_TRUE(directory.listing().empty()) << "the file is unlinked once open";
    }
    EXPECT_TRUE(directory.listing().empty());
}

// Records of `width` bytes for node `node`'s places, each its own bytes
// (node, index and a few bytes of noise), so that a read from the wrong
// place or node shows.
std::vector<std::uint8_t> numbered_records(std::size_t node, std::uint64_t count, std::size_t width,
                                           std::mt19937& random) {
    std::vector<std::uint8_t> bytes(count * width);
    for (std::uint64_t index = 0; index < count; ++index) {
        std::uint8_t* record = bytes.data() + index * width;
        for (std::size_t k = 0; k < width; ++k) {
            record[k] = static_cast<std::uint8_t>(k == 0 ? node : k == 1 ? index : k == 2 ? index >> 8 : random() % 4);
        }
    }
    return bytes;
}

TEST(FramedRuns, ReadsAnyPlacesOfWhatWasAppendedInAnyOrder) {
    const Directory directory("framed_runs_test");
    constexpr std::size_t width = 7;
    std::mt19937 random(11);
    // 40 nodes, some without records; appended a few at a time, nodes
    // taken at random; frames of 10 records, buffers of at most 300 bytes.
    std::vector<std::uint64_t> counts(40);
    for (std::uint64_t& count : counts) {
        count = random() % 4 == 0 ? 0 : random() % 500;
    }
    const std::vector<std::uint64_t> first = tcgen::wet::node_places(counts);
    std::vector<std::uint8_t> expected;
    std::vector<std::vector<std::uint8_t>> by_node(counts.size());
    for (std::size_t node = 0; node < counts.size(); ++node) {
        by_node[node] = numbered_records(node, counts[node], width, random);
        expected.insert(expected.end(), by_node[node].begin(), by_node[node].end());
    }
    const tcgen::wet::FramedRunsLimits limits{70, 300};
    tcgen::wet::FramedRuns runs(width, first, directory.path + "out.wet", "events", "the events grouped by node",
                                limits);
    EXPECT_TRUE(directory.listing().empty());
    std::vector<std::uint64_t> appended(counts.size(), 0);
    for (std::uint64_t left = first.back(); left > 0;) {
        const std::size_t node = random() % counts.size();
        const std::uint64_t count = std::min<std::uint64_t>(1 + random() % 60, counts[node] - appended[node]);
        runs.append(node, by_node[node].data() + appended[node] * width, count);
        appended[node] += count;
        left -= count;
        EXPECT_LE(runs.buffered_bytes(), limits.buffer_budget);
    }
    runs.finish();
    EXPECT_EQ(runs.buffered_bytes(), 0u);
    const auto read = [&](std::uint64_t at, std::uint64_t count) {
        std::vector<std::uint8_t> bytes(count * width);
        runs.read(at, count, bytes.data());
        return bytes;
    };
    EXPECT_EQ(read(0, first.back()), expected);
    // Any places, within a frame, across frames and across nodes, from
    // several threads at once (each with its own decoded frames).
    const auto random_reads = [&](unsigned seed) {
        std::mt19937 own(seed);
        for (int probe = 0; probe < 400; ++probe) {
            const std::uint64_t at = own() % first.back();
            const std::uint64_t count = 1 + own() % std::min<std::uint64_t>(first.back() - at, probe % 2 ? 3 : 200);
            const auto begin = expected.begin() + static_cast<std::ptrdiff_t>(at * width);
            if (read(at, count) !=
                std::vector<std::uint8_t>(begin, begin + static_cast<std::ptrdiff_t>(count * width))) {
                return false;
            }
        }
        return true;
    };
    std::vector<char> agreed(4, 0);
    std::vector<std::thread> threads;
    for (unsigned thread = 0; thread < agreed.size(); ++thread) {
        threads.emplace_back([&, thread] { agreed[thread] = random_reads(thread); });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    EXPECT_EQ(agreed, std::vector<char>(4, 1));
}

TEST(FramedRuns, TheFileHoldsStructuredRecordsInAFractionOfTheirBytes) {
    // An event-like record (a timestamp, an address, a value) for 200,000
    // executions of one node: the file is compressed, not the records laid out.
    const Directory directory("framed_runs_test");
    constexpr std::uint64_t count = 200000;
    std::vector<NodeEvent> events(count);
    for (std::uint64_t index = 0; index < count; ++index) {
        events[index] = NodeEvent{0x7ffd0000 + 8 * (index % 1000), index % 17, static_cast<std::uint32_t>(3 * index)};
    }
    std::vector<std::uint8_t> bytes(count * tcgen::wet::NodeEventCodec::bytes);
    for (std::uint64_t index = 0; index < count; ++index) {
        tcgen::wet::NodeEventCodec::encode(events[index], bytes.data() + index * tcgen::wet::NodeEventCodec::bytes);
    }
    tcgen::wet::FramedRuns runs(tcgen::wet::NodeEventCodec::bytes, {0, count}, directory.path + "out.wet", "events",
                                "the events grouped by node");
    runs.append(0, bytes.data(), count);
    runs.finish();
    EXPECT_LT(runs.file_bytes(), bytes.size() / 4);
    std::vector<std::uint8_t> back(bytes.size());
    runs.read(0, count, back.data());
    EXPECT_EQ(back, bytes);
}

// PREFIX.edges's bytes for `edges`: the magic, then 16 bytes an edge.
std::string edges_file_bytes(const std::vector<RawEdge>& edges) {
    std::string bytes = "WTD2";
    for (const RawEdge& edge : edges) {
        for (const std::uint32_t field : {edge.use, edge.def, edge.t_use, edge.t_def}) {
            std::uint8_t le[4];
            tcgen_runtime::store_le32(le, field);
            bytes.append(reinterpret_cast<const char*>(le), 4);
        }
    }
    return bytes;
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr) << path;
    ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), file), bytes.size());
    ASSERT_EQ(std::fclose(file), 0);
}

std::vector<RawEdge> random_edges(std::size_t count, unsigned seed) {
    std::mt19937 random(seed);
    std::vector<RawEdge> edges(count);
    for (RawEdge& edge : edges) {
        edge = RawEdge{static_cast<std::uint32_t>(random()), static_cast<std::uint32_t>(random()),
                       static_cast<std::uint32_t>(random()), static_cast<std::uint32_t>(random())};
    }
    return edges;
}

bool same_edges(const RawEdge& a, const RawEdge& b) {
    return a.use == b.use && a.def == b.def && a.t_use == b.t_use && a.t_def == b.t_def;
}

TEST(RawEdges, PassesAndCursorsOverTheFileSeeTheEdgesHeld) {
    const Directory directory("raw_edges_passes");
    // Two pieces and part of a third.
    const std::vector<RawEdge> edges = random_edges(2 * RawEdges::piece_edges + 1234, 5);
    write_bytes(directory.path + "run.edges", edges_file_bytes(edges));
    const RawEdges in_file(directory.path + "run.edges");
    const RawEdges held(edges);
    const RawEdges viewed(&edges);
    for (const RawEdges* walked : {&in_file, &held, &viewed}) {
        ASSERT_EQ(walked->size(), edges.size());
        for (int pass = 0; pass < 2; ++pass) {
            std::size_t next = 0;
            walked->each([&](std::size_t index, const RawEdge& edge) {
                ASSERT_EQ(index, next++);
                ASSERT_TRUE(same_edges(edge, edges[index])) << "edge " << index;
            });
            EXPECT_EQ(next, edges.size());
        }
        // A cursor asked every edge, then one that skips across pieces.
        RawEdges::Cursor every(*walked);
        for (std::size_t index = 0; index < edges.size(); ++index) {
            ASSERT_TRUE(same_edges(every.at(index), edges[index])) << "edge " << index;
        }
        RawEdges::Cursor skipping(*walked);
        for (std::size_t index = 3; index < edges.size(); index += RawEdges::piece_edges / 3 + 7) {
            ASSERT_TRUE(same_edges(skipping.at(index), edges[index])) << "edge " << index;
            ASSERT_TRUE(same_edges(skipping.at(index), edges[index])) << "edge " << index << ", again";
        }
    }
}

TEST(RawEdges, AFileChangedBetweenPassesIsRefused) {
    const Directory directory("raw_edges_changed");
    const std::vector<RawEdge> edges = random_edges(RawEdges::piece_edges + 10, 6);
    const std::string name = directory.path + "run.edges";
    write_bytes(name, edges_file_bytes(edges));
    const RawEdges in_file(name);
    const auto one_pass = [&] { in_file.each([](std::size_t, const RawEdge&) {}); };
    EXPECT_EQ(wet_error_of(one_pass), "");
    std::vector<RawEdge> changed = edges;
    changed[RawEdges::piece_edges + 3].t_def ^= 1;
    write_bytes(name, edges_file_bytes(changed));  // in place: the file stays open
    EXPECT_EQ(wet_error_of(one_pass), name + ": error: cannot read: the file changed while it was read");
    changed.resize(edges.size() - 5);
    write_bytes(name, edges_file_bytes(changed));
    EXPECT_EQ(wet_error_of(one_pass), name + ": error: cannot read: the file shrank while it was read");
    EXPECT_EQ(wet_error_of([&] { in_file.refuse_changed(); }),
              name + ": error: cannot read: the file changed while it was read");
}

}  // namespace
