// The blocks' register dataflow: PREFIX.regs read, the stand-in for a trace
// without it, the checks, and the saved form (dataflow.hpp).

#include "wet/dependences/dataflow.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/byte_order.hpp"
#include "runtime/zstd_codec.hpp"
#include "wet/labels/byte_planes.hpp"
#include "wet/labels/grouping.hpp"

namespace tcgen::wet {
namespace {

using tcgen_runtime::load_le16;
using tcgen_runtime::load_le32;
using tcgen_runtime::load_le64;

constexpr std::size_t regs_record_bytes = 16;
constexpr int dataflow_zstd_level = 19;
// Tables of 2^21 and 2^20 entries (8 and 4 MiB) instead of level 19's 2^24
// and 2^22: on a python3 run's 3.3 MB of columns the frame is 62 bytes
// (0.02 %) larger, and the build's peak memory, reached while coding it,
// 131 -> 95 MB.
constexpr int dataflow_zstd_chain_log = 21;
constexpr int dataflow_zstd_hash_log = 20;
// A zstd skippable frame: magic (any of 0x184D2A50 .. 0x184D2A5F), u32 size, then that many bytes.
constexpr std::uint32_t skippable_frame_magic = 0x184D2A50;
constexpr std::uint64_t skippable_frame_header = 8;

// Block b's nodes are nodes_by_block[first[b] .. first[b + 1]), by id.
// The nodes of each block, ids increasing (nodes naming no block left out).
Grouping<std::uint32_t> nodes_by_block(std::size_t block_count, const std::vector<RawNode>& nodes) {
    return group_items<std::uint32_t>(nodes.size(), block_count, [&](std::size_t node) { return nodes[node].block; });
}

std::string block_op(std::size_t block, std::size_t op) {
    return "block " + std::to_string(block) + ": op " + std::to_string(op) + ": ";
}

bool is_op_kind(char kind) {
    return kind == 'L' || kind == 'S' || kind == 'R' || kind == 'B';
}

}  // namespace

RawDataflow stand_in_dataflow(const std::vector<RawBlock>& blocks, const std::vector<RawNode>& nodes) {
    const std::size_t block_count = blocks.size();
    const Grouping<std::uint32_t> by_block = nodes_by_block(block_count, nodes);
    RawDataflow dataflow;
    dataflow.first_op.push_back(0);
    dataflow.first_source.push_back(0);
    dataflow.first_write.assign(block_count + 1, 0);
    std::vector<std::uint32_t> loads;  // of the block so far, as op indexes
    for (std::size_t block = 0; block < block_count; ++block) {
        loads.clear();
        for (std::uint32_t at = by_block.first[block]; at < by_block.first[block + 1]; ++at) {
            const std::uint32_t node = by_block.order[at];
            const char access = nodes[node].access;
            if (access == 'S') {
                for (const std::uint32_t load : loads) {
                    dataflow.sources.push_back(RawSource{'O', load});
                }
            }
            dataflow.ops.push_back(RawOp{access, node});
            dataflow.first_source.push_back(static_cast<std::uint32_t>(dataflow.sources.size()));
            if (access == 'L') {
                loads.push_back(at - by_block.first[block]);
            }
        }
        for (const std::uint32_t load : loads) {
            dataflow.sources.push_back(RawSource{'O', load});
        }
        dataflow.ops.push_back(RawOp{'B', blocks[block].pc});
        dataflow.first_source.push_back(static_cast<std::uint32_t>(dataflow.sources.size()));
        dataflow.first_op.push_back(static_cast<std::uint32_t>(dataflow.ops.size()));
    }
    return dataflow;
}

void check_dataflow(const RawDataflow& dataflow, const std::vector<RawBlock>& blocks, const std::vector<RawNode>& nodes,
                    const std::string& file) {
    const auto fail = [&](const std::string& what) { throw WetError(file, what); };
    const auto is_csr = [](const std::vector<std::uint32_t>& first, std::size_t rows, std::size_t total) {
        if (first.size() != rows + 1 || first.front() != 0 || first.back() != total) {
            return false;
        }
        for (std::size_t row = 0; row < rows; ++row) {
            if (first[row] > first[row + 1]) {
                return false;
            }
        }
        return true;
    };
    if (!is_csr(dataflow.first_op, blocks.size(), dataflow.ops.size()) ||
        !is_csr(dataflow.first_source, dataflow.ops.size(), dataflow.sources.size()) ||
        !is_csr(dataflow.first_write, blocks.size(), dataflow.writes.size())) {
        fail("the register dataflow's tables do not cover its " + std::to_string(blocks.size()) + " blocks");
    }
    const Grouping<std::uint32_t> by_block = nodes_by_block(blocks.size(), nodes);
    for (std::size_t block = 0; block < blocks.size(); ++block) {
        const std::uint32_t first = dataflow.first_op[block];
        const std::uint32_t count = dataflow.first_op[block + 1] - first;
        if (count == 0 || dataflow.ops[first + count - 1].kind != 'B') {
            fail("block " + std::to_string(block) + ": its last op is not its end (B)");
        }
        std::uint32_t next_node = by_block.first[block];
        for (std::uint32_t op = 0; op < count; ++op) {
            const RawOp& raw_op = dataflow.ops[first + op];
            if (!is_op_kind(raw_op.kind) || (raw_op.kind == 'B' && op + 1 != count)) {
                fail(block_op(block, op) + "kind is not L, S, R or B (last)");
            }
            if (raw_op.kind == 'L' || raw_op.kind == 'S') {
                if (next_node == by_block.first[block + 1] || raw_op.what != by_block.order[next_node] ||
                    nodes[by_block.order[next_node]].access != raw_op.kind) {
                    fail(block_op(block, op) + "node " + std::to_string(raw_op.what) + " is not the block's next " +
                         (raw_op.kind == 'L' ? "load" : "store"));
                }
                ++next_node;
            } else if (raw_op.what < blocks[block].pc || raw_op.what - blocks[block].pc >= blocks[block].bytes) {
                fail(block_op(block, op) + "its instruction is outside the block");
            }
            for (std::uint32_t at = dataflow.first_source[first + op]; at < dataflow.first_source[first + op + 1];
                 ++at) {
                const RawSource& source = dataflow.sources[at];
                if (source.from == 'O' ? source.index >= op : source.from != 'G' || source.index > max_register_slot) {
                    fail(block_op(block, op) + "a source is not an earlier op (O) or a register slot (G) up to " +
                         std::to_string(max_register_slot));
                }
            }
        }
        if (next_node != by_block.first[block + 1]) {
            fail("block " + std::to_string(block) + ": node " + std::to_string(by_block.order[next_node]) +
                 " has no op");
        }
        for (std::uint32_t at = dataflow.first_write[block]; at < dataflow.first_write[block + 1]; ++at) {
            const RawWrite& write = dataflow.writes[at];
            if (write.slot > max_register_slot ||
                (at > dataflow.first_write[block] && write.slot <= dataflow.writes[at - 1].slot)) {
                fail("block " + std::to_string(block) + ": its writes are not by increasing slot up to " +
                     std::to_string(max_register_slot));
            }
            if (write.op >= count || dataflow.ops[first + write.op].kind != 'R') {
                fail("block " + std::to_string(block) + ": slot " + std::to_string(write.slot) + " is written by op " +
                     std::to_string(write.op) + ", not an instruction (R)");
            }
        }
    }
}

RawDataflow parse_regs_file(const std::vector<std::uint8_t>& bytes, std::size_t block_count, const std::string& file) {
    const auto fail = [&](const std::string& what) { throw WetError(file, what); };
    if (bytes.size() < 4 || std::memcmp(bytes.data(), "WTR1", 4) != 0) {
        fail("not a WET regs file (magic WTR1 expected)");
    }
    if ((bytes.size() - 4) % regs_record_bytes != 0) {
        fail("truncated or corrupt: " + std::to_string(bytes.size()) + " bytes is not 4 + a multiple of 16");
    }
    const std::size_t records = (bytes.size() - 4) / regs_record_bytes;
    const auto record = [&](std::size_t index) { return bytes.data() + 4 + index * regs_record_bytes; };
    // Each block's group, in the file's order; laid out by block at the end.
    struct Group {
        std::size_t first_record = 0;
        bool seen = false;
    };
    std::vector<Group> groups(block_count);
    std::size_t next = 0;
    const auto expect = [&](char type, const std::string& what) {
        if (next == records) {
            fail("truncated: record " + std::to_string(next) + " (" + what + ") is missing");
        }
        if (record(next)[0] != static_cast<std::uint8_t>(type)) {
            fail("record " + std::to_string(next) + ": " + what + " expected ('" + std::string(1, type) + "')");
        }
        return record(next++);
    };
    while (next < records) {
        const std::size_t header_record = next;
        const std::uint8_t* header = expect('K', "a block header");
        const std::uint32_t block = load_le32(header + 4);
        if (block >= block_count || groups[block].seen) {
            fail("record " + std::to_string(header_record) + ": block " + std::to_string(block) +
                 (block >= block_count ? " is not in the blocks file" : " has a second group"));
        }
        groups[block] = Group{header_record, true};
        const std::uint64_t ops = load_le32(header + 8);
        const std::uint64_t writes = load_le32(header + 12);
        if (ops + writes > records - next) {
            fail("record " + std::to_string(header_record) + ": block " + std::to_string(block) + " claims " +
                 std::to_string(ops) + " ops and " + std::to_string(writes) + " writes, more than the file holds");
        }
        for (std::uint64_t op = 0; op < ops; ++op) {
            const std::uint16_t sources = load_le16(expect('O', "an op") + 2);
            for (std::uint16_t source = 0; source < sources; ++source) {
                expect('F', "a source");
            }
        }
        for (std::uint64_t write = 0; write < writes; ++write) {
            expect('W', "a write");
        }
    }
    RawDataflow dataflow;
    dataflow.first_op.push_back(0);
    dataflow.first_source.push_back(0);
    dataflow.first_write.push_back(0);
    for (std::size_t block = 0; block < block_count; ++block) {
        if (!groups[block].seen) {
            fail("block " + std::to_string(block) + " has no group");
        }
        next = groups[block].first_record;
        const std::uint8_t* header = record(next++);
        const std::uint32_t ops = load_le32(header + 8);
        const std::uint32_t writes = load_le32(header + 12);
        for (std::uint32_t op = 0; op < ops; ++op) {
            const std::uint8_t* op_record = record(next++);
            dataflow.ops.push_back(RawOp{static_cast<char>(op_record[1]), load_le64(op_record + 8)});
            for (std::uint16_t source = 0, sources = load_le16(op_record + 2); source < sources; ++source) {
                const std::uint8_t* source_record = record(next++);
                dataflow.sources.push_back(
                    RawSource{static_cast<char>(source_record[1]), load_le32(source_record + 4)});
            }
            dataflow.first_source.push_back(static_cast<std::uint32_t>(dataflow.sources.size()));
        }
        for (std::uint32_t write = 0; write < writes; ++write) {
            const std::uint8_t* write_record = record(next++);
            dataflow.writes.push_back(RawWrite{load_le32(write_record + 4), load_le32(write_record + 8)});
        }
        dataflow.first_op.push_back(static_cast<std::uint32_t>(dataflow.ops.size()));
        dataflow.first_write.push_back(static_cast<std::uint32_t>(dataflow.writes.size()));
    }
    return dataflow;
}

void write_dataflow(ByteWriter& out, const RawDataflow& dataflow, const std::vector<RawBlock>& blocks) {
    // Columns, each alike from one record to the next.
    ByteWriter columns;
    for (std::size_t block = 0; block < blocks.size(); ++block) {
        columns.u32(dataflow.first_op[block + 1] - dataflow.first_op[block]);
    }
    for (std::size_t block = 0; block < blocks.size(); ++block) {
        columns.u32(dataflow.first_write[block + 1] - dataflow.first_write[block]);
    }
    for (const RawOp& op : dataflow.ops) {
        columns.u8(static_cast<std::uint8_t>(op.kind));
    }
    for (std::size_t op = 0; op < dataflow.ops.size(); ++op) {
        columns.u32(dataflow.first_source[op + 1] - dataflow.first_source[op]);
    }
    for (std::size_t block = 0; block < blocks.size(); ++block) {
        for (std::uint32_t op = dataflow.first_op[block]; op < dataflow.first_op[block + 1]; ++op) {
            if (dataflow.ops[op].kind == 'R' || dataflow.ops[op].kind == 'B') {
                columns.u32(static_cast<std::uint32_t>(dataflow.ops[op].what - blocks[block].pc));
            }
        }
    }
    for (const RawSource& source : dataflow.sources) {
        columns.u8(static_cast<std::uint8_t>(source.from));
    }
    for (const RawSource& source : dataflow.sources) {
        columns.u32(source.index);
    }
    for (const RawWrite& write : dataflow.writes) {
        columns.u32(write.slot);
    }
    for (const RawWrite& write : dataflow.writes) {
        columns.u32(write.op);
    }
    std::vector<std::uint8_t> frame =
        tcgen_runtime::zstd_frame(columns.data(), dataflow_zstd_level, dataflow_zstd_chain_log, dataflow_zstd_hash_log);
    // Columns alike from block to block (generated code) can shrink more
    // than a load accepts: a skippable frame after the data frame, which
    // zstd steps over, makes the bytes up.
    const std::uint64_t decoded = columns.data().size();
    if (decoded > max_dataflow_decoded(frame.size())) {
        const std::uint64_t needed = (decoded - dataflow_decoded_floor + dataflow_max_ratio - 1) / dataflow_max_ratio;
        const std::uint64_t padding = std::max<std::uint64_t>(needed - frame.size(), skippable_frame_header);
        ByteWriter skippable;
        skippable.u32(skippable_frame_magic);
        skippable.u32(static_cast<std::uint32_t>(padding - skippable_frame_header));
        frame.insert(frame.end(), skippable.data().begin(), skippable.data().end());
        frame.resize(frame.size() + static_cast<std::size_t>(padding - skippable_frame_header), 0);
    }
    out.u64(decoded);
    out.blob(frame);
}

RawDataflow read_dataflow(ByteReader& in, const std::vector<RawBlock>& blocks, const std::vector<RawNode>& nodes) {
    const std::uint64_t decoded_size = in.u64();
    const std::uint64_t frame_size = in.u64();
    const std::uint8_t* frame = in.bytes(frame_size);
    // A claim beyond what write_dataflow() lets a frame shrink to is a
    // forgery, refused before allocating.
    if (decoded_size > max_dataflow_decoded(frame_size)) {
        in.fail("the register dataflow claims " + std::to_string(decoded_size) + " bytes from a frame of " +
                std::to_string(frame_size) + ", more than 1 MiB + " + std::to_string(dataflow_max_ratio) +
                " times the frame");
    }
    std::vector<std::uint8_t> decoded(static_cast<std::size_t>(decoded_size));
    if (!tcgen_runtime::zstd_unframe(frame, static_cast<std::size_t>(frame_size), decoded.data(), decoded_size)) {
        in.fail("the register dataflow's frame is corrupt");
    }
    ByteReader columns(decoded.data(), decoded.size(), in.file(), "register dataflow");
    RawDataflow dataflow;
    const auto prefix_sums = [&](std::vector<std::uint32_t>& first, std::size_t rows, std::uint64_t bytes_each) {
        first.assign(rows + 1, 0);
        for (std::size_t row = 0; row < rows; ++row) {
            const std::uint64_t sum = std::uint64_t{first[row]} + columns.u32();
            // Each counted item takes `bytes_each` further bytes: no more than remain.
            if (sum > columns.remaining() / bytes_each) {
                columns.fail("counts more items than its bytes hold");
            }
            first[row + 1] = static_cast<std::uint32_t>(sum);
        }
    };
    prefix_sums(dataflow.first_op, blocks.size(), 1);
    prefix_sums(dataflow.first_write, blocks.size(), 8);
    dataflow.ops.resize(dataflow.first_op.back());
    for (RawOp& op : dataflow.ops) {
        op.kind = static_cast<char>(columns.u8());
    }
    prefix_sums(dataflow.first_source, dataflow.ops.size(), 5);
    const Grouping<std::uint32_t> by_block = nodes_by_block(blocks.size(), nodes);
    for (std::size_t block = 0; block < blocks.size(); ++block) {
        std::uint32_t next_node = by_block.first[block];
        for (std::uint32_t op = dataflow.first_op[block]; op < dataflow.first_op[block + 1]; ++op) {
            RawOp& raw_op = dataflow.ops[op];
            if (raw_op.kind == 'R' || raw_op.kind == 'B') {
                raw_op.what = blocks[block].pc + columns.u32();
            } else if (next_node < by_block.first[block + 1]) {
                raw_op.what = by_block.order[next_node++];
            } else {
                columns.fail("block " + std::to_string(block) + " has more memory ops than nodes");
            }
        }
    }
    dataflow.sources.resize(dataflow.first_source.back());
    for (RawSource& source : dataflow.sources) {
        source.from = static_cast<char>(columns.u8());
    }
    for (RawSource& source : dataflow.sources) {
        source.index = columns.u32();
    }
    dataflow.writes.resize(dataflow.first_write.back());
    for (RawWrite& write : dataflow.writes) {
        write.slot = columns.u32();
    }
    for (RawWrite& write : dataflow.writes) {
        write.op = columns.u32();
    }
    columns.expect_end();
    check_dataflow(dataflow, blocks, nodes, in.file());
    return dataflow;
}

}  // namespace tcgen::wet
