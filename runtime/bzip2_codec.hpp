#pragma once
// bzip2 (libbz2) on whole in-memory buffers, the back end that squeezes each
// stream after the predictors have turned it into something compressible.
//
// Format rule: an empty buffer is stored as zero bytes, without calling
// bzip2, and zero compressed bytes always mean an empty buffer.
// libbz2 counts in unsigned int, so a buffer must stay below 4 GiB; the
// container keeps its blocks far below that, and larger buffers are refused
// here rather than silently truncated.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <bzlib.h>

#include "decode_growing.hpp"
#include "error.hpp"

namespace tcgen_runtime {

// bzip2's documented worst case: 1% larger plus 600 bytes.
constexpr std::uint64_t bz2_compress_bound(std::uint64_t size) {
    return size + size / 100 + 600;
}

// Largest buffer accepted in either direction: 3.75 GiB, so that even its
// worst-case compressed size fits libbz2's unsigned int.
inline constexpr std::uint64_t bz2_max_buffer_bytes = 0xF0000000u;
static_assert(bz2_compress_bound(bz2_max_buffer_bytes) <= std::numeric_limits<unsigned int>::max(),
              "bzip2 buffer limit must fit unsigned int");

inline std::string bz2_error_name(int code) {
    switch (code) {
        case BZ_SEQUENCE_ERROR:
            return "BZ_SEQUENCE_ERROR";
        case BZ_PARAM_ERROR:
            return "BZ_PARAM_ERROR";
        case BZ_MEM_ERROR:
            return "BZ_MEM_ERROR";
        case BZ_DATA_ERROR:
            return "BZ_DATA_ERROR";
        case BZ_DATA_ERROR_MAGIC:
            return "BZ_DATA_ERROR_MAGIC";
        case BZ_IO_ERROR:
            return "BZ_IO_ERROR";
        case BZ_UNEXPECTED_EOF:
            return "BZ_UNEXPECTED_EOF";
        case BZ_OUTBUFF_FULL:
            return "BZ_OUTBUFF_FULL";
        case BZ_CONFIG_ERROR:
            return "BZ_CONFIG_ERROR";
        default:
            return "bzip2 error " + std::to_string(code);
    }
}

// Compresses data[0..size) into `compressed` (replacing its contents; its
// capacity is reused). level is bzip2's 1..9 block size in 100 kB.
inline void bz2_compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                         int level = 9) {
    compressed.clear();
    if (size == 0) {
        return;
    }
    if (size > bz2_max_buffer_bytes) {
        fail("internal error: a stream of " + std::to_string(size) + " bytes is too large for bzip2 (limit " +
             std::to_string(bz2_max_buffer_bytes) + ")");
    }
    if (level < 1 || level > 9) {
        fail("internal error: bzip2 level " + std::to_string(level) + " is not in 1..9");
    }
    // A buffer that fits one smaller bzip2 block compresses to the same data
    // whatever the level, but a smaller level makes libbz2 allocate less.
    // (bzip2 fills at most 100000 * level - 19 bytes per block.)
    const std::size_t blocks_of_100k = (size + 19 + 99999) / 100000;
    const int effective_level =
        blocks_of_100k < static_cast<std::size_t>(level) ? static_cast<int>(blocks_of_100k) : level;
    compressed.resize(static_cast<std::size_t>(bz2_compress_bound(size)));
    unsigned int compressed_size = static_cast<unsigned int>(compressed.size());
    // libbz2 predates const: it never writes through the source pointer.
    char* source = reinterpret_cast<char*>(const_cast<std::uint8_t*>(data));
    const int result = BZ2_bzBuffToBuffCompress(reinterpret_cast<char*>(compressed.data()), &compressed_size, source,
                                                static_cast<unsigned int>(size), effective_level, 0, 0);
    if (result == BZ_MEM_ERROR) {
        throw std::bad_alloc();
    }
    if (result != BZ_OK) {
        fail("internal error: bzip2 compression failed (" + bz2_error_name(result) + ")");
    }
    compressed.resize(compressed_size);
}

inline std::vector<std::uint8_t> bz2_compress(const std::uint8_t* data, std::size_t size, int level = 9) {
    std::vector<std::uint8_t> compressed;
    bz2_compress(data, size, compressed, level);
    return compressed;
}

// One bzip2 stream being decoded, for decode_growing.
class Bz2Decoder {
public:
    Bz2Decoder(const std::uint8_t* input, std::size_t input_size, std::string name) : name_(std::move(name)) {
        const int result = BZ2_bzDecompressInit(&stream_, 0, 0);
        if (result == BZ_MEM_ERROR) {
            throw std::bad_alloc();
        }
        if (result != BZ_OK) {
            fail("internal error: bzip2 initialisation failed (" + bz2_error_name(result) + ")");
        }
        // libbz2 predates const: it never writes through the input pointer.
        stream_.next_in = reinterpret_cast<char*>(const_cast<std::uint8_t*>(input));
        stream_.avail_in = static_cast<unsigned int>(input_size);
    }
    Bz2Decoder(const Bz2Decoder&) = delete;
    Bz2Decoder& operator=(const Bz2Decoder&) = delete;
    ~Bz2Decoder() { BZ2_bzDecompressEnd(&stream_); }

    bool step(std::uint8_t* output, std::size_t room, std::size_t& written) {
        stream_.next_out = reinterpret_cast<char*>(output);
        stream_.avail_out = static_cast<unsigned int>(room);
        const int result = BZ2_bzDecompress(&stream_);
        written = room - stream_.avail_out;
        if (result == BZ_MEM_ERROR) {
            throw std::bad_alloc();
        }
        if (result != BZ_OK && result != BZ_STREAM_END) {
            fail("corrupt input: " + name_ + " is not valid bzip2 data (" + bz2_error_name(result) + ")");
        }
        return result == BZ_STREAM_END;
    }

    std::size_t input_left() const { return stream_.avail_in; }

private:
    std::string name_;
    bz_stream stream_{};
};

// What the back-end's encoder takes at work on one stream, for the memory
// estimate (backends.hpp): bzip2 -9 takes ~7.6 MB whatever the stream.
constexpr std::uint64_t bz2_encoder_bytes(std::uint64_t /*stream_bytes*/) {
    return std::uint64_t{8} << 20;
}

// The back-end's compression (backends.hpp): always at -9, whatever the
// level, as the format caps a decoder's memory.
inline void bz2_compress_at_level(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                                  unsigned /*level*/) {
    bz2_compress(data, size, compressed);
}

// Decompresses exactly one bzip2 stream into `out` (replacing its contents),
// which must come to exactly expected_size bytes, with no bytes left over on
// either side. `what` names the data in messages ("stream 'codes' of block
// 3"). The expected size comes from an untrusted file, so `out` grows as
// output arrives (decode_growing): memory follows what the data really
// holds, not what a header claims.
inline void bz2_decompress(const std::uint8_t* input, std::size_t input_size, std::vector<std::uint8_t>& out,
                           std::size_t expected_size, std::string_view what = "bzip2 data") {
    const std::string name(what);
    out.clear();
    if (check_empty_buffers(input_size, expected_size, name)) {
        return;
    }
    if (input_size > bz2_max_buffer_bytes || expected_size > bz2_max_buffer_bytes) {
        fail("corrupt input: " + name + " is too large for bzip2");
    }
    Bz2Decoder decoder(input, input_size, name);
    decode_growing(decoder, out, expected_size, name, "bzip2");
}

}  // namespace tcgen_runtime
