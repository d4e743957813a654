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
// frame's (a forged size cannot make it allocate more).
RawDataflow read_dataflow(ByteReader& in, const std::vector<RawBlock>& blocks, const std::vector<RawNode>& nodes);

}  // namespace tcgen::wet
