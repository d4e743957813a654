// Records grouped by node in a temporary file of zstd frames (framed_runs.hpp).

#include "wet/labels/framed_runs.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include <tcgen/wet/raw_trace.hpp>
#include "runtime/zstd_codec.hpp"
#include "wet/labels/byte_planes.hpp"

namespace tcgen::wet {
namespace {

// Level 1: the frames are written once and read back a few times within the
// build; a higher level would cost the build time to save disk for minutes.
constexpr int frame_level = 1;
// Each thread's decoded frames (2 MiB at most), the latest first: a
// binary search's probes, the pieces of a node read beside its sibling's,
// a merge's pieces of a few dozen runs find theirs.
constexpr std::size_t kept_frames = 64;

std::uint64_t next_id() {
    static std::atomic<std::uint64_t> ids{0};
    return ++ids;
}

}  // namespace

struct FramedRuns::Decoded {
    std::uint64_t id;
    std::size_t node;
    std::size_t frame;
    std::vector<std::uint8_t> planes;  // its records' byte planes
};

FramedRuns::FramedRuns(std::size_t width, std::vector<std::uint64_t> first, const std::string& beside,
                       const std::string& kind, std::string holds, FramedRunsLimits limits)
    : width_(width),
      frame_records_(std::max<std::size_t>(std::min(limits.frame_bytes, FramedRunsLimits::max_frame_bytes) / width, 1)),
      buffer_budget_(limits.buffer_budget),
      first_(std::move(first)),
      file_(beside, kind, std::move(holds)),
      id_(next_id()),
      frames_(first_.size() - 1),
      buffers_(first_.size() - 1),
      buffered_first_(first_.begin(), first_.end() - 1) {}

void FramedRuns::append(std::size_t node, const std::uint8_t* records, std::size_t count) {
    std::vector<std::uint8_t>& buffer = buffers_[node];
    while (count > 0) {
        const std::size_t take = std::min(count, frame_records_ - buffer.size() / width_);
        buffer.insert(buffer.end(), records, records + take * width_);
        buffered_bytes_ += take * width_;
        records += take * width_;
        count -= take;
        if (buffer.size() == frame_records_ * width_) {
            write_frame(node);
        }
    }
    if (buffered_bytes_ > buffer_budget_) {
        write_largest_buffers();
    }
}

void FramedRuns::finish() {
    for (std::size_t node = 0; node < buffers_.size(); ++node) {
        write_frame(node);
        frames_[node].shrink_to_fit();  // the index is held to the end of the build
    }
    buffers_ = {};
}

std::size_t FramedRuns::frame_count(std::size_t node, std::size_t frame) const {
    const std::vector<Frame>& frames = frames_[node];
    const std::uint64_t end = frame + 1 < frames.size() ? frames[frame + 1].first : buffered_first_[node];
    return static_cast<std::size_t>(end - frames[frame].first);
}

void FramedRuns::write_frame(std::size_t node) {
    std::vector<std::uint8_t>& buffer = buffers_[node];
    if (buffer.empty()) {
        return;
    }
    const std::size_t count = buffer.size() / width_;
    std::vector<std::uint8_t> planes;
    byte_planes::append_planes(buffer.data(), count, width_, planes);
    const std::vector<std::uint8_t> frame = tcgen_runtime::zstd_frame(planes, frame_level);
    // A frame of at most 32 KiB (or one record of at most 64 KiB) compresses
    // to fewer than 2^16 bytes; files stay below 2^48.
    if (frame.size() > 0xFFFF || file_end_ >> 48 != 0) {
        throw WetError(name(), "a frame or the file is too large for the frames' index");
    }
    file_.write(file_end_, frame.data(), frame.size());
    frames_[node].push_back(Frame{buffered_first_[node], file_end_ << 16 | frame.size()});
    file_end_ += frame.size();
    buffered_first_[node] += count;
    buffered_bytes_ -= buffer.size();
    buffer.clear();
    buffer.shrink_to_fit();  // a node written early holds nothing until it has records again
}

void FramedRuns::write_largest_buffers() {
    // Down to half the budget, the largest buffers first: the fewest and
    // largest frames written early.
    std::vector<std::pair<std::size_t, std::size_t>> sizes;  // (bytes, node)
    for (std::size_t node = 0; node < buffers_.size(); ++node) {
        if (!buffers_[node].empty()) {
            sizes.emplace_back(buffers_[node].size(), node);
        }
    }
    std::sort(sizes.begin(), sizes.end(), std::greater<>());
    for (const auto& [bytes, node] : sizes) {
        if (buffered_bytes_ <= buffer_budget_ / 2) {
            break;
        }
        write_frame(node);
    }
}

const FramedRuns::Decoded& FramedRuns::decoded(std::size_t node, std::size_t frame) const {
    thread_local std::vector<Decoded> kept;
    for (std::size_t index = 0; index < kept.size(); ++index) {
        if (kept[index].id == id_ && kept[index].node == node && kept[index].frame == frame) {
            std::rotate(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(index),
                        kept.begin() + static_cast<std::ptrdiff_t>(index) + 1);
            return kept.front();
        }
    }
    const Frame& where = frames_[node][frame];
    // The thread's buffer and the frame evicted are reused: no allocation
    // or zero-filling a decode.
    thread_local std::vector<std::uint8_t> compressed;
    compressed.resize(where.size());
    file_.read(where.offset(), compressed.data(), compressed.size());
    if (kept.size() < kept_frames) {
        kept.emplace_back();
    }
    std::rotate(kept.begin(), kept.end() - 1, kept.end());  // the least recent, to be overwritten, first
    Decoded& fresh = kept.front();
    fresh.id = 0;  // until it holds the frame
    const std::uint64_t bytes = std::uint64_t{frame_count(node, frame)} * width_;
    fresh.planes.resize(static_cast<std::size_t>(bytes));
    if (!tcgen_runtime::zstd_unframe(compressed.data(), compressed.size(), fresh.planes.data(), bytes)) {
        throw WetError(name(), "read error: a frame of the file does not decode to what was written");
    }
    fresh.id = id_;
    fresh.node = node;
    fresh.frame = frame;
    return fresh;
}

void FramedRuns::read(std::uint64_t at, std::uint64_t count, std::uint8_t* out) const {
    while (count > 0) {
        // The node holding place `at`: the last whose first place is at or
        // before it (nodes without records share their first place with the next).
        const std::size_t node =
            static_cast<std::size_t>(std::upper_bound(first_.begin(), first_.end(), at) - first_.begin()) - 1;
        const std::vector<Frame>& frames = frames_[node];
        std::size_t frame = static_cast<std::size_t>(
            std::upper_bound(frames.begin(), frames.end(), at,
                             [](std::uint64_t place, const Frame& f) { return place < f.first; }) -
            frames.begin());
        if (frame == 0 || at >= frames[frame - 1].first + frame_count(node, frame - 1)) {
            throw WetError(name(), "read error: records were read that were not written");
        }
        for (--frame; frame < frames.size() && count > 0; ++frame) {
            const Decoded& held = decoded(node, frame);
            const std::size_t records = frame_count(node, frame);
            const std::uint64_t skip = at - frames[frame].first;
            const std::uint64_t take = std::min<std::uint64_t>(count, records - skip);
            // Only the records asked for are put back together: a probe
            // or a piece pays for its own bytes, not the frame's.
            byte_planes::records_of_planes(held.planes.data() + skip, records, static_cast<std::size_t>(take), width_,
                                           out);
            out += take * width_;
            at += take;
            count -= take;
        }
    }
}

}  // namespace tcgen::wet
