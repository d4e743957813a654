#pragma once
// A raw trace's control flow (PREFIX.flow: the block executed at each
// timestamp, in order) walked in passes (raw_records.hpp): 4 bytes a
// timestamp, never held whole by `wet build`.

#include <cstddef>
#include <cstdint>

#include "runtime/byte_order.hpp"
#include "wet/flow/flow_pass.hpp"
#include "wet/format/raw_records.hpp"

namespace tcgen::wet {

struct FlowRecords {
    using Record = std::uint32_t;
    static constexpr std::size_t bytes = 4;
    static constexpr const char* magic = "WTF1";
    static constexpr const char* held_name = "raw.flow";
    static std::uint32_t decode(const std::uint8_t* record) { return tcgen_runtime::load_le32(record); }
    static std::uint64_t digest(std::uint64_t hash, std::uint32_t block) { return (hash ^ block) * 0x100000001B3; }
};

class RawFlow : public RawRecords<FlowRecords> {
public:
    using RawRecords::RawRecords;

    // Passes over it (flow_pass.hpp), while it lives.
    FlowPass passes() const {
        return [this](const FlowPiece& piece) {
            each_piece([&](std::size_t, const std::uint32_t* blocks, std::size_t count) { piece(blocks, count); });
        };
    }
};

}  // namespace tcgen::wet
