#pragma once
// Zstandard (libzstd) on whole in-memory buffers, the back-end for users who
// want the fastest decoding (`--backend=zstd`).
//
// Format rule: one zstd frame at level 19 with a window of at most 8 MiB
// (2^23), its content size recorded, no checksum (the container has its
// own); an empty buffer is stored as zero bytes. A decoder refuses windows
// above 8 MiB, which caps what it allocates whatever a damaged file claims.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <zstd.h>
#include <zstd_errors.h>

#include "decode_growing.hpp"
#include "error.hpp"

namespace tcgen_runtime {

inline constexpr int zstd_level = 19;
inline constexpr int zstd_window_log = 23;

// ZSTD_compressBound's formula (zstd.h's ZSTD_COMPRESSBOUND), as a constant
// expression.
constexpr std::uint64_t zstd_compress_bound(std::uint64_t size) {
    return size + (size >> 8) + (size < (std::uint64_t{128} << 10) ? ((std::uint64_t{128} << 10) - size) >> 11 : 0);
}

inline std::string zstd_error_text(std::size_t code) {
    return ZSTD_getErrorName(code);
}

// Buffers up to this size are compressed with a context kept per thread:
// making a context costs more than coding a small buffer (a restart group
// of a few short blocks, a fuzzer's input), and zstd sizes the workspace to
// the input, so a kept context stays well under a megabyte. Larger buffers
// get a context of their own, freed after, so that no thread keeps a
// level-19 workspace. The bytes are the same either way.
inline constexpr std::size_t zstd_kept_context_limit = std::size_t{64} << 10;

using ZstdContext = std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)>;

// A fresh compression context, freed with its owner.
inline ZstdContext zstd_new_context() {
    ZstdContext context(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (context == nullptr) {
        throw std::bad_alloc();
    }
    return context;
}

// A context with the format's parameters set (they stay set across frames).
inline ZstdContext zstd_format_context() {
    ZstdContext context = zstd_new_context();
    std::size_t result = ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, zstd_level);
    if (!ZSTD_isError(result)) {
        result = ZSTD_CCtx_setParameter(context.get(), ZSTD_c_windowLog, zstd_window_log);
    }
    if (ZSTD_isError(result)) {
        fail("internal error: zstd initialisation failed (" + zstd_error_text(result) + ")");
    }
    return context;
}

// Compresses data[0..size) into `compressed` (replacing its contents).
inline void zstd_compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed) {
    compressed.clear();
    if (size == 0) {
        return;
    }
    compressed.resize(static_cast<std::size_t>(zstd_compress_bound(size)));
    std::size_t result = 0;
    if (size <= zstd_kept_context_limit) {
        thread_local const auto kept = zstd_format_context();
        result = ZSTD_compress2(kept.get(), compressed.data(), compressed.size(), data, size);
    } else {
        const auto own = zstd_format_context();
        result = ZSTD_compress2(own.get(), compressed.data(), compressed.size(), data, size);
    }
    if (ZSTD_isError(result)) {
        fail("internal error: zstd compression failed (" + zstd_error_text(result) + ")");
    }
    compressed.resize(result);
}

// Frames outside the .tcz format's rule, for the WET's labels and flow: at
// any level, with zstd's own window for it, an empty input a frame too. As
// zstd_compress() does, an input up to the limit below is coded with a
// context kept per thread and a larger one with a context of its own. The
// limit holds a WET's shared frames (256 KiB and a chunk at most), made by
// the thousand, with a kept level-19 workspace of about 9 MB; a larger
// input coded once (a WET's symbols, a few MB) would otherwise leave its
// tables of tens of MB to the thread for the rest of its life.
inline constexpr std::size_t zstd_frame_kept_context_limit = std::size_t{512} << 10;

// `size` bytes at `data` as one zstd frame at `level`, its content size
// stated.
inline std::vector<std::uint8_t> zstd_frame(const std::uint8_t* data, std::size_t size, int level) {
    thread_local const ZstdContext kept = zstd_new_context();
    const ZstdContext own =
        size > zstd_frame_kept_context_limit ? zstd_new_context() : ZstdContext(nullptr, ZSTD_freeCCtx);
    ZSTD_CCtx* const context = own ? own.get() : kept.get();
    std::vector<std::uint8_t> frame(ZSTD_compressBound(size));
    const std::size_t result = ZSTD_compressCCtx(context, frame.data(), frame.size(), data, size, level);
    if (ZSTD_isError(result)) {
        fail("internal error: zstd compression failed (" + zstd_error_text(result) + ")");
    }
    frame.resize(result);
    return frame;
}

inline std::vector<std::uint8_t> zstd_frame(const std::vector<std::uint8_t>& bytes, int level) {
    return zstd_frame(bytes.data(), bytes.size(), level);
}

// The same with the match finder's tables held to 2^chain_log and 2^hash_log
// entries of 4 bytes, whatever the input's size (zstd's own for a large
// input at level 19 take 2^24 and 2^22), in a context freed once done.
inline std::vector<std::uint8_t> zstd_frame(const std::vector<std::uint8_t>& bytes, int level, int chain_log,
                                            int hash_log) {
    const ZstdContext context = zstd_new_context();
    std::size_t result = ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(result)) {
        result = ZSTD_CCtx_setParameter(context.get(), ZSTD_c_chainLog, chain_log);
    }
    if (!ZSTD_isError(result)) {
        result = ZSTD_CCtx_setParameter(context.get(), ZSTD_c_hashLog, hash_log);
    }
    std::vector<std::uint8_t> frame(ZSTD_compressBound(bytes.size()));
    if (!ZSTD_isError(result)) {
        result = ZSTD_compress2(context.get(), frame.data(), frame.size(), bytes.data(), bytes.size());
    }
    if (ZSTD_isError(result)) {
        fail("internal error: zstd compression failed (" + zstd_error_text(result) + ")");
    }
    frame.resize(result);
    return frame;
}

// The content size the zstd frame at `data` states, or none where it states
// none or is no frame.
inline std::optional<std::uint64_t> zstd_frame_content_size(const std::uint8_t* data, std::size_t size) {
    const unsigned long long stated = ZSTD_getFrameContentSize(data, size);
    if (stated == ZSTD_CONTENTSIZE_UNKNOWN || stated == ZSTD_CONTENTSIZE_ERROR) {
        return std::nullopt;
    }
    return stated;
}

// Decodes the zstd frame `data` of `size` bytes into exactly `expected`
// bytes at `out`; false if it states another content size or does not
// decode to it.
inline bool zstd_unframe(const std::uint8_t* data, std::size_t size, std::uint8_t* out, std::uint64_t expected) {
    if (zstd_frame_content_size(data, size) != expected) {
        return false;
    }
    thread_local const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> context(ZSTD_createDCtx(),
                                                                                       ZSTD_freeDCtx);
    if (context == nullptr) {
        throw std::bad_alloc();
    }
    const std::size_t got = ZSTD_decompressDCtx(context.get(), out, static_cast<std::size_t>(expected), data, size);
    return !ZSTD_isError(got) && got == expected;
}

// One zstd frame being decoded, for decode_growing.
class ZstdDecoder {
public:
    ZstdDecoder(const std::uint8_t* input, std::size_t input_size, std::string name)
        : name_(std::move(name)), context_(ZSTD_createDCtx()), input_{input, input_size, 0} {
        if (context_ == nullptr) {
            throw std::bad_alloc();
        }
        const std::size_t result = ZSTD_DCtx_setParameter(context_, ZSTD_d_windowLogMax, zstd_window_log);
        if (ZSTD_isError(result)) {
            ZSTD_freeDCtx(context_);
            fail("internal error: zstd initialisation failed (" + zstd_error_text(result) + ")");
        }
    }
    ZstdDecoder(const ZstdDecoder&) = delete;
    ZstdDecoder& operator=(const ZstdDecoder&) = delete;
    ~ZstdDecoder() { ZSTD_freeDCtx(context_); }

    bool step(std::uint8_t* output, std::size_t room, std::size_t& written) {
        ZSTD_outBuffer out{output, room, 0};
        // Until the output is full, the frame ends or nothing moves (the
        // input is used up and nothing is left to flush).
        while (true) {
            const std::size_t input_before = input_.pos;
            const std::size_t output_before = out.pos;
            const std::size_t result = ZSTD_decompressStream(context_, &out, &input_);
            written = out.pos;
            if (ZSTD_isError(result)) {
                if (ZSTD_getErrorCode(result) == ZSTD_error_memory_allocation) {
                    throw std::bad_alloc();
                }
                fail("corrupt input: " + name_ + " is not valid zstd data (" + zstd_error_text(result) + ")");
            }
            if (result == 0) {
                return true;
            }
            if (out.pos == room || (input_.pos == input_before && out.pos == output_before)) {
                return false;
            }
        }
    }

    std::size_t input_left() const { return input_.size - input_.pos; }

private:
    std::string name_;
    ZSTD_DCtx* context_;
    ZSTD_inBuffer input_;
};

// What the back-end's encoder takes at work on one stream, for the memory
// estimate (backends.hpp): at level 19 its window (2^23 bytes), hash table
// (2^22 entries) and binary tree (2^24 entries) of 4 bytes an entry, at most.
constexpr std::uint64_t zstd_encoder_bytes(std::uint64_t /*stream_bytes*/) {
    return (std::uint64_t{1} << zstd_window_log) + 4 * (std::uint64_t{1} << 22) + 4 * (std::uint64_t{1} << 24);
}

// The back-end's compression (backends.hpp): always at zstd_level, whatever
// the level, as the format caps a decoder's memory.
inline void zstd_compress_at_level(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                                   unsigned /*level*/) {
    zstd_compress(data, size, compressed);
}

// Decompresses exactly one zstd frame into `out`, like bz2_decompress.
inline void zstd_decompress(const std::uint8_t* input, std::size_t input_size, std::vector<std::uint8_t>& out,
                            std::size_t expected_size, std::string_view what = "zstd data") {
    const std::string name(what);
    out.clear();
    if (check_empty_buffers(input_size, expected_size, name)) {
        return;
    }
    ZstdDecoder decoder(input, input_size, name);
    decode_growing(decoder, out, expected_size, name, "zstd");
}

}  // namespace tcgen_runtime
