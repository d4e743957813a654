#pragma once
// FlowStream: the control-flow trace (the block executed at each t) kept as
// successor ranks. A block is followed by few blocks, one of them most of
// the time: per block, its observed successors are listed once, most
// frequent first, and at each t the flow stores only the rank of the block
// that ran among the successors of the block before it (0 nine times in ten;
// a byte, 255 for a rank past 254, whose block is then given in full). The
// ranks of a loop's path repeat with the loop, whichever blocks it is made
// of, and zstd finds those repeats; the block ids themselves, coded by
// predictors that restart at each checkpoint, lost to xz -9 on the same flow
// by 1.3-6.6x (docs/design/log.md, "The control flow as successor ranks").
//
// The ranks are cut into frames of about 65,536 timestamps, each one zstd
// frame, and each frame into checkpoints every `checkpoint_records`
// timestamps, where the block is given in full: a walk starts at any
// checkpoint from the frame's bytes alone. A cursor holds its frame decoded
// and the blocks of one checkpoint's span; seek(t) costs at most a frame's
// decode and a span's walk through the successor table.
//
// Saved: u64 timestamps, u64 checkpoint_records, u64 frame_records (a
// multiple of it), u64 size and the zstd frame of the successor table (per
// block: u32 n, then its n <= 255 successors, most frequent first), then per
// frame u64 size and a zstd frame of: u32 block at each checkpoint, u32
// exceptions, per exception u32 position in the frame and u32 block (the
// ranks past 254, in order), and one byte per timestamp, its rank (255: an
// exception; 0 at a checkpoint).

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/byte_io.hpp"
#include "wet/flow/flow_pass.hpp"

namespace tcgen_runtime {
class TaskPool;
}

namespace tcgen::wet {

class FlowStream {
public:
    // Timestamps per frame: a multiple of `checkpoint_records` near this.
    static constexpr std::uint64_t target_frame_records = 65536;
    // No frame is longer, forged or not: bounds what a cursor allocates.
    static constexpr std::uint64_t max_frame_records = std::uint64_t{1} << 20;
    // zstd level of the frames: made once per WET, decoded often.
    static constexpr int level = 19;

    // `blocks`: every id in `flow` is below it. A frame holds the multiple
    // of `checkpoint_records` at or above `frame_records` (at most the max).
    static FlowStream build(const std::uint32_t* flow, std::uint64_t count, std::size_t blocks,
                            std::uint64_t checkpoint_records, std::uint64_t frame_records = target_frame_records);
    // The same over a flow of `count` blocks walked twice in passes; a pass
    // that meets a block not below `blocks`, or another count, throws
    // std::invalid_argument (a file changed while it was read). With a
    // pool, the frames are compressed on its threads, a batch at a time
    // (the same bytes).
    static FlowStream build(const FlowPass& flow, std::uint64_t count, std::size_t blocks,
                            std::uint64_t checkpoint_records, std::uint64_t frame_records = target_frame_records,
                            tcgen_runtime::TaskPool* pool = nullptr);
    void save(ByteWriter& writer) const;
    // Checks the framing whole: every frame decodes to its size, every
    // block named in full is below `blocks`. A rank past a block's
    // successors is found by the walk that meets it (std::runtime_error).
    static FlowStream load(ByteReader& reader, std::size_t blocks);
    std::uint64_t saved_bytes() const;
    std::size_t memory_bytes() const;

    std::uint64_t size() const { return count_; }
    std::uint64_t checkpoint_records() const { return checkpoint_records_; }
    std::uint64_t frame_records() const { return frame_records_; }
    std::size_t frame_count() const { return frames_->size(); }

    // The same flow with a cursor of its own, at 0: another thread's. It
    // shares the frames and reads nothing the cursor here moves.
    FlowStream fork() const;

    // The cursor: between records; next() reads the record after it.
    std::uint64_t position() const { return cursor_.span_start + cursor_.at; }
    void seek(std::uint64_t position);
    bool next(std::uint32_t& block);
    bool prev(std::uint32_t& block);

    // visit(block, position) for every record of frames first..end - 1,
    // forward, with a cursor of its own: the one above stays where it is.
    template <class Visit>
    void walk_frames(std::size_t first, std::size_t end, const Visit& visit) const {
        Decoded decoded;
        std::vector<std::uint32_t> span;
        for (std::size_t frame = first; frame < std::min(end, frames_->size()); ++frame) {
            decode(frame, decoded);
            for (std::size_t index = 0; index < decoded.checkpoints; ++index) {
                walk_span(decoded, index, span);
                const std::uint64_t start = frame * frame_records_ + index * checkpoint_records_;
                for (std::size_t at = 0; at < span.size(); ++at) {
                    visit(span[at], start + at);
                }
            }
        }
    }
    template <class Visit>
    void walk_all(const Visit& visit) const {
        walk_frames(0, frames_->size(), visit);
    }

private:
    // A frame decoded: where its parts lie in `bytes`.
    struct Decoded {
        std::size_t frame = SIZE_MAX;
        std::vector<std::uint8_t> bytes;
        std::uint64_t records = 0;
        std::size_t checkpoints = 0;
        std::size_t exceptions = 0;
        std::uint32_t checkpoint_block(std::size_t index) const;
        std::uint32_t exception_position(std::size_t index) const;
        std::uint32_t exception_block(std::size_t index) const;
        const std::uint8_t* ranks() const { return bytes.data() + 4 * checkpoints + 4 + 8 * exceptions; }
    };
    struct Cursor {
        Decoded decoded;
        std::vector<std::uint32_t> span;  // the blocks of one checkpoint's span
        std::uint64_t span_start = 0;     // its first record's position in the flow
        std::size_t at = 0;               // records of the span before the cursor
        std::size_t frame = 0;            // the span's frame and its index there
        std::size_t index = 0;
        bool entered = false;
    };

    std::uint64_t frame_length(std::size_t frame) const;
    // Decodes frame `frame` (checked as load() checks it; throws
    // std::runtime_error naming what is wrong).
    void decode(std::size_t frame, Decoded& decoded) const;
    // The blocks of span `index` of a decoded frame, walked through the
    // successor table from its checkpoint.
    void walk_span(const Decoded& decoded, std::size_t index, std::vector<std::uint32_t>& span) const;
    // Puts the cursor on span `index` of frame `frame`, at its start.
    void enter(std::size_t frame, std::size_t index);

    std::uint64_t count_ = 0;
    std::uint64_t checkpoint_records_ = 1;
    std::uint64_t frame_records_ = 1;
    std::size_t blocks_ = 0;
    // The successor table: block b's successors, most frequent first, are
    // successors_[first_[b]] .. successors_[first_[b + 1] - 1].
    std::vector<std::uint32_t> first_;
    std::vector<std::uint32_t> successors_;
    std::vector<std::uint8_t> saved_table_;            // its zstd frame
    // zstd frames: written by build() and load() alone, then shared by every fork().
    std::shared_ptr<std::vector<std::vector<std::uint8_t>>> frames_ =
        std::make_shared<std::vector<std::vector<std::uint8_t>>>();
    Cursor cursor_;
};

}  // namespace tcgen::wet
