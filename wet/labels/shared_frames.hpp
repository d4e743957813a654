#pragma once
// SharedFrames: the chunks of many labels of one kind (a WET's values, its
// addresses) packed into shared zstd frames of about 256 KiB each, a chunk addressed
// as (frame, byte offset). What repeats in a WET's values lies mostly
// between nodes (the same text or table loaded at several instructions),
// further apart than one chunk reaches; so the
// builder orders the chunks by content (a min-hash of their values), not
// by node, and chunks that load the same values share a frame. Each frame
// keeps the smaller of two layouts: its chunks' records as they are, or
// each chunk as byte planes (byte_planes.hpp). Measured in
// docs/design/log.md ("Shared frames for the values").
//
// A chunk's cursor needs its frame decoded (about 60-80 us for 256 KiB); the
// latest few decoded frames stay in a small cache, counted in memory_bytes().
// The compressed frames are held end to end (held_bytes.hpp): in memory, or
// as a build under a memory cap makes them, in a temporary file.
//
// Saved: u64 frames, then per frame u8 layout (0 records, 1 planes), u32
// its decoded bytes, u64 size and one zstd frame (its content size stated).

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>


#include "common/byte_io.hpp"
#include "runtime/task_pool.hpp"
#include "wet/labels/byte_planes.hpp"
#include "wet/labels/held_bytes.hpp"

namespace tcgen::wet {

class SharedFrames {
public:
    // A frame closes before the chunk that would take it past this many
    // decoded bytes: 128 KiB lost to xz on sort, 1 MiB costs 4x per cold access.
    static constexpr std::uint64_t frame_bytes = std::uint64_t{1} << 18;
    // No frame decodes to more, forged or not.
    static constexpr std::uint64_t max_frame_bytes = byte_planes::max_bytes;
    // zstd level of the frames: made once per WET, decoded often.
    static constexpr int level = 19;
    // A frame's layout is chosen by compressing both at this level first:
    // only a layout within this factor of the smaller one is compressed at
    // `level` too. Level 1 or 3 alone picked the wrong layout often enough
    // to cost 1-4.5 % of the values (levels 19 and 1 rank the layouts apart
    // by 30 % on some frames); 9 with a 5 % margin gave level 19's bytes on
    // two runs within 0.01 % in half the CPU of compressing both at 19.
    static constexpr int layout_trial_level = 9;
    static constexpr double layout_trial_margin = 1.05;
    static constexpr std::size_t cached_frames = 64;

    enum class Layout : std::uint8_t { records = 0, planes = 1 };
    struct Place {
        std::uint32_t frame = 0;
        std::uint32_t offset = 0;  // bytes into the decoded frame
    };
    // A chunk to pack: `count` records of `width` bytes each.
    struct Piece {
        const std::uint8_t* bytes = nullptr;
        std::size_t count = 0;
        std::size_t width = 8;
    };

    // Packs `pieces` (in the order given) into frames; places[i] is where piece i went.
    static std::shared_ptr<SharedFrames> build(const std::vector<Piece>& pieces, std::vector<Place>& places) {
        return build(pieces, places, [&](std::size_t index, std::vector<std::uint8_t>& out) {
            const Piece& piece = pieces[index];
            out.insert(out.end(), piece.bytes, piece.bytes + piece.count * piece.width);
        });
    }

    // The same, with piece i's bytes appended to `out` by fill(i, out) only
    // when its frame is made (pieces[i].bytes unused): a builder need not
    // hold every piece's records at once, only one frame's. With a pool,
    // the frames are made on its threads, fill() called from any of them
    // (the same frames whatever the threads: which pieces make a frame
    // depends on their sizes only). The compressed frames are kept in a
    // temporary file as they are made where `spill` says (held_bytes.hpp).
    template <class Fill>
    static std::shared_ptr<SharedFrames> build(const std::vector<Piece>& pieces, std::vector<Place>& places,
                                               const Fill& fill, tcgen_runtime::TaskPool* pool = nullptr,
                                               const HeldBytes::Spill& spill = {}) {
        auto frames = std::make_shared<SharedFrames>();
        frames->compressed_->spill(spill, "the shared frames made");
        std::mutex appending;  // to compressed_, from the pool's threads
        places.assign(pieces.size(), Place{});
        // A frame closes before the piece that would take it past frame_bytes.
        std::vector<std::size_t> firsts;  // each frame's first piece, then the end
        for (std::size_t first = 0; first < pieces.size();) {
            firsts.push_back(first);
            std::uint64_t bytes = 0;
            while (first < pieces.size() &&
                   (bytes == 0 || bytes + pieces[first].count * pieces[first].width <= frame_bytes)) {
                bytes += pieces[first].count * pieces[first].width;
                ++first;
            }
        }
        firsts.push_back(pieces.size());
        frames->frames_->resize(firsts.size() - 1);
        const auto make_frame = [&](std::size_t index) {
            std::vector<std::uint8_t> records;
            std::vector<std::uint8_t> planes;
            for (std::size_t piece = firsts[index]; piece < firsts[index + 1]; ++piece) {
                places[piece] = Place{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(records.size())};
                const std::size_t at = records.size();
                fill(piece, records);
                if (records.size() != at + pieces[piece].count * pieces[piece].width) {
                    throw std::logic_error("SharedFrames::build: a piece filled with the wrong number of bytes");
                }
                byte_planes::append_planes(records.data() + at, pieces[piece].count, pieces[piece].width, planes);
            }
            Frame& frame = (*frames->frames_)[index];
            frame.decoded = static_cast<std::uint32_t>(records.size());
            // Each layout at the trial level; at `level` only those within
            // the margin of the smaller one.
            const double planes_trial =
                static_cast<double>(tcgen_runtime::zstd_frame(planes, layout_trial_level).size());
            const double records_trial =
                static_cast<double>(tcgen_runtime::zstd_frame(records, layout_trial_level).size());
            std::vector<std::uint8_t> as_planes;
            std::vector<std::uint8_t> as_records;
            if (planes_trial <= records_trial * layout_trial_margin) {
                as_planes = tcgen_runtime::zstd_frame(planes, level);
            }
            if (records_trial <= planes_trial * layout_trial_margin) {
                as_records = tcgen_runtime::zstd_frame(records, level);
            }
            const bool planes_smaller =
                !as_planes.empty() && (as_records.empty() || as_planes.size() < as_records.size());
            frame.layout = planes_smaller ? Layout::planes : Layout::records;
            const std::vector<std::uint8_t>& compressed = planes_smaller ? as_planes : as_records;
            const std::lock_guard<std::mutex> lock(appending);
            frame.at = frames->compressed_->size();
            frame.size = compressed.size();
            frames->compressed_->append(compressed.data(), compressed.size());
        };
        tcgen_runtime::TaskPool::run(pool, firsts.size() - 1, make_frame);
        frames->compressed_->shrink();
        return frames;
    }

    // The same frames with a decoded-frame cache of its own, for another
    // thread's labels (the frames themselves are never written again).
    std::shared_ptr<SharedFrames> fork() const {
        auto forked = std::make_shared<SharedFrames>();
        forked->frames_ = frames_;
        forked->compressed_ = compressed_;
        return forked;
    }

    std::size_t size() const { return frames_->size(); }
    std::uint64_t decoded_bytes(std::uint32_t frame) const { return (*frames_)[frame].decoded; }

    // The `count` records at `place` (checked on load to lie in its frame).
    template <class Record>
    std::vector<Record> records(Place place, std::size_t count) const {
        std::vector<Record> records;
        append_records(place, count, records);
        return records;
    }
    // The same records after those `out` holds: a label read whole copies
    // each chunk once, from the decoded frame to its end.
    template <class Record>
    void append_records(Place place, std::size_t count, std::vector<Record>& out) const {
        static_assert(std::is_trivially_copyable_v<Record>, "records are plain bytes");
        const Frame& frame = (*frames_)[place.frame];
        const std::uint8_t* bytes = decoded(place.frame).data() + place.offset;
        const std::size_t before = out.size();
        out.resize(before + count);
        if (frame.layout == Layout::records) {
            std::memcpy(out.data() + before, bytes, count * sizeof(Record));
        } else {
            byte_planes::records_of_planes(bytes, count, out.data() + before);
        }
    }

    void save(ByteWriter& writer) const {
        writer.u64(frames_->size());
        for (const Frame& frame : *frames_) {
            writer.u8(static_cast<std::uint8_t>(frame.layout));
            writer.u32(frame.decoded);
            writer.u64(frame.size);
            compressed_->write_to(writer, frame.at, frame.size);
        }
    }
    std::uint64_t saved_bytes() const {
        std::uint64_t bytes = 8;
        for (const Frame& frame : *frames_) {
            bytes += 13 + frame.size;
        }
        return bytes;
    }

    // Reads the frames and checks their framing: a layout, a size of at most
    // max_frame_bytes. Nothing is decoded yet: check_referenced() does it
    // once the chunks are loaded, so that a frame no chunk refers to costs
    // no decoding (a forged file of 40,000 such frames took 20 s to refuse).
    static std::shared_ptr<SharedFrames> load(ByteReader& reader, const std::string& what) {
        auto frames = std::make_shared<SharedFrames>();
        const std::uint64_t count = reader.u64();
        // Each frame takes 13 bytes of framing at least: no more than the bytes left.
        if (count > reader.remaining() / 13) {
            reader.fail(what + ": " + std::to_string(count) + " shared frames claimed, " +
                        std::to_string(reader.remaining()) + " bytes are left");
        }
        frames->frames_->resize(static_cast<std::size_t>(count));
        // Where each frame's bytes are in the section read, until they are
        // held together in one allocation.
        std::vector<const std::uint8_t*> compressed(frames->frames_->size());
        std::uint64_t compressed_bytes = 0;
        for (std::size_t index = 0; index < frames->frames_->size(); ++index) {
            Frame& frame = (*frames->frames_)[index];
            const std::uint8_t layout = reader.u8();
            if (layout > static_cast<std::uint8_t>(Layout::planes)) {
                reader.fail(what + ": shared frame " + std::to_string(index) + " of unknown layout " +
                            std::to_string(layout));
            }
            frame.layout = static_cast<Layout>(layout);
            frame.decoded = reader.u32();
            if (frame.decoded == 0 || frame.decoded > max_frame_bytes) {
                reader.fail(what + ": shared frame " + std::to_string(index) + " claims " +
                            std::to_string(frame.decoded) + " bytes, at most " + std::to_string(max_frame_bytes));
            }
            frame.size = reader.u64();
            compressed[index] = reader.bytes(frame.size);
            frame.at = compressed_bytes;
            compressed_bytes += frame.size;
        }
        frames->compressed_->reserve(static_cast<std::size_t>(compressed_bytes));
        for (std::size_t index = 0; index < frames->frames_->size(); ++index) {
            frames->compressed_->append(compressed[index], static_cast<std::size_t>((*frames->frames_)[index].size));
        }
        frames->referenced_.assign(frames->frames_->size(), 0);
        return frames;
    }

    // A loaded chunk's `bytes` at `place` (checked to lie in the frame).
    void refer(Place place, std::uint64_t bytes) {
        if (place.frame < referenced_.size()) {
            referenced_[place.frame] += bytes;
        }
    }

    // After every chunk of the kind is loaded: each frame's decoded bytes are
    // its chunks' records, exactly, as the builder packs them (so a frame
    // costs decoding in proportion to the records that refer to it, and a
    // frame no chunk refers to is refused); then zstd must decode each to
    // exactly the bytes it claims.
    void check_referenced(ByteReader& reader, const std::string& what) {
        std::vector<std::uint8_t> scratch;
        for (std::size_t index = 0; index < frames_->size(); ++index) {
            const std::uint64_t referenced = index < referenced_.size() ? referenced_[index] : 0;
            if (referenced != (*frames_)[index].decoded) {
                reader.fail(what + ": shared frame " + std::to_string(index) + " holds " +
                            std::to_string((*frames_)[index].decoded) + " bytes, its chunks refer to " +
                            std::to_string(referenced));
            }
        }
        for (std::size_t index = 0; index < frames_->size(); ++index) {
            if (!decode((*frames_)[index], scratch)) {
                reader.fail(what + ": shared frame " + std::to_string(index) + " is corrupt");
            }
        }
        referenced_.clear();
        referenced_.shrink_to_fit();
    }

    std::size_t memory_bytes() const {
        std::size_t bytes = sizeof(*this) + frames_->capacity() * sizeof(Frame) + compressed_->memory_bytes();
        for (const Cached& cached : cache_) {
            bytes += sizeof(Cached) + cached.bytes.capacity();
        }
        return bytes;
    }

private:
    struct Frame {
        Layout layout = Layout::records;
        std::uint32_t decoded = 0;
        std::uint64_t at = 0;  // its compressed bytes in compressed_
        std::uint64_t size = 0;
    };
    static constexpr std::uint64_t none = ~std::uint64_t{0};  // a Cached holding no frame yet
    struct Cached {
        std::uint64_t frame = none;
        std::vector<std::uint8_t> bytes;
    };

    // Whether `frame` decodes to exactly its claimed bytes (into `out`).
    bool decode(const Frame& frame, std::vector<std::uint8_t>& out) const {
        std::vector<std::uint8_t> spilled;  // only when the frame is in a file
        const std::uint8_t* compressed = compressed_->view(frame.at, static_cast<std::size_t>(frame.size), spilled);
        out.resize(frame.decoded);
        return tcgen_runtime::zstd_unframe(compressed, static_cast<std::size_t>(frame.size), out.data(), frame.decoded);
    }
    // Frame `index` decoded, from the cache (the latest first) or decoded into it.
    const std::vector<std::uint8_t>& decoded(std::uint32_t index) const {
        for (std::size_t at = 0; at < cache_.size(); ++at) {
            if (cache_[at].frame == index) {
                std::rotate(cache_.begin(), cache_.begin() + static_cast<std::ptrdiff_t>(at),
                            cache_.begin() + static_cast<std::ptrdiff_t>(at) + 1);
                return cache_.front().bytes;
            }
        }
        // The least recent frame's buffer is decoded into, first in the
        // list: frames are about the same size, so a decode allocates and
        // zero-fills nothing (a fresh 256 KiB buffer per decode spent the
        // load traces' time in page faults and memset).
        if (cache_.size() < cached_frames) {
            cache_.emplace_back();
        }
        std::rotate(cache_.begin(), cache_.end() - 1, cache_.end());
        Cached& fresh = cache_.front();
        fresh.frame = none;  // until it holds the frame
        if (!decode((*frames_)[index], fresh.bytes)) {  // checked on load: only a bug gets here
            throw std::runtime_error("shared frame " + std::to_string(index) + " is corrupt");
        }
        fresh.frame = index;
        return fresh.bytes;
    }

    // Written by build() and load() alone, then shared by every fork().
    std::shared_ptr<std::vector<Frame>> frames_ = std::make_shared<std::vector<Frame>>();
    std::shared_ptr<HeldBytes> compressed_ = std::make_shared<HeldBytes>();  // every frame's, end to end
    std::vector<std::uint64_t> referenced_;  // while loading: bytes each frame's chunks refer to
    // The latest decoded first; a fork's own, so that threads decoding
    // frames never share one.
    mutable std::vector<Cached> cache_;
};

}  // namespace tcgen::wet
