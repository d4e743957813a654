// A raw trace's edges, walked in passes (raw_edges.hpp).

#include "wet/format/raw_edges.hpp"

#include <algorithm>

#include "runtime/byte_order.hpp"

namespace tcgen::wet {

namespace {

constexpr std::size_t edge_bytes = 16;

}  // namespace

RawEdges::RawEdges(const std::string& file) : file_(std::make_unique<PiecesFile>(file, "WTD2", edge_bytes)) {}

void RawEdges::read(std::size_t first, std::size_t count, std::vector<RawEdge>& piece) const {
    count = std::min(count, size() - first);
    std::vector<std::uint8_t> bytes(count * edge_bytes);
    file_->read(first, count, bytes.data());
    piece.resize(count);
    for (std::size_t index = 0; index < count; ++index) {
        const std::uint8_t* record = bytes.data() + index * edge_bytes;
        piece[index] = RawEdge{tcgen_runtime::load_le32(record), tcgen_runtime::load_le32(record + 4),
                               tcgen_runtime::load_le32(record + 8), tcgen_runtime::load_le32(record + 12)};
    }
}

std::uint64_t RawEdges::digest_of(std::uint64_t digest, const std::vector<RawEdge>& piece) {
    constexpr std::uint64_t prime = 0x100000001B3;
    for (const RawEdge& edge : piece) {
        digest = (digest ^ edge.use ^ (std::uint64_t{edge.def} << 32)) * prime;
        digest = (digest ^ edge.t_use ^ (std::uint64_t{edge.t_def} << 32)) * prime;
    }
    return digest;
}

void RawEdges::refuse_changed() const {
    throw WetError(name(), "cannot read: the file changed while it was read");
}

void RawEdges::check_digest(std::uint64_t digest) const {
    if (!digested_) {
        first_digest_ = digest;
        digested_ = true;
    } else if (digest != first_digest_) {
        refuse_changed();
    }
}

}  // namespace tcgen::wet
