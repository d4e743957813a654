#pragma once
// The writer's quick estimate of what a block's stream compresses to, on
// which the codec chooses, per block without long runs, between runs,
// record matches and neither (record_runs.hpp): each way's streams are
// estimated, so each must cost a fraction of the real back-ends.
//
// Code streams are estimated with bzip2, which every level tries on them:
// LZMA and zstd rank the ways otherwise where the code streams decide (on
// sort's store addresses and cc1's load values they picked ways up to 13 %
// larger). The other streams with LZMA at preset 1, which ranked the ways
// as the level's own LZMA did on every trace measured, at a tenth of its
// time (zstd at level 3 did not: on ChampSim's bzip2 trace it picked record
// matches 14 % larger), or with bzip2 where bzip2 is all the level tries.
// With one back-end for every stream (--backend=NAME): bzip2 where it is
// bzip2, zstd where it is zstd, else LZMA (docs/design/log.md, "Whole-record
// decisions on load and store traces").

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "bzip2_codec.hpp"
#include "levels.hpp"
#include "lzma_codec.hpp"
#include "record_runs.hpp"
#include "zstd_codec.hpp"

namespace tcgen_runtime {

// The quick stand-ins for the back-ends.
enum class CostProxy : std::uint8_t { bzip2, lzma, zstd };
inline constexpr std::uint32_t lzma_estimate_preset = 1;
inline constexpr int zstd_estimate_level = 3;

// The stand-in for a stream of `content` written at `level` with `backend`.
inline CostProxy cost_proxy(StreamContent content, const BackendChoice& backend, unsigned level) {
    if (const std::optional<Backend> only = backend.only()) {
        return *only == Backend::bzip2 ? CostProxy::bzip2 : *only == Backend::zstd ? CostProxy::zstd : CostProxy::lzma;
    }
    bool only_bzip2 = true;
    for (std::size_t index = 0; index < backend.candidate_count(content, level); ++index) {
        only_bzip2 = only_bzip2 && backend.candidate(content, level, index) == Backend::bzip2;
    }
    return content == StreamContent::codes || only_bzip2 ? CostProxy::bzip2 : CostProxy::lzma;
}

// What `size` bytes at `data` compress to with `proxy`.
inline std::uint64_t proxy_compressed_bytes(CostProxy proxy, const std::uint8_t* data, std::size_t size) {
    std::vector<std::uint8_t> compressed;
    switch (proxy) {
        case CostProxy::bzip2:
            bz2_compress(data, size, compressed);
            break;
        case CostProxy::lzma:
            lzma_compress(data, size, compressed, lzma_estimate_preset, LzmaSearch::preset);
            break;
        case CostProxy::zstd:
            compressed = zstd_frame(data, size, zstd_estimate_level);
            break;
    }
    return compressed.size();
}

// The estimate for a codec's streams of `contents`, written at `level` with
// `backend`.
inline StreamCostEstimate stream_cost_estimate(const std::vector<StreamContent>& contents, const BackendChoice& backend,
                                               unsigned level) {
    std::vector<CostProxy> proxies;
    for (const StreamContent content : contents) {
        proxies.push_back(cost_proxy(content, backend, level));
    }
    return [proxies = std::move(proxies)](std::size_t stream, const std::uint8_t* data, std::size_t size) {
        return proxy_compressed_bytes(stream < proxies.size() ? proxies[stream] : CostProxy::lzma, data, size);
    };
}

}  // namespace tcgen_runtime
