#pragma once
// A raw file kept compressed: zstd frames one after another, each holding
// the next `frame_bytes` of the file and saying so in its header (a plain
// `.zst` file; `zstd -d` gives the raw file back). `wet run` keeps the
// tracer's output this way while the program runs, a fraction of the raw
// labels on disk; `wet build` and read_raw_trace() read such a file where
// they read a raw one, telling them apart by zstd's magic (a raw file starts
// with its own). The frames are indexed when the file is opened, from their
// headers, so that a read anywhere decompresses the frames it covers only.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_getFrameHeader(): each frame's sizes, for the index
#include <zstd.h>

#include "runtime/files.hpp"

namespace tcgen::wet {

// Whether a file that starts with `head` (its first `size` bytes, up to 4)
// is zstd frames rather than a raw file.
bool starts_zstd_frames(const std::uint8_t* head, std::size_t size);

// Writes a file of zstd frames from bytes given in any pieces.
class ZstdFramesWriter {
public:
    // Raw bytes a frame holds: a read decompresses at most this much per
    // frame it touches.
    static constexpr std::size_t frame_bytes = std::size_t{1} << 20;

    // The file `name`, made (or emptied). Throws WetError naming it.
    explicit ZstdFramesWriter(const std::string& name);
    ZstdFramesWriter(const ZstdFramesWriter&) = delete;
    ZstdFramesWriter& operator=(const ZstdFramesWriter&) = delete;

    void write(const std::uint8_t* bytes, std::size_t count);
    // Writes the last frame and closes the file; throws WetError on a write
    // error (a full disk).
    void finish();

    // Raw bytes written so far.
    std::uint64_t size() const { return size_; }

private:
    void write_frame();

    struct FreeContext {
        void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
    };

    std::string name_;
    tcgen_runtime::Descriptor file_;
    std::unique_ptr<ZSTD_CCtx, FreeContext> context_;
    std::vector<std::uint8_t> pending_;
    std::vector<std::uint8_t> frame_;
    std::uint64_t size_ = 0;
};

// Reads a file of zstd frames as the raw file it holds: its size, and any
// range of its bytes. A frame must say its raw size in its header and hold
// at most max_frame_bytes, and at least min_frame_bytes unless it is the
// last (every frame ZstdFramesWriter writes does); a
// read keeps the last frames it decompressed, so that reads in order
// decompress each frame once.
class ZstdFramesReader {
public:
    static constexpr std::size_t max_frame_bytes = std::size_t{64} << 20;
    static constexpr std::size_t min_frame_bytes = std::size_t{64} << 10;  // but the last
    // More than any raw file holds (2^32 records of at most 32 bytes).
    static constexpr std::uint64_t max_bytes = std::uint64_t{1} << 37;

    // `file`: open for reading, positioned anywhere (reads use pread).
    // Throws WetError naming `name` when a frame's header or block
    // structure is not zstd's, or a frame's raw size is not said or is
    // larger than max_frame_bytes, or the file ends inside a frame.
    ZstdFramesReader(const std::string& name, tcgen_runtime::Descriptor file);
    ZstdFramesReader(const ZstdFramesReader&) = delete;
    ZstdFramesReader& operator=(const ZstdFramesReader&) = delete;

    std::uint64_t size() const { return size_; }
    // Raw bytes offset .. offset + count - 1 (within size()). Throws
    // WetError when a frame does not decompress to what its header says
    // (a corrupt file: zstd's checksum or structure).
    void read(std::uint64_t offset, std::size_t count, std::uint8_t* bytes) const;

private:
    struct Frame {
        std::uint64_t at = 0;         // in the file
        std::uint64_t packed = 0;     // its compressed bytes
        std::uint64_t raw_start = 0;  // in the raw file
        std::uint64_t raw = 0;        // its raw bytes
    };
    struct Decoded {
        std::size_t frame = SIZE_MAX;
        std::vector<std::uint8_t> bytes;
    };

    void index();
    const std::vector<std::uint8_t>& decoded(std::size_t frame) const;
    void read_packed(std::uint64_t at, std::size_t count, std::uint8_t* bytes) const;

    std::string name_;
    tcgen_runtime::Descriptor file_;
    std::uint64_t file_size_ = 0;
    std::vector<Frame> frames_;
    struct FreeContext {
        void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
    };

    std::uint64_t size_ = 0;
    std::unique_ptr<ZSTD_DCtx, FreeContext> context_;
    // Two frames kept: a walk and a cursor beside it, each in its own.
    mutable Decoded kept_[2];
    mutable std::size_t next_kept_ = 0;
    mutable std::vector<std::uint8_t> packed_;
};

// The whole raw file `name`, decompressed if it is zstd frames; for the
// small raw files read whole (PREFIX.blocks, .nodes, .regs, .syms). Throws
// WetError (FileError) naming it.
std::vector<std::uint8_t> read_raw_bytes(const std::string& name);

}  // namespace tcgen::wet
