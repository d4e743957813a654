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
#include <vector>

#include <bzlib.h>

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

// Decompresses exactly one bzip2 stream into `out` (replacing its contents),
// which must come to exactly expected_size bytes, with no bytes left over on
// either side. `what` names the data in messages ("stream 'codes' of block
// 3"). The expected size comes from an untrusted file, so `out` grows as
// output arrives (doubling, never beyond the expected size): memory follows
// what the data really holds, not what a header claims.
inline void bz2_decompress(const std::uint8_t* input, std::size_t input_size, std::vector<std::uint8_t>& out,
                           std::size_t expected_size, std::string_view what = "bzip2 data") {
    const std::string name(what);
    out.clear();
    if (input_size == 0 || expected_size == 0) {
        if (input_size == 0 && expected_size == 0) {
            return;
        }
        if (input_size == 0) {
            fail("corrupt input: " + name + " is empty but should hold " + std::to_string(expected_size) + " bytes");
        }
        fail("corrupt input: " + name + " should be empty but has " + std::to_string(input_size) + " compressed bytes");
    }
    if (input_size > bz2_max_buffer_bytes || expected_size > bz2_max_buffer_bytes) {
        fail("corrupt input: " + name + " is too large for bzip2");
    }
    bz_stream stream{};
    const int init_result = BZ2_bzDecompressInit(&stream, 0, 0);
    if (init_result == BZ_MEM_ERROR) {
        throw std::bad_alloc();
    }
    if (init_result != BZ_OK) {
        fail("internal error: bzip2 initialisation failed (" + bz2_error_name(init_result) + ")");
    }
    stream.next_in = reinterpret_cast<char*>(const_cast<std::uint8_t*>(input));
    stream.avail_in = static_cast<unsigned int>(input_size);
    constexpr std::size_t first_size = std::size_t{1} << 16;
    std::size_t produced = 0;
    bool output_overflows = false;
    int result = BZ_OK;
    while (result == BZ_OK) {
        if (produced == expected_size) {
            // The output is full but the stream has not ended: either more
            // output follows or the input stops short. One spare byte tells.
            char spare = 0;
            stream.next_out = &spare;
            stream.avail_out = 1;
            result = BZ2_bzDecompress(&stream);
            output_overflows = stream.avail_out == 0;
            break;
        }
        if (produced == out.size()) {
            out.resize(std::min(expected_size, std::max(first_size, 2 * out.size())));
        }
        stream.next_out = reinterpret_cast<char*>(out.data() + produced);
        stream.avail_out = static_cast<unsigned int>(out.size() - produced);
        result = BZ2_bzDecompress(&stream);
        produced = out.size() - stream.avail_out;
        if (result == BZ_OK && stream.avail_out > 0) {
            break;  // all input consumed, output not full: the stream stops short
        }
    }
    const unsigned int input_left = stream.avail_in;
    BZ2_bzDecompressEnd(&stream);
    if (result == BZ_MEM_ERROR) {
        throw std::bad_alloc();
    }
    if (output_overflows) {
        fail("corrupt input: " + name + " decompresses to more than " + std::to_string(expected_size) + " bytes");
    }
    if (result == BZ_OK) {
        fail("corrupt input: " + name + " ends in the middle of the bzip2 stream");
    }
    if (result != BZ_STREAM_END) {
        fail("corrupt input: " + name + " is not valid bzip2 data (" + bz2_error_name(result) + ")");
    }
    if (produced != expected_size) {
        fail("corrupt input: " + name + " decompresses to " + std::to_string(produced) + " bytes instead of " +
             std::to_string(expected_size));
    }
    if (input_left != 0) {
        fail("corrupt input: " + name + " has " + std::to_string(input_left) +
             " bytes after the end of its bzip2 stream");
    }
}

}  // namespace tcgen_runtime
