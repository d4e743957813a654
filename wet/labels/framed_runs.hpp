#pragma once
// Records of a fixed width grouped by node in a temporary file of `wet
// build` (temporary_file.hpp), kept compressed: the build's tables that are
// too large to hold (the events by node, the edges, the asks, the defs)
// would otherwise take 4-48 bytes a record on disk, about 21 GB at their
// peak on a run of a billion instructions, more than its raw labels.
//
// Node n's records are places first[n] .. first[n + 1] - 1, and are
// appended in place order: append() adds a node's next records. Each
// node's records gather in a buffer of its own; a full buffer (`frame_bytes`)
// is written as one zstd frame (level 1) of the records' byte planes
// (byte_planes.hpp) at the file's end, and when the buffers together hold
// more than `buffer_budget`, the largest are written early, so that memory
// stays bounded whatever the number of nodes. finish() writes the rest.
// read() then gives any places' records back: the frames that hold them
// are decoded, and each thread keeps the last few frames it decoded (a
// binary search's probes, a merge's pieces of several runs), so reads from
// several threads at once are safe; append() and finish() are not.
// A write or read error (a full disk), or a frame that does not decode,
// throws WetError naming the file.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "wet/labels/temporary_file.hpp"

namespace tcgen::wet {

struct FramedRunsLimits {
    // A node's buffer is written as a frame when it holds this many bytes
    // (of whole records; one record at least), at most max_frame_bytes.
    static constexpr std::size_t max_frame_bytes = std::size_t{32} << 10;
    std::size_t frame_bytes = max_frame_bytes;
    // The buffers of all the nodes together hold at most this many bytes
    // past a call to append().
    std::size_t buffer_budget = std::size_t{16} << 20;
};

class FramedRuns {
public:
    // `width` bytes a record; first[n] .. first[n + 1] - 1 node n's places.
    // The file is made beside `beside` (temporary_file.hpp for `kind` and
    // `holds`).
    FramedRuns(std::size_t width, std::vector<std::uint64_t> first, const std::string& beside, const std::string& kind,
               std::string holds, FramedRunsLimits limits = {});
    FramedRuns(const FramedRuns&) = delete;
    FramedRuns& operator=(const FramedRuns&) = delete;

    const std::string& name() const { return file_.name(); }

    // Node `node`'s next `count` records, `width` bytes each (the caller has
    // checked that the node has room for them).
    void append(std::size_t node, const std::uint8_t* records, std::size_t count);
    // Every record appended: the buffers written.
    void finish();

    // The records at places at .. at + count - 1, of one node or several,
    // into `out` (count * width bytes).
    void read(std::uint64_t at, std::uint64_t count, std::uint8_t* out) const;

    // The bytes written to the file so far, and held in the buffers.
    std::uint64_t file_bytes() const { return file_end_; }
    std::size_t buffered_bytes() const { return buffered_bytes_; }

private:
    // 16 bytes, since a run with many nodes writes millions of frames early
    // (the budget's), and their index is held to the end of the build. A
    // frame's records end where the node's next frame, or the node, starts.
    struct Frame {
        std::uint64_t first;  // the place of its first record
        std::uint64_t where;  // its offset in the file << 16 | its compressed size
        std::uint64_t offset() const { return where >> 16; }
        std::size_t size() const { return static_cast<std::size_t>(where & 0xFFFF); }
    };
    struct Decoded;

    // The records of node's frame-th frame.
    std::size_t frame_count(std::size_t node, std::size_t frame) const;

    void write_frame(std::size_t node);
    void write_largest_buffers();
    const Decoded& decoded(std::size_t node, std::size_t frame) const;

    std::size_t width_;
    std::size_t frame_records_;
    std::size_t buffer_budget_;
    std::vector<std::uint64_t> first_;
    TemporaryFile file_;
    std::uint64_t file_end_ = 0;
    std::uint64_t id_;                                // tells this object's frames apart in the threads' caches
    std::vector<std::vector<Frame>> frames_;          // each node's, in place order
    std::vector<std::vector<std::uint8_t>> buffers_;  // each node's records not yet in a frame
    std::vector<std::uint64_t> buffered_first_;       // the place of each buffer's first record
    std::size_t buffered_bytes_ = 0;
};

}  // namespace tcgen::wet
