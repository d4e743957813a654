#pragma once
// A raw trace's edges (PREFIX.edges), in event order, walked in passes
// (raw_records.hpp): 16 bytes an edge, the largest of the raw files' parts
// after the events, never held whole by `wet build`.

#include <cstddef>
#include <cstdint>

#include <tcgen/wet/raw_trace.hpp>
#include "runtime/byte_order.hpp"
#include "wet/format/raw_records.hpp"

namespace tcgen::wet {

struct EdgeRecords {
    using Record = RawEdge;
    static constexpr std::size_t bytes = 16;
    static constexpr const char* magic = "WTD2";
    static constexpr const char* held_name = "raw.edges";
    static RawEdge decode(const std::uint8_t* record) {
        return RawEdge{tcgen_runtime::load_le32(record), tcgen_runtime::load_le32(record + 4),
                       tcgen_runtime::load_le32(record + 8), tcgen_runtime::load_le32(record + 12)};
    }
    static std::uint64_t digest(std::uint64_t hash, const RawEdge& edge) {
        constexpr std::uint64_t prime = 0x100000001B3;
        hash = (hash ^ edge.use ^ (std::uint64_t{edge.def} << 32)) * prime;
        return (hash ^ edge.t_use ^ (std::uint64_t{edge.t_def} << 32)) * prime;
    }
};

class RawEdges : public RawRecords<EdgeRecords> {
public:
    using RawRecords::RawRecords;
    static constexpr std::size_t piece_edges = piece_records;
};

}  // namespace tcgen::wet
