// Raw files kept as zstd frames (zstd_frames.hpp).
//
// The index walks each frame's blocks by their 3-byte headers (RFC 8878,
// 3.1.1.2): zstd's own frame-size function needs the whole frame in memory,
// and the index is made before any frame is.

#include "wet/format/zstd_frames.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <cstring>

#include <tcgen/wet/raw_trace.hpp>
#include "common/files.hpp"

namespace tcgen::wet {
namespace {

constexpr std::uint8_t zstd_magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
// Quick enough not to slow a traced program, which runs 20-50 times slower
// than the compression; the raw files shrink 4-26 times (edges 3.8, events 5.4, flow 26 on a cc1 run).
constexpr int frame_level = 1;

std::string zstd_text(std::size_t code) {
    return ZSTD_getErrorName(code);
}

}  // namespace

bool starts_zstd_frames(const std::uint8_t* head, std::size_t size) {
    return size >= 4 && std::memcmp(head, zstd_magic, 4) == 0;
}

ZstdFramesWriter::ZstdFramesWriter(const std::string& name)
    : name_(name), file_(::open(name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) {
    if (file_.get() < 0) {
        throw WetError(name, std::string("cannot write: ") + std::strerror(errno));
    }
    context_.reset(ZSTD_createCCtx());
    if (!context_) {
        throw WetError(name, "cannot write: out of memory");
    }
    // Each frame checked by its own checksum when read.
    ZSTD_CCtx_setParameter(context_.get(), ZSTD_c_compressionLevel, frame_level);
    ZSTD_CCtx_setParameter(context_.get(), ZSTD_c_checksumFlag, 1);
    pending_.reserve(frame_bytes);
    frame_.resize(ZSTD_compressBound(frame_bytes));
}

void ZstdFramesWriter::write(const std::uint8_t* bytes, std::size_t count) {
    size_ += count;
    while (count > 0) {
        const std::size_t taken = std::min(count, frame_bytes - pending_.size());
        pending_.insert(pending_.end(), bytes, bytes + taken);
        bytes += taken;
        count -= taken;
        if (pending_.size() == frame_bytes) {
            write_frame();
        }
    }
}

void ZstdFramesWriter::finish() {
    if (!pending_.empty()) {
        write_frame();
    }
    file_.close(name_);
}

void ZstdFramesWriter::write_frame() {
    const std::size_t packed =
        ZSTD_compress2(context_.get(), frame_.data(), frame_.size(), pending_.data(), pending_.size());
    if (ZSTD_isError(packed)) {
        throw WetError(name_, "cannot write: zstd: " + zstd_text(packed));
    }
    for (std::size_t written = 0; written < packed;) {
        const ssize_t wrote = ::write(file_.get(), frame_.data() + written, packed - written);
        if (wrote < 0 && errno == EINTR) {
            continue;
        }
        if (wrote <= 0) {
            throw WetError(name_, std::string("write error: ") + std::strerror(errno));
        }
        written += static_cast<std::size_t>(wrote);
    }
    pending_.clear();
}

ZstdFramesReader::ZstdFramesReader(const std::string& name, tcgen_runtime::Descriptor file)
    : name_(name), file_(std::move(file)) {
    struct stat status {};
    if (::fstat(file_.get(), &status) != 0) {
        throw WetError(name, std::string("cannot read: ") + std::strerror(errno));
    }
    file_size_ = static_cast<std::uint64_t>(status.st_size);
    context_.reset(ZSTD_createDCtx());
    if (!context_) {
        throw WetError(name, "cannot read: out of memory");
    }
    index();
}

void ZstdFramesReader::read_packed(std::uint64_t at, std::size_t count, std::uint8_t* bytes) const {
    while (count > 0) {
        const ssize_t got = ::pread(file_.get(), bytes, count, static_cast<off_t>(at));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            throw WetError(name_, std::string("read error: ") + std::strerror(errno));
        }
        if (got == 0) {
            throw WetError(name_, "cannot read: the file shrank while it was read");
        }
        at += static_cast<std::uint64_t>(got);
        bytes += got;
        count -= static_cast<std::size_t>(got);
    }
}

void ZstdFramesReader::index() {
    const auto corrupt = [&](std::uint64_t at, const std::string& what) {
        throw WetError(name_, "truncated or corrupt zstd frames: at byte " + std::to_string(at) + ", " + what);
    };
    std::uint64_t at = 0;
    while (at < file_size_) {
        std::uint8_t head[ZSTD_FRAMEHEADERSIZE_MAX] = {};
        const std::size_t head_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof head, file_size_ - at));
        read_packed(at, head_bytes, head);
        ZSTD_frameHeader header{};
        const std::size_t result = ZSTD_getFrameHeader(&header, head, head_bytes);
        if (ZSTD_isError(result)) {
            corrupt(at, "not a zstd frame (" + zstd_text(result) + ")");
        }
        if (result != 0) {
            corrupt(at, "the file ends inside a frame's header");
        }
        if (header.frameType == ZSTD_skippableFrame) {
            at += header.headerSize + header.frameContentSize;
            continue;
        }
        if (header.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN) {
            corrupt(at, "a frame that does not say its size (wet reads frames that do, as wet run writes them)");
        }
        if (header.frameContentSize > max_frame_bytes) {
            corrupt(at, "a frame of " + std::to_string(header.frameContentSize) + " bytes (at most " +
                            std::to_string(max_frame_bytes) + ")");
        }
        // The index stays small whatever the file: frames but the last hold
        // min_frame_bytes or more, and no raw file is longer than max_bytes.
        if (!frames_.empty() && frames_.back().raw < min_frame_bytes) {
            corrupt(frames_.back().at, "a frame of " + std::to_string(frames_.back().raw) +
                                           " bytes before the last (at least " + std::to_string(min_frame_bytes) + ")");
        }
        if (header.frameContentSize > max_bytes - size_) {
            corrupt(at, "more than " + std::to_string(max_bytes) + " bytes in all");
        }
        Frame frame;
        frame.at = at;
        frame.raw_start = size_;
        frame.raw = header.frameContentSize;
        std::uint64_t block = at + header.headerSize;
        for (bool last = false; !last;) {
            if (file_size_ - std::min(block, file_size_) < 3) {
                corrupt(block, "the file ends inside a frame");
            }
            std::uint8_t bytes[3];
            read_packed(block, 3, bytes);
            const std::uint32_t word = bytes[0] | (std::uint32_t{bytes[1]} << 8) | (std::uint32_t{bytes[2]} << 16);
            last = (word & 1) != 0;
            const std::uint32_t type = (word >> 1) & 3;
            const std::uint32_t size = word >> 3;
            if (type == 3 || size > ZSTD_BLOCKSIZE_MAX) {
                corrupt(block, "not a zstd block");
            }
            block += 3 + (type == 1 ? 1 : size);  // an RLE block holds its one byte
        }
        block += header.checksumFlag != 0 ? 4 : 0;
        if (block > file_size_) {
            corrupt(at, "the file ends inside a frame");
        }
        frame.packed = block - at;
        if (frame.packed > ZSTD_compressBound(frame.raw) + ZSTD_FRAMEHEADERSIZE_MAX) {
            corrupt(at, "a frame larger than the bytes it holds allow");
        }
        size_ += frame.raw;
        frames_.push_back(frame);
        at = block;
    }
}

const std::vector<std::uint8_t>& ZstdFramesReader::decoded(std::size_t frame) const {
    for (const Decoded& kept : kept_) {
        if (kept.frame == frame) {
            return kept.bytes;
        }
    }
    Decoded& kept = kept_[next_kept_];
    next_kept_ = (next_kept_ + 1) % 2;
    const Frame& where = frames_[frame];
    packed_.resize(where.packed);
    read_packed(where.at, packed_.size(), packed_.data());
    kept.frame = SIZE_MAX;
    kept.bytes.resize(where.raw);
    const std::size_t got =
        ZSTD_decompressDCtx(context_.get(), kept.bytes.data(), kept.bytes.size(), packed_.data(), packed_.size());
    if (ZSTD_isError(got) || got != where.raw) {
        throw WetError(name_, "truncated or corrupt zstd frames: the frame at byte " + std::to_string(where.at) +
                                  (ZSTD_isError(got) ? " does not decompress (" + zstd_text(got) + ")"
                                                     : " holds " + std::to_string(got) + " bytes, not the " +
                                                           std::to_string(where.raw) + " its header says"));
    }
    kept.frame = frame;
    return kept.bytes;
}

void ZstdFramesReader::read(std::uint64_t offset, std::size_t count, std::uint8_t* bytes) const {
    if (count == 0) {
        return;  // nothing to find, even in a file of no frames
    }
    // The first frame holding `offset`: the last that starts at or before it.
    auto frame = std::upper_bound(frames_.begin(), frames_.end(), offset,
                                  [](std::uint64_t wanted, const Frame& f) { return wanted < f.raw_start; }) -
                 1;
    while (count > 0) {
        while (offset >= frame->raw_start + frame->raw) {
            ++frame;  // the frame after the one just read
        }
        const std::vector<std::uint8_t>& raw = decoded(static_cast<std::size_t>(frame - frames_.begin()));
        const std::size_t from = static_cast<std::size_t>(offset - frame->raw_start);
        const std::size_t taken = std::min(count, raw.size() - from);
        std::memcpy(bytes, raw.data() + from, taken);
        bytes += taken;
        offset += taken;
        count -= taken;
    }
}

std::vector<std::uint8_t> read_raw_bytes(const std::string& name) {
    // A regular file of frames is read once, through its index; anything
    // else whole, as it is (as PiecesFile reads a file that is not a
    // regular one: frames through a pipe fail the caller's magic check).
    tcgen_runtime::Descriptor file(::open(name.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat status {};
    std::uint8_t head[sizeof zstd_magic] = {};
    if (file.get() >= 0 && ::fstat(file.get(), &status) == 0 && S_ISREG(status.st_mode) &&
        ::pread(file.get(), head, sizeof head, 0) == static_cast<ssize_t>(sizeof head) &&
        starts_zstd_frames(head, sizeof head)) {
        const ZstdFramesReader frames(name, std::move(file));
        std::vector<std::uint8_t> raw(static_cast<std::size_t>(frames.size()));
        frames.read(0, raw.size(), raw.data());
        return raw;
    }
    return read_whole_file(name);
}

}  // namespace tcgen::wet
