#pragma once
// The stream back-ends a .tcz can use, one per compressed buffer, recorded
// beside it (docs/format.md): bzip2 (the TCgen paper's), LZMA (the default)
// and zstd. Every one stores an empty buffer as zero bytes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bzip2_codec.hpp"
#include "error.hpp"
#include "lzma_codec.hpp"
#include "zstd_codec.hpp"

namespace tcgen_runtime {

// The values are the format's back-end identifiers.
enum class Backend : std::uint8_t { bzip2 = 1, lzma = 2, zstd = 3 };

inline constexpr Backend default_backend = Backend::lzma;

inline constexpr std::string_view backend_name(Backend backend) {
    switch (backend) {
        case Backend::bzip2:
            return "bzip2";
        case Backend::lzma:
            return "lzma";
        case Backend::zstd:
            return "zstd";
    }
    return "unknown";
}

// The back-end a file's identifier names, if any.
inline std::optional<Backend> backend_from_id(std::uint8_t id) {
    for (const Backend backend : {Backend::bzip2, Backend::lzma, Backend::zstd}) {
        if (static_cast<std::uint8_t>(backend) == id) {
            return backend;
        }
    }
    return std::nullopt;
}

// The back-end a command line names, if any.
inline std::optional<Backend> backend_from_name(std::string_view name) {
    for (const Backend backend : {Backend::bzip2, Backend::lzma, Backend::zstd}) {
        if (backend_name(backend) == name) {
            return backend;
        }
    }
    return std::nullopt;
}

// The most compressed bytes `backend` writes for raw_size bytes; a reader
// refuses more before it allocates anything.
constexpr std::uint64_t backend_compress_bound(Backend backend, std::uint64_t raw_size) {
    switch (backend) {
        case Backend::bzip2:
            return bz2_compress_bound(raw_size);
        case Backend::lzma:
            return lzma_compress_bound(raw_size);
        case Backend::zstd:
            return zstd_compress_bound(raw_size);
    }
    return 0;
}

inline void backend_compress(Backend backend, const std::uint8_t* data, std::size_t size,
                             std::vector<std::uint8_t>& compressed) {
    switch (backend) {
        case Backend::bzip2:
            return bz2_compress(data, size, compressed);
        case Backend::lzma:
            return lzma_compress(data, size, compressed);
        case Backend::zstd:
            return zstd_compress(data, size, compressed);
    }
}

inline void backend_decompress(Backend backend, const std::uint8_t* input, std::size_t input_size,
                               std::vector<std::uint8_t>& out, std::size_t expected_size, std::string_view what) {
    switch (backend) {
        case Backend::bzip2:
            return bz2_decompress(input, input_size, out, expected_size, what);
        case Backend::lzma:
            return lzma_decompress(input, input_size, out, expected_size, what);
        case Backend::zstd:
            return zstd_decompress(input, input_size, out, expected_size, what);
    }
}

}  // namespace tcgen_runtime
