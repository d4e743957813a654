#pragma once
// LZMA (liblzma's raw LZMA2, no .xz container) on whole in-memory buffers,
// the default stream back-end: on the streams of real traces it compresses
// 13-26 % better than bzip2 and decodes faster (docs/design/log.md, "Stream back-ends").
//
// Format rule: LZMA2 with liblzma's literal and position settings (lc = 3,
// lp = 0, pb = 2, those of every preset) and the dictionary
// lzma_dictionary_bytes(raw size), which both sides compute from the raw
// size the block records, so no header is stored. How hard the encoder
// searches for matches is the writer's choice (a preset, 6 by default)
// that the decoder does not need to know; an empty buffer is stored
// as zero bytes. The dictionary is capped at 64 MiB (xz -9's), which also
// caps what a decoder allocates whatever a damaged file claims; a stream of
// a default 16 MiB block never needs more than 16 MiB.

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <lzma.h>

#include "decode_growing.hpp"
#include "error.hpp"
#include "format_limits.hpp"
#include "levels.hpp"

namespace tcgen_runtime {

// LZMA2 stores what it cannot shrink in chunks of at most 64 KiB behind a
// 3-byte header, and ends with one byte; this bound is well above that.
constexpr std::uint64_t lzma_compress_bound(std::uint64_t size) {
    return size + size / 1024 + 64;
}

inline std::string lzma_error_name(lzma_ret code) {
    switch (code) {
        case LZMA_MEM_ERROR:
            return "LZMA_MEM_ERROR";
        case LZMA_MEMLIMIT_ERROR:
            return "LZMA_MEMLIMIT_ERROR";
        case LZMA_FORMAT_ERROR:
            return "LZMA_FORMAT_ERROR";
        case LZMA_OPTIONS_ERROR:
            return "LZMA_OPTIONS_ERROR";
        case LZMA_DATA_ERROR:
            return "LZMA_DATA_ERROR";
        case LZMA_BUF_ERROR:
            return "LZMA_BUF_ERROR";
        case LZMA_PROG_ERROR:
            return "LZMA_PROG_ERROR";
        default:
            return "liblzma error " + std::to_string(static_cast<int>(code));
    }
}

// The encoder preset unless a writer asks for another (0-9; 7-9 search as
// 6 does, as the dictionary is the format's, not the preset's).
inline constexpr std::uint32_t lzma_default_preset = 6;

// How hard the encoder's match finder searches: LzmaSearch (levels.hpp).

// The filter chain for a buffer of raw_size bytes: the decoder's, or the
// encoder's at `preset` with `search`.
class LzmaFilters {
public:
    explicit LzmaFilters(std::uint64_t raw_size, std::uint32_t preset = lzma_default_preset,
                         LzmaSearch search = LzmaSearch::preset) {
        if (lzma_lzma_preset(&options_, preset) != 0) {
            fail("internal error: liblzma has no preset " + std::to_string(preset));
        }
        options_.dict_size = lzma_dictionary_bytes(raw_size);
        if (search == LzmaSearch::shallow) {
            options_.depth = 8;
        }
        if (search == LzmaSearch::longest_matches) {
            options_.nice_len = 273;  // LZMA's longest match
        }
        filters_[0].id = LZMA_FILTER_LZMA2;
        filters_[0].options = &options_;
        filters_[1].id = LZMA_VLI_UNKNOWN;
        filters_[1].options = nullptr;
    }
    LzmaFilters(const LzmaFilters&) = delete;
    LzmaFilters& operator=(const LzmaFilters&) = delete;

    const lzma_filter* chain() const { return filters_; }

private:
    lzma_options_lzma options_{};
    lzma_filter filters_[2]{};
};

// An LZMA encoder kept by a thread for its small buffers. Setting one up maps
// and clears its match finder's tables (half a megabyte even for a 4 KiB
// dictionary), which made tiny blocks cost a millisecond each; liblzma
// reuses an encoder's memory when the next buffer's dictionary has the same
// size. Only small dictionaries are kept, so that a thread that compressed
// a big buffer does not hold a big encoder afterwards.
class ReusedLzmaEncoder {
public:
    static constexpr std::uint64_t largest_raw_size = std::uint64_t{256} << 10;

    ReusedLzmaEncoder() = default;
    ReusedLzmaEncoder(const ReusedLzmaEncoder&) = delete;
    ReusedLzmaEncoder& operator=(const ReusedLzmaEncoder&) = delete;
    ~ReusedLzmaEncoder() { lzma_end(&stream_); }

    static ReusedLzmaEncoder& of_this_thread() {
        thread_local ReusedLzmaEncoder encoder;
        return encoder;
    }

    // As lzma_raw_buffer_encode, which makes the same bytes.
    lzma_ret encode(const lzma_filter* filters, const std::uint8_t* data, std::size_t size, std::uint8_t* out,
                    std::size_t* out_size, std::size_t out_room) {
        lzma_ret result = lzma_raw_encoder(&stream_, filters);
        if (result != LZMA_OK) {
            return result;
        }
        stream_.next_in = data;
        stream_.avail_in = size;
        stream_.next_out = out;
        stream_.avail_out = out_room;
        result = lzma_code(&stream_, LZMA_FINISH);
        if (result != LZMA_STREAM_END) {
            return result == LZMA_OK ? LZMA_BUF_ERROR : result;
        }
        *out_size = out_room - stream_.avail_out;
        return LZMA_OK;
    }

private:
    lzma_stream stream_ = LZMA_STREAM_INIT;
};

// Compresses data[0..size) into `compressed` (replacing its contents) with
// the encoder's `preset` and `search`.
inline void lzma_compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                          std::uint32_t preset = lzma_default_preset, LzmaSearch search = LzmaSearch::preset) {
    compressed.clear();
    if (size == 0) {
        return;
    }
    const LzmaFilters filters(size, preset, search);
    compressed.resize(static_cast<std::size_t>(lzma_compress_bound(size)));
    std::size_t compressed_size = 0;
    const lzma_ret result =
        size <= ReusedLzmaEncoder::largest_raw_size
            ? ReusedLzmaEncoder::of_this_thread().encode(filters.chain(), data, size, compressed.data(),
                                                         &compressed_size, compressed.size())
            : lzma_raw_buffer_encode(filters.chain(), nullptr, data, size, compressed.data(), &compressed_size,
                                     compressed.size());
    if (result == LZMA_MEM_ERROR) {
        throw std::bad_alloc();
    }
    if (result != LZMA_OK) {
        fail("internal error: LZMA compression failed (" + lzma_error_name(result) + ")");
    }
    compressed.resize(compressed_size);
}

// One raw LZMA2 stream being decoded, for decode_growing.
class LzmaDecoder {
public:
    LzmaDecoder(const std::uint8_t* input, std::size_t input_size, std::uint64_t raw_size, std::string name)
        : name_(std::move(name)) {
        const LzmaFilters filters(raw_size);
        const lzma_ret result = lzma_raw_decoder(&stream_, filters.chain());
        if (result == LZMA_MEM_ERROR) {
            throw std::bad_alloc();
        }
        if (result != LZMA_OK) {
            fail("internal error: LZMA initialisation failed (" + lzma_error_name(result) + ")");
        }
        stream_.next_in = input;
        stream_.avail_in = input_size;
    }
    LzmaDecoder(const LzmaDecoder&) = delete;
    LzmaDecoder& operator=(const LzmaDecoder&) = delete;
    ~LzmaDecoder() { lzma_end(&stream_); }

    bool step(std::uint8_t* output, std::size_t room, std::size_t& written) {
        stream_.next_out = output;
        stream_.avail_out = room;
        const lzma_ret result = lzma_code(&stream_, LZMA_FINISH);
        written = room - stream_.avail_out;
        if (result == LZMA_MEM_ERROR) {
            throw std::bad_alloc();
        }
        // LZMA_BUF_ERROR: no progress possible, the input ends too early;
        // decode_growing reports that.
        if (result != LZMA_OK && result != LZMA_STREAM_END && result != LZMA_BUF_ERROR) {
            fail("corrupt input: " + name_ + " is not valid LZMA data (" + lzma_error_name(result) + ")");
        }
        return result == LZMA_STREAM_END;
    }

    std::size_t input_left() const { return stream_.avail_in; }

private:
    std::string name_;
    lzma_stream stream_ = LZMA_STREAM_INIT;
};

// What the back-end's encoder takes at work on one stream, for the memory
// estimate (backends.hpp): at preset 6 (binary-tree match finder) about 12
// bytes per byte of its dictionary, the stream's size rounded up to a power
// of two.
constexpr std::uint64_t lzma_encoder_bytes(std::uint64_t stream_bytes) {
    return 12 * std::uint64_t{lzma_dictionary_bytes(stream_bytes)};
}

// The back-end's longer search (backends.hpp, BackendChoice): the default
// preset following every match to its end.
inline void lzma_compress_longest_matches(const std::uint8_t* data, std::size_t size,
                                          std::vector<std::uint8_t>& compressed) {
    lzma_compress(data, size, compressed, lzma_default_preset, LzmaSearch::longest_matches);
}

// The back-end's compression (backends.hpp): the preset and search of the
// level's row.
inline void lzma_compress_at_level(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                                   unsigned level) {
    const LevelRow& row = level_row(level);
    lzma_compress(data, size, compressed, row.lzma_preset, row.lzma_search);
}

// Decompresses exactly one raw LZMA2 stream into `out`, like bz2_decompress.
inline void lzma_decompress(const std::uint8_t* input, std::size_t input_size, std::vector<std::uint8_t>& out,
                            std::size_t expected_size, std::string_view what = "LZMA data") {
    const std::string name(what);
    out.clear();
    if (check_empty_buffers(input_size, expected_size, name)) {
        return;
    }
    LzmaDecoder decoder(input, input_size, expected_size, name);
    decode_growing(decoder, out, expected_size, name, "LZMA");
}

}  // namespace tcgen_runtime
