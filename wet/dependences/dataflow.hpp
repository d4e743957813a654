#pragma once
// A block's register dataflow (RawDataflow, <tcgen/wet/raw_trace.hpp>): read
// from PREFIX.regs (docs/wet-streams.md), and kept in the saved WET as one
// zstd frame of columns (docs/wet.md, "The .wet file").

#include <cstdint>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "common/byte_io.hpp"

namespace tcgen::wet {

// PREFIX.regs's bytes (magic and all) as a dataflow of `block_count` blocks,
// each op of a node naming it by id; checked for its record layout only
// (check_dataflow() checks the rest). `file` names it in the WetError thrown.
RawDataflow parse_regs_file(const std::vector<std::uint8_t>& bytes, std::size_t block_count, const std::string& file);

// The saved form: u64 decoded size, then one zstd frame of the columns.
// A node op's node is not saved: it is the block's next node.
void write_dataflow(ByteWriter& out, const RawDataflow& dataflow, const std::vector<RawBlock>& blocks);
// Reads and checks it (check_dataflow()); the decoded size is bounded by the
// frame's, max_dataflow_decoded() (a forged size cannot make it allocate more).
RawDataflow read_dataflow(ByteReader& in, const std::vector<RawBlock>& blocks, const std::vector<RawNode>& nodes);

// The most bytes a saved dataflow whose frame takes `frame_bytes` may decode
// to: 1 MiB + 32 times the frame. zstd shrinks the columns of real runs 5-13
// times (bzip2, gzip, xz, sort, sqlite3, python3, perl, cc1, cc1plus), 43
// times those of 4,000 generated functions alike; write_dataflow() pads a
// frame that shrinks them more, so that every file `wet build` writes loads.
// Decoding holds the columns and the dataflow made of them, at most 5 bytes
// a column byte: a hostile .wet of F bytes makes a load or a slice hold at
// most 5 MiB + 160 F (a 652 KB file once reached 530 MB under a 1024 times
// bound).
constexpr std::uint64_t dataflow_decoded_floor = std::uint64_t{1} << 20;
constexpr std::uint64_t dataflow_max_ratio = 32;
constexpr std::uint64_t max_dataflow_decoded(std::uint64_t frame_bytes) {
    return dataflow_decoded_floor + dataflow_max_ratio * frame_bytes;
}

}  // namespace tcgen::wet
