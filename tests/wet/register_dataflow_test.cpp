// Register dependences (the blocks' register dataflow, PREFIX.regs): slices
// of a synthetic run with a random dataflow against a naive reference over
// the raw records, built and loaded, over a flow long enough for several of
// the flow index's segments (a slot written only at the start is found
// across them); .regs read back as written; forged .regs files and DFLW
// sections refused with one line naming the place.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <tcgen/wet.hpp>

#include "raw_lookups.hpp"
#include "synthetic_wet.hpp"
#include "test_directory.hpp"
#include "tests/test_scale.hpp"
#include "wet/dependences/dataflow.hpp"
#include "wet_file_bytes.hpp"

namespace {

using tcgen::wet::RawDataflow;
using tcgen::wet::RawTrace;
using tcgen::wet::WetError;
using tcgen::wet::WholeExecutionTrace;

RawTrace trace_with_registers(unsigned iterations, std::uint64_t seed) {
    RawTrace raw = synthetic_wet::make_trace(iterations, seed);
    raw.dataflow = synthetic_wet::random_dataflow(raw, seed + 1);
    return raw;
}

using Row = std::tuple<std::uint32_t, char, std::uint64_t, unsigned>;  // t, kind, pc, slot

// The slice by its definition (docs/wet.md, "Slices"), every item a set
// entry, every register read answered by a table of the latest write of
// each slot before each t.
std::vector<Row> reference_slice(const RawTrace& raw, std::uint64_t pc, std::uint32_t start) {
    const RawDataflow& dataflow = raw.dataflow;
    const std::vector<std::uint32_t> parents = raw_lookups::control_parents(raw);
    const auto executed = raw_lookups::executed(raw);
    auto def = raw_lookups::defs(raw);
    constexpr std::uint32_t slots = 8;
    // writer[t][slot]: (t', op) of the latest write before t; t' = 0: none.
    std::vector<std::array<std::pair<std::uint32_t, std::uint32_t>, slots>> writer(raw.flow.size() + 1);
    for (std::uint32_t t = 1; t < raw.flow.size(); ++t) {
        writer[t + 1] = writer[t];
        const std::uint32_t block = raw.flow[t - 1];
        for (std::uint32_t at = dataflow.first_write[block]; at < dataflow.first_write[block + 1]; ++at) {
            writer[t + 1][dataflow.writes[at].slot] = {t, dataflow.writes[at].op};
        }
    }
    const auto op_of_node = [&](std::uint32_t node) {
        const std::uint32_t block = raw.nodes[node].block;
        for (std::uint32_t op = dataflow.first_op[block];; ++op) {
            if (dataflow.ops[op].kind != 'R' && dataflow.ops[op].kind != 'B' && dataflow.ops[op].what == node) {
                return op - dataflow.first_op[block];
            }
        }
    };
    const auto op_at = [&](std::uint32_t t, std::uint32_t op) {
        return dataflow.ops[dataflow.first_op[raw.flow[t - 1]] + op];
    };
    const auto exists = [&](std::uint32_t t, std::uint32_t op) {
        const auto raw_op = op_at(t, op);
        return raw_op.kind == 'R' || raw_op.kind == 'B' ||
               executed.count({static_cast<std::uint32_t>(raw_op.what), t}) != 0;
    };
    std::set<std::pair<std::uint32_t, std::uint32_t>> items;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> work;
    const auto add = [&](std::uint32_t t, std::uint32_t op) {
        if (exists(t, op) && items.insert({t, op}).second) {
            work.push_back({t, op});
        }
    };
    // The start: pc's memory accesses at `start`, or, for an instruction
    // with none, its register writes and branch in the block run at `start`.
    const bool accesses_memory =
        std::any_of(raw.nodes.begin(), raw.nodes.end(), [&](const tcgen::wet::RawNode& node) { return node.pc == pc; });
    for (std::uint32_t node = 0; node < raw.nodes.size(); ++node) {
        if (raw.nodes[node].pc == pc && executed.count({node, start}) != 0) {
            add(start, op_of_node(node));
        }
    }
    const std::uint32_t start_block = raw.flow[start - 1];
    for (std::uint32_t op = dataflow.first_op[start_block]; !accesses_memory && op < dataflow.first_op[start_block + 1];
         ++op) {
        if ((dataflow.ops[op].kind == 'R' || dataflow.ops[op].kind == 'B') && dataflow.ops[op].what == pc) {
            add(start, op - dataflow.first_op[start_block]);
        }
    }
    while (!work.empty()) {
        const auto [t, op] = work.back();
        work.pop_back();
        if (parents[t - 1] != 0) {
            const std::uint32_t parent_block = raw.flow[parents[t - 1] - 1];
            add(parents[t - 1], dataflow.first_op[parent_block + 1] - dataflow.first_op[parent_block] - 1);
        }
        const std::uint32_t index = dataflow.first_op[raw.flow[t - 1]] + op;
        for (std::uint32_t at = dataflow.first_source[index]; at < dataflow.first_source[index + 1]; ++at) {
            const auto& source = dataflow.sources[at];
            if (source.from == 'O') {
                add(t, source.index);
            } else if (source.index < slots && writer[t][source.index].first != 0) {
                add(writer[t][source.index].first, writer[t][source.index].second);
            }
        }
        const auto raw_op = op_at(t, op);
        if (raw_op.kind == 'L' && def.count({static_cast<std::uint32_t>(raw_op.what), t}) != 0) {
            const auto [def_node, t_def] = def[{static_cast<std::uint32_t>(raw_op.what), t}];
            add(t_def, op_of_node(def_node));
        }
    }
    std::vector<Row> rows;
    for (const auto& [t, op] : items) {
        const auto raw_op = op_at(t, op);
        if (raw_op.kind == 'B') {
            rows.emplace_back(t, 'B', raw.blocks[raw.flow[t - 1]].pc, 0);
        } else if (raw_op.kind == 'R') {
            rows.emplace_back(t, 'R', raw_op.what, 0);
        } else {
            const auto& node = raw.nodes[raw_op.what];
            rows.emplace_back(t, node.access, node.pc, node.slot);
        }
    }
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b)
                                                : std::make_tuple(std::get<2>(a), std::get<1>(a), std::get<3>(a)) <
                                                      std::make_tuple(std::get<2>(b), std::get<1>(b), std::get<3>(b));
    });
    return rows;
}

std::vector<Row> rows_of(const std::vector<tcgen::wet::SliceItem>& items) {
    std::vector<Row> rows;
    for (const auto& item : items) {
        rows.emplace_back(item.t, item.kind, item.pc, item.slot);
    }
    return rows;
}

// Slices at `per_pc` instances evenly spread from first to last of every
// pc (or every `pc_step`th, but all those in several blocks), built and
// loaded, against the reference.
void check_slices(const RawTrace& raw, std::size_t per_pc, std::size_t pc_step = 1) {
    WholeExecutionTrace built = WholeExecutionTrace::build(raw);
    ASSERT_TRUE(built.traced_dataflow());
    const std::vector<std::uint8_t> bytes = built.to_bytes();
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "loaded.wet");
    ASSERT_TRUE(loaded.traced_dataflow());
    std::set<std::uint64_t> pcs;
    for (const auto& node : raw.nodes) {
        pcs.insert(node.pc);
    }
    // pc's slices at `per_pc` instances spread over its timestamps `times`;
    // how many of their items are register writes.
    const auto compare = [&](std::uint64_t pc, const std::vector<std::uint32_t>& times) {
        std::size_t register_items = 0;
        for (std::size_t step = 0; step < per_pc; ++step) {
            const std::size_t instance = 1 + (times.size() - 1) * step / std::max<std::size_t>(per_pc - 1, 1);
            const std::vector<Row> expected = reference_slice(raw, pc, times[instance - 1]);
            EXPECT_EQ(rows_of(built.backward_slice(pc, instance)), expected) << "pc " << pc << " instance " << instance;
            EXPECT_EQ(rows_of(loaded.backward_slice(pc, instance)), expected)
                << "pc " << pc << " instance " << instance;
            register_items +=
                std::count_if(expected.begin(), expected.end(), [](const Row& row) { return std::get<1>(row) == 'R'; });
        }
        return register_items;
    };
    std::size_t register_items = 0;
    std::size_t nth = 0;
    for (const std::uint64_t pc : pcs) {
        if (nth++ % pc_step == 0) {
            register_items += compare(pc, built.instances(pc));
        }
    }
    EXPECT_GT(register_items, 0u);  // the slices went through registers

    // From instructions that access no memory: register writes and branches,
    // at every execution of the blocks that hold them.
    std::map<std::uint64_t, std::set<std::uint32_t>> blocks_of_pc;
    for (std::uint32_t block = 0; block + 1 < raw.dataflow.first_op.size(); ++block) {
        for (std::uint32_t op = raw.dataflow.first_op[block]; op < raw.dataflow.first_op[block + 1]; ++op) {
            const auto& raw_op = raw.dataflow.ops[op];
            if ((raw_op.kind == 'R' || raw_op.kind == 'B') && pcs.count(raw_op.what) == 0) {
                blocks_of_pc[raw_op.what].insert(block);
            }
        }
    }
    std::size_t register_starts = 0;  // 1 per pc compared, 2 if it is in several blocks
    std::size_t compared_pcs = 0;
    nth = 0;
    for (const auto& [pc, blocks] : blocks_of_pc) {
        if (blocks.size() == 1 && nth++ % pc_step != 0) {
            continue;  // every pc of several blocks, every `pc_step`th of one
        }
        std::vector<std::uint32_t> times;
        for (std::uint32_t t = 1; t <= raw.flow.size(); ++t) {
            if (blocks.count(raw.flow[t - 1]) != 0) {
                times.push_back(t);
            }
        }
        if (times.empty()) {
            EXPECT_THROW(built.backward_slice(pc, 1), tcgen::wet::WetError) << "pc " << pc;
            continue;
        }
        EXPECT_THROW(built.backward_slice(pc, times.size() + 1), tcgen::wet::WetError) << "pc " << pc;
        compare(pc, times);
        register_starts += blocks.size() > 1 ? 2 : 1;
        ++compared_pcs;
    }
    EXPECT_GT(register_starts, compared_pcs);  // some pcs in several blocks
}

TEST(RegisterDataflow, SlicesFollowRegistersAsTheReferenceDoes) {
    check_slices(trace_with_registers(300, 5), 3);
}

// Over 65,536 timestamps: the flow index has several segments, and slot 7
// (written by the entry block only) is found by skipping all but the first.
TEST(RegisterDataflow, SlicesOverSeveralSegmentsOfTheFlow) {
    const RawTrace raw = trace_with_registers(10000, 9);
    ASSERT_GT(raw.flow.size(), 65536u);
    check_slices(raw, 2, tcgen_test::under_sanitizers ? 3 : 1);
}

// A slice walk hands out the slice a timestamp at a time, latest first, the
// same items as backward_slice whatever else runs between its steps; a
// window's slice is the whole slice's items in it.
TEST(RegisterDataflow, SliceWalksHandOutTheSameSliceATimestampAtATime) {
    const RawTrace raw = trace_with_registers(300, 5);
    WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
    std::set<std::uint64_t> pc_set;
    for (const auto& node : raw.nodes) {
        pc_set.insert(node.pc);
    }
    const std::vector<std::uint64_t> pcs(pc_set.begin(), pc_set.end());
    std::size_t checked = 0;
    // Every pair of pcs; under the sanitizers every fourth pair (the step is
    // what costs there, not the checks).
    const std::size_t step = tcgen_test::under_sanitizers ? 8 : 2;
    for (std::size_t at = 0; at + 1 < pcs.size(); at += step) {
        const std::uint64_t pc = pcs[at];
        const std::uint64_t other_pc = pcs[at + 1];
        const std::uint64_t instance = wet.instance_count(pc);
        const std::uint64_t other_instance = (wet.instance_count(other_pc) + 1) / 2;
        const std::vector<Row> whole = rows_of(wet.backward_slice(pc, instance));
        const std::vector<Row> other_whole = rows_of(wet.backward_slice(other_pc, other_instance));

        // Two walks stepped in turn, with other queries between their steps.
        auto walk = wet.slice_walk(pc, instance);
        auto other_walk = wet.slice_walk(other_pc, other_instance);
        std::vector<Row> walked, other_walked;
        std::vector<tcgen::wet::SliceItem> items, other_items;
        std::uint32_t previous_t = UINT32_MAX;
        for (bool more = true, other_more = true; more || other_more;) {
            if (more && (more = walk.next(items))) {
                ASSERT_FALSE(items.empty());
                for (const auto& item : items) {
                    ASSERT_EQ(item.t, items.front().t) << "one timestamp per step";
                }
                ASSERT_LT(items.front().t, previous_t) << "latest first";
                previous_t = items.front().t;
                const auto rows = rows_of(items);
                walked.insert(walked.end(), rows.begin(), rows.end());
                wet.accesses(other_pc);
                wet.block_at(1);
            }
            if (other_more && (other_more = other_walk.next(other_items))) {
                const auto rows = rows_of(other_items);
                other_walked.insert(other_walked.end(), rows.begin(), rows.end());
            }
        }
        EXPECT_EQ(walked, whole) << "pc " << pc;
        EXPECT_EQ(other_walked, other_whole) << "pc " << other_pc;
        EXPECT_EQ(walk.items_found(), whole.size());
        EXPECT_FALSE(walk.next(items));  // done stays done
        EXPECT_TRUE(items.empty());

        // Windows: from, until and count cut the whole slice's rows.
        if (whole.size() < 3) {
            continue;
        }
        const std::uint32_t newest = std::get<0>(whole.front());
        const std::uint32_t oldest = std::get<0>(whole.back());
        for (const std::size_t count : {std::size_t{1}, whole.size() / 2, SIZE_MAX}) {
            tcgen::wet::SliceWindow window;
            window.from = newest - (newest - oldest) / 4;
            window.until = oldest + (newest - oldest) / 3;
            window.count = count;
            std::vector<Row> expected;
            for (const Row& row : whole) {
                if (std::get<0>(row) <= window.from && std::get<0>(row) >= window.until && expected.size() < count) {
                    expected.push_back(row);
                }
            }
            EXPECT_EQ(rows_of(wet.backward_slice(pc, instance, window)), expected)
                << "pc " << pc << " from " << window.from << " until " << window.until << " count " << count;
        }
        ++checked;
    }
    EXPECT_GT(checked, tcgen_test::under_sanitizers ? 1u : 3u);
}

TEST(RegisterDataflow, ARunWithoutRegsSlicesAsBefore) {
    RawTrace raw = synthetic_wet::make_trace(50, 3);
    WholeExecutionTrace built = WholeExecutionTrace::build(raw);
    EXPECT_FALSE(built.traced_dataflow());
    const auto bytes = built.to_bytes();
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "loaded.wet");
    EXPECT_FALSE(loaded.traced_dataflow());
    // The stand-in, explicitly traced, slices the same.
    raw.dataflow = tcgen::wet::stand_in_dataflow(raw.blocks, raw.nodes);
    WholeExecutionTrace explicit_wet = WholeExecutionTrace::build(raw);
    EXPECT_TRUE(explicit_wet.traced_dataflow());
    for (const auto& node : raw.nodes) {
        const std::vector<std::uint32_t> times = built.instances(node.pc);
        if (times.empty()) {
            continue;
        }
        const std::size_t last = times.size();
        EXPECT_EQ(rows_of(loaded.backward_slice(node.pc, last)), rows_of(explicit_wet.backward_slice(node.pc, last)));
        EXPECT_EQ(rows_of(built.backward_slice(node.pc, last)), reference_slice(raw, node.pc, times.back()));
    }
}

class RegsFile : public ::testing::Test {
protected:
    void SetUp() override {
        prefix_ = tcgen_test::test_file_path("regs_file_test");
        raw_ = trace_with_registers(20, 4);
        synthetic_wet::write_trace(raw_, prefix_);
        std::FILE* file = std::fopen((prefix_ + ".regs").c_str(), "rb");
        ASSERT_NE(file, nullptr);
        int c = 0;
        while ((c = std::fgetc(file)) != EOF) {
            regs_.push_back(static_cast<char>(c));
        }
        std::fclose(file);
    }
    // read_raw_trace's error after .regs is replaced by `regs`.
    std::string error_with(const std::string& regs) {
        synthetic_wet::write_file(prefix_ + ".regs", regs);
        try {
            tcgen::wet::read_raw_trace(prefix_);
        } catch (const WetError& error) {
            return error.what();
        }
        return "accepted";
    }
    // The offset of record `index` (16 bytes each after the magic).
    static std::size_t record(std::size_t index) { return 4 + 16 * index; }

    std::string prefix_;
    RawTrace raw_;
    std::string regs_;
};

TEST_F(RegsFile, ReadsBackAsWritten) {
    const RawTrace read = tcgen::wet::read_raw_trace(prefix_);
    EXPECT_EQ(read.dataflow.first_op, raw_.dataflow.first_op);
    EXPECT_EQ(read.dataflow.first_source, raw_.dataflow.first_source);
    EXPECT_EQ(read.dataflow.first_write, raw_.dataflow.first_write);
    ASSERT_EQ(read.dataflow.ops.size(), raw_.dataflow.ops.size());
    for (std::size_t op = 0; op < read.dataflow.ops.size(); ++op) {
        EXPECT_EQ(read.dataflow.ops[op].kind, raw_.dataflow.ops[op].kind);
        EXPECT_EQ(read.dataflow.ops[op].what, raw_.dataflow.ops[op].what);
    }
    ASSERT_EQ(read.dataflow.sources.size(), raw_.dataflow.sources.size());
    for (std::size_t at = 0; at < read.dataflow.sources.size(); ++at) {
        EXPECT_EQ(read.dataflow.sources[at].from, raw_.dataflow.sources[at].from);
        EXPECT_EQ(read.dataflow.sources[at].index, raw_.dataflow.sources[at].index);
    }
}

TEST_F(RegsFile, ForgedOrTruncatedFilesAreRefused) {
    const std::string file = prefix_ + ".regs: error: ";
    EXPECT_EQ(error_with("WTR2" + regs_.substr(4)), file + "not a WET regs file (magic WTR1 expected)");
    EXPECT_EQ(
        error_with(regs_.substr(0, regs_.size() - 3)),
        file + "truncated or corrupt: " + std::to_string(regs_.size() - 3) + " bytes is not 4 + a multiple of 16");
    std::string forged = regs_;
    forged[record(0) + 4] = 1;  // block 0's header names block 1, whose own group follows
    EXPECT_NE(error_with(forged).find(": block 1 has a second group"), std::string::npos) << error_with(forged);
    forged = regs_;
    forged[record(1)] = 'W';
    EXPECT_EQ(error_with(forged), file + "record 1: an op expected ('O')");
    forged = regs_;
    forged[record(0) + 8] = 100;  // block 0 claims 100 ops
    EXPECT_NE(error_with(forged).find(file + "record "), std::string::npos);
    // Block 0's first op names a node of another block.
    forged = regs_;
    std::size_t first_node_op = 1;
    while (regs_[record(first_node_op) + 1] != 'L' && regs_[record(first_node_op) + 1] != 'S') {
        first_node_op += 1 + static_cast<unsigned char>(regs_[record(first_node_op) + 2]);
    }
    forged[record(first_node_op) + 8] = 7;
    EXPECT_NE(error_with(forged).find("is not the block's next"), std::string::npos) << error_with(forged);
    // A write that names the block's end.
    RawTrace bad = raw_;
    bad.dataflow.writes[0].op = bad.dataflow.first_op[1] - bad.dataflow.first_op[0] - 1;
    synthetic_wet::write_trace(bad, prefix_);
    EXPECT_EQ(error_with([&] {
                  std::string text;
                  std::FILE* in = std::fopen((prefix_ + ".regs").c_str(), "rb");
                  for (int c = 0; (c = std::fgetc(in)) != EOF;) {
                      text.push_back(static_cast<char>(c));
                  }
                  std::fclose(in);
                  return text;
              }()),
              file + "block 0: slot " + std::to_string(bad.dataflow.writes[0].slot) + " is written by op " +
                  std::to_string(bad.dataflow.writes[0].op) + ", not an instruction (R)");
    // A source that is not earlier, in memory.
    bad = raw_;
    bad.dataflow.sources.assign(bad.dataflow.sources.size(), tcgen::wet::RawSource{'O', 1000});
    try {
        WholeExecutionTrace::build(bad);
        ADD_FAILURE() << "a source after its op was accepted";
    } catch (const WetError& error) {
        EXPECT_NE(std::string(error.what()).find("raw.regs: error: block "), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("a source is not an earlier op"), std::string::npos) << error.what();
    }
}

TEST(RegisterDataflow, AForgedSectionIsRefused) {
    const RawTrace raw = trace_with_registers(20, 6);
    std::vector<std::uint8_t> bytes = WholeExecutionTrace::build(raw).to_bytes();
    const std::size_t section = wet_file_bytes::payload_of(bytes, "DFLW");
    ASSERT_NE(section, 0u);
    ASSERT_EQ(bytes[section], 1);  // traced
    // A decoded size far beyond what its frame could hold: refused before allocating.
    std::vector<std::uint8_t> forged = bytes;
    forged[section + 1 + 6] = 0x40;
    wet_file_bytes::reseal(forged);
    try {
        WholeExecutionTrace::from_bytes(forged.data(), forged.size(), "forged.wet");
        ADD_FAILURE() << "a forged size was accepted";
    } catch (const WetError& error) {
        EXPECT_NE(std::string(error.what()).find("forged.wet: error: section DFLW: the register dataflow claims "),
                  std::string::npos)
            << error.what();
    }
    // A byte of the frame changed: the frame does not decode, or the dataflow fails its checks.
    forged = bytes;
    forged[section + 1 + 16 + 20] ^= 0x55;
    wet_file_bytes::reseal(forged);
    try {
        WholeExecutionTrace::from_bytes(forged.data(), forged.size(), "forged.wet");
        ADD_FAILURE() << "a corrupt frame was accepted";
    } catch (const WetError& error) {
        EXPECT_EQ(std::string(error.what()).rfind("forged.wet: error: ", 0), 0u) << error.what();
    }
}

// The decoded size a frame may claim: up to 1 MiB + 32 times the frame,
// one line naming the file past it (a 652 KB file once made a load hold
// 530 MB under the 1024 times bound this replaced).
TEST(RegisterDataflow, TheDecodedSizeIsBoundedByTheFrame) {
    const std::vector<std::uint8_t> bytes = WholeExecutionTrace::build(trace_with_registers(20, 6)).to_bytes();
    const std::size_t section = wet_file_bytes::payload_of(bytes, "DFLW");
    const std::uint64_t frame = wet_file_bytes::get_u64(bytes, section + 9);
    const auto message = [&](std::uint64_t claimed) -> std::string {
        const std::vector<std::uint8_t> forged = wet_file_bytes::with_dataflow_claiming(bytes, claimed);
        try {
            WholeExecutionTrace::from_bytes(forged.data(), forged.size(), "forged.wet");
        } catch (const WetError& error) {
            return error.what();
        }
        return "";
    };
    const std::uint64_t bound = tcgen::wet::max_dataflow_decoded(frame);
    EXPECT_EQ(bound, (std::uint64_t{1} << 20) + 32 * frame);
    EXPECT_EQ(message(bound + 1), "forged.wet: error: section DFLW: the register dataflow claims " +
                                      std::to_string(bound + 1) + " bytes from a frame of " + std::to_string(frame) +
                                      ", more than 1 MiB + 32 times the frame");
    // At the bound the claim is allowed, and the frame does not decode to it.
    EXPECT_EQ(message(bound), "forged.wet: error: section DFLW: the register dataflow's frame is corrupt");
}

// `count` blocks alike, as generated code makes them, each run once: two
// instructions writing registers (the second reading the first) and a jump.
RawTrace alike_blocks(std::uint32_t count) {
    RawTrace raw;
    tcgen::wet::RawDataflow& dataflow = raw.dataflow;
    dataflow.first_op.push_back(0);
    dataflow.first_source.push_back(0);
    dataflow.first_write.push_back(0);
    for (std::uint32_t block = 0; block < count; ++block) {
        const std::uint64_t pc = 0x100000 + 16 * std::uint64_t{block};
        raw.blocks.push_back(tcgen::wet::RawBlock{pc, 16, 3, 'J'});
        raw.flow.push_back(block);
        dataflow.ops.push_back({'R', pc});
        dataflow.sources.push_back({'G', 1});
        dataflow.first_source.push_back(static_cast<std::uint32_t>(dataflow.sources.size()));
        dataflow.ops.push_back({'R', pc + 4});
        dataflow.sources.push_back({'O', 0});
        dataflow.first_source.push_back(static_cast<std::uint32_t>(dataflow.sources.size()));
        dataflow.ops.push_back({'B', pc + 8});
        dataflow.sources.push_back({'O', 1});
        dataflow.first_source.push_back(static_cast<std::uint32_t>(dataflow.sources.size()));
        dataflow.first_op.push_back(static_cast<std::uint32_t>(dataflow.ops.size()));
        dataflow.writes.push_back({2, 1});
        dataflow.first_write.push_back(static_cast<std::uint32_t>(dataflow.writes.size()));
    }
    return raw;
}

// Columns that shrink further than the bound lets a frame claim (blocks
// alike): wet build pads the frame, so that what it writes loads and slices
// as built.
TEST(RegisterDataflow, ColumnsThatShrinkFurtherArePaddedAndLoad) {
    // Past the 1 MiB the bound starts from: 58 column bytes a block.
    const std::uint32_t blocks = tcgen_test::under_sanitizers ? 24000 : 40000;
    const RawTrace raw = alike_blocks(blocks);
    WholeExecutionTrace built = WholeExecutionTrace::build(raw);
    const std::vector<std::uint8_t> bytes = built.to_bytes();
    const std::size_t section = wet_file_bytes::payload_of(bytes, "DFLW");
    const std::uint64_t decoded = wet_file_bytes::get_u64(bytes, section + 1);
    const std::uint64_t frame = wet_file_bytes::get_u64(bytes, section + 9);
    EXPECT_GT(decoded, tcgen::wet::max_dataflow_decoded(1000)) << "the columns do not shrink past the bound";
    EXPECT_LE(decoded, tcgen::wet::max_dataflow_decoded(frame));
    WholeExecutionTrace loaded = WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "padded.wet");
    EXPECT_EQ(loaded.to_bytes(), bytes);
    for (const std::uint32_t block : {0u, blocks / 2, blocks - 1}) {
        const std::uint64_t pc = raw.blocks[block].pc + 4;
        const auto items = [](const std::vector<tcgen::wet::SliceItem>& slice) {
            std::vector<std::tuple<std::uint32_t, char, std::uint64_t>> rows;
            for (const auto& item : slice) {
                rows.emplace_back(item.t, item.kind, item.pc);
            }
            return rows;
        };
        const auto expected = items(built.backward_slice(pc, 1));
        EXPECT_EQ(items(loaded.backward_slice(pc, 1)), expected) << "block " << block;
        EXPECT_EQ(expected.size(), 2u) << "block " << block;
    }
}

}  // namespace
