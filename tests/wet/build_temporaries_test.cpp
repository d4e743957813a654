// The build's temporary files: the defs' questions grouped by store
// (AsksByNode) and each edge's def grouped by load (DefsByLoad), through a
// temporary file against the same through memory, and a temporary file's
// refusals (a write beyond the size limit, a read
// beyond what was written), one line each, with nothing left behind. And
// the raw edges the build walks in passes over their file (RawEdges): the
// same edges as held, and a file changed between passes refused.

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <tcgen/wet/raw_trace.hpp>
#include "runtime/byte_order.hpp"
#include "wet/format/raw_edges.hpp"
#include "wet/labels/asks_by_node.hpp"
#include "wet/labels/defs_by_load.hpp"
#include "wet/labels/temporary_file.hpp"
#include "wet_error_of.hpp"

namespace {

using tcgen::wet::DefAsk;
using tcgen::wet::DefsByLoad;
using tcgen::wet::EdgeDef;
using tcgen::wet::RawEdge;
using tcgen::wet::RawEdges;
using tcgen::wet::TemporaryFile;
using tcgen_test::wet_error_of;

struct Directory {
    std::string path;
    explicit Directory(const std::string& name) : path(testing::TempDir() + name + "/") {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~Directory() { std::filesystem::remove_all(path); }
    std::set<std::string> listing() const {
        std::set<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(path)) {
            names.insert(entry.path().filename().string());
        }
        return names;
    }
};

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
// store at a time as the build adds them; read back whole and in windows,
// short runs (read whole) and long ones (searched) alike.
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
    for (std::size_t store = 0; store < nodes; ++store) {
        std::vector<std::pair<std::uint32_t, EdgeDef>> copy = by_store[store];
        in_memory.add_store(copy);
        in_file.add_store(by_store[store]);
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
