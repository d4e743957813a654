#pragma once
// The stream back-ends a .tcz can use, one per compressed buffer, recorded
// beside it (docs/format.md): bzip2 (the TCgen paper's), LZMA and zstd.
// Every one stores an empty buffer as zero bytes. A writer picks each
// buffer's back-end (BackendChoice): by default the smaller output of LZMA
// and bzip2.

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

// The back-end of a buffer that no choice has to be made for (tests, and
// the ties of BackendChoice).
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

// The compression levels a writer takes, as xz and zstd do (-0 .. -9).
inline constexpr unsigned default_level = 6;
inline constexpr unsigned max_level = 9;

// Compresses at `level`: LZMA's encoder preset up to 6 (7-9 search as 6
// does here; BackendChoice searches further); bzip2 is always at -9 and zstd
// at 19, whose decoders' memory the format caps.
inline void backend_compress(Backend backend, const std::uint8_t* data, std::size_t size,
                             std::vector<std::uint8_t>& compressed, unsigned level = default_level) {
    switch (backend) {
        case Backend::bzip2:
            return bz2_compress(data, size, compressed);
        case Backend::lzma:
            return lzma_compress(data, size, compressed, level < lzma_default_preset ? level : lzma_default_preset);
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

// What a writer compresses each buffer with: one back-end for every buffer
// (`--backend=NAME`), or by default, per buffer, whichever of LZMA and bzip2
// writes fewer bytes (LZMA on a tie: it decodes faster). Neither wins
// everywhere: bzip2's block sorting is ahead on the code streams of regular
// traces (up to a third smaller on sqlite3's store addresses), LZMA on the
// rest. zstd is not tried: it was never the smallest on the corpus
// (docs/benchmarks.md, "Choosing the back-end per stream").
class BackendChoice {
public:
    constexpr BackendChoice() = default;
    // A Backend converts to the choice of that back-end alone.
    constexpr BackendChoice(Backend only) : only_(only) {}  // NOLINT(google-explicit-constructor)

    // The one back-end chosen, or none for the smaller of two.
    constexpr std::optional<Backend> only() const { return only_; }

    // Compresses `size` bytes at `data` into `compressed` at `level`
    // (`scratch` is the caller's buffer for the candidate that loses) and
    // returns the back-end used. At levels above the default a buffer that
    // LZMA compresses best, and at least 8-fold, is compressed once more
    // following every match to its end, and the smaller kept: code streams
    // of long repeats shrink by up to a tenth more, while the misses and the
    // buffers bzip2 wins, where the slower search gains nothing, do not pay
    // for it (docs/benchmarks.md, "Compression levels").
    Backend compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                     std::vector<std::uint8_t>& scratch, unsigned level = default_level) const {
        Backend chosen = only_.value_or(Backend::lzma);
        backend_compress(chosen, data, size, compressed, level);
        if (!only_) {
            backend_compress(Backend::bzip2, data, size, scratch, level);
            if (scratch.size() < compressed.size()) {
                compressed.swap(scratch);
                chosen = Backend::bzip2;
            }
        }
        if (chosen == Backend::lzma && level > default_level && compressed.size() <= size / 8) {
            lzma_compress(data, size, scratch, lzma_default_preset, LzmaSearch::longest_matches);
            if (scratch.size() < compressed.size()) {
                compressed.swap(scratch);
            }
        }
        return chosen;
    }

private:
    std::optional<Backend> only_;
};

}  // namespace tcgen_runtime
