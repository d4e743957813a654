#pragma once
// The stream back-ends a .tcz can use, one per compressed buffer, recorded
// beside it (docs/format.md): the rows of backend_table. Every one stores an
// empty buffer as zero bytes. A writer picks each buffer's back-end
// (BackendChoice): by default the smallest output of those the level's row
// names (levels.hpp).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bzip2_codec.hpp"
#include "cm_codec.hpp"
#include "error.hpp"
#include "grammar_codec.hpp"
#include "levels.hpp"
#include "lzma_codec.hpp"
#include "zstd_codec.hpp"

namespace tcgen_runtime {

// The back-end of a buffer that no choice has to be made for (tests, and
// the ties of BackendChoice).
inline constexpr Backend default_backend = Backend::lzma;

// A stream back-end: a row of backend_table. A new back-end is a header of
// its own (what it writes for raw_size bytes at most, what its encoder
// takes, compression at a level of 0..max_level, decompression to an
// expected size), one row here with an identifier no file uses yet (an
// enumerator of Backend), the levels that try it (levels.hpp), and its
// library in backends.txt, which the build reads and tcgen prints in every
// generated file's build line. Nothing else names a back-end.
struct BackendRow {
    Backend id;             // the format's byte that names it
    std::string_view name;  // --backend=NAME
    std::string_view note;  // what --backend's help says of it, or empty
    std::uint64_t (*compress_bound)(std::uint64_t raw_size);
    // The memory its encoder takes at work on a stream of stream_bytes
    // (tcgen's memory estimate).
    std::uint64_t (*encoder_bytes)(std::uint64_t stream_bytes);
    void (*compress)(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed, unsigned level);
    void (*decompress)(const std::uint8_t* input, std::size_t input_size, std::vector<std::uint8_t>& out,
                       std::size_t expected_size, std::string_view what);
    // A slower search that levels with LevelRow::retries_longest_matches
    // try once more on a buffer this back-end compressed well, or none.
    void (*compress_longer)(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed);
};

// clang-format off
inline constexpr BackendRow backend_table[] = {
    {Backend::bzip2, "bzip2", "the TCgen paper's",     bz2_compress_bound,  bz2_encoder_bytes,
     bz2_compress_at_level,  bz2_decompress,  nullptr},
    {Backend::lzma,  "lzma",  "",                      lzma_compress_bound, lzma_encoder_bytes,
     lzma_compress_at_level, lzma_decompress, lzma_compress_longest_matches},
    {Backend::zstd,  "zstd",  "fastest to decompress", zstd_compress_bound, zstd_encoder_bytes,
     zstd_compress_at_level, zstd_decompress, nullptr},
    {Backend::cm,    "cm",    "context mixing: smallest, slowest", cm_compress_bound, cm_encoder_bytes,
     cm_compress_at_level,   cm_decompress,   nullptr},
    {Backend::grammar, "grammar", "SEQUITUR grammar of 32-bit ids", grammar_compress_bound, grammar_encoder_bytes,
     grammar_compress_at_level, grammar_decompress, nullptr},
};
// clang-format on

// The row of `backend`, or none for an identifier no row has.
constexpr const BackendRow* find_backend(Backend backend) {
    for (const BackendRow& row : backend_table) {
        if (row.id == backend) {
            return &row;
        }
    }
    return nullptr;
}

// The row of a back-end this program has: one from backend_from_id or
// backend_from_name, or a named Backend.
inline const BackendRow& backend_row(Backend backend) {
    const BackendRow* const row = find_backend(backend);
    if (row == nullptr) {
        fail("internal error: no back-end " + std::to_string(static_cast<unsigned>(backend)));
    }
    return *row;
}

inline std::string_view backend_name(Backend backend) {
    const BackendRow* const row = find_backend(backend);
    return row != nullptr ? row->name : "unknown";
}

// The back-end a file's identifier names, if any.
inline std::optional<Backend> backend_from_id(std::uint8_t id) {
    const Backend backend{id};
    if (find_backend(backend) == nullptr) {
        return std::nullopt;
    }
    return backend;
}

// Every back-end's name, for the command line: "bzip2, lzma or zstd", or
// with their notes, for the help: "bzip2 (the TCgen paper's), lzma or zstd
// (fastest to decompress)".
inline std::string backend_names(bool with_notes = false) {
    std::string names;
    for (std::size_t index = 0; index < std::size(backend_table); ++index) {
        const BackendRow& row = backend_table[index];
        names += (index == 0 ? "" : index + 1 == std::size(backend_table) ? " or " : ", ");
        names += row.name;
        if (with_notes && !row.note.empty()) {
            names += " (" + std::string(row.note) + ")";
        }
    }
    return names;
}

// The back-end a command line names, if any.
inline std::optional<Backend> backend_from_name(std::string_view name) {
    for (const BackendRow& row : backend_table) {
        if (row.name == name) {
            return row.id;
        }
    }
    return std::nullopt;
}

// The most memory an encoder takes at `level` on a stream of stream_bytes,
// or on an id stream of ids_bytes (a codec without one: 0): the largest of
// the back-ends the level tries (tcgen's memory estimate). An id stream's
// grammar takes many times its bytes, but it holds 4 bytes a record.
inline std::uint64_t level_encoder_bytes(unsigned level, std::uint64_t stream_bytes, std::uint64_t ids_bytes = 0) {
    const LevelRow& row = level_row(level);
    std::uint64_t most = 0;
    for (const BackendCandidates& candidates : {row.codes, row.values}) {
        for (std::size_t index = 0; index < candidates.count; ++index) {
            most = std::max(most, backend_row(candidates[index]).encoder_bytes(stream_bytes));
        }
    }
    if (ids_bytes != 0) {
        for (std::size_t index = 0; index < row.ids.count; ++index) {
            most = std::max(most, backend_row(row.ids[index]).encoder_bytes(ids_bytes));
        }
    }
    return most;
}

// The most compressed bytes `backend` writes for raw_size bytes; a reader
// refuses more before it allocates anything.
inline std::uint64_t backend_compress_bound(Backend backend, std::uint64_t raw_size) {
    return backend_row(backend).compress_bound(raw_size);
}

// Compresses at `level` as the back-end takes it (its row's compress).
inline void backend_compress(Backend backend, const std::uint8_t* data, std::size_t size,
                             std::vector<std::uint8_t>& compressed, unsigned level = default_level) {
    backend_row(backend).compress(data, size, compressed, level);
}

inline void backend_decompress(Backend backend, const std::uint8_t* input, std::size_t input_size,
                               std::vector<std::uint8_t>& out, std::size_t expected_size, std::string_view what) {
    backend_row(backend).decompress(input, input_size, out, expected_size, what);
}

// What a buffer holds, as far as its back-end goes: the predictors' codes
// (small numbers naming the predictor that was right, in long repeats),
// records' ids (32-bit numbers in order of first appearance, one a record),
// or anything else (the values the predictors missed, the trace header).
enum class StreamContent { codes, values, ids };

// The content of a codec's stream by its name: tcgen names its code streams
// "codes" or "..._codes", its id stream "ids".
inline StreamContent stream_content(std::string_view name) {
    if (name == "ids") {
        return StreamContent::ids;
    }
    constexpr std::string_view suffix = "_codes";
    const bool codes = name == "codes" ||
                       (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix);
    return codes ? StreamContent::codes : StreamContent::values;
}

// What a writer compresses each buffer with: one back-end for every buffer
// (`--backend=NAME`), or by default, per buffer, what the level's row names
// for its content (levels.hpp), the one that writes fewest bytes kept. The
// writer runs the candidates of a block's buffers in parallel
// (ContainerWriter) from these pieces; compress() runs them one after
// another.
class BackendChoice {
public:
    constexpr BackendChoice() = default;
    // A Backend converts to the choice of that back-end alone.
    constexpr BackendChoice(Backend only) : only_(only) {}  // NOLINT(google-explicit-constructor)

    // The one back-end chosen, or none for the level's.
    constexpr std::optional<Backend> only() const { return only_; }

    // The back-ends a buffer of `content` is compressed with at `level`,
    // the first preferred on a tie.
    constexpr std::size_t candidate_count(StreamContent content, unsigned level) const {
        return only_ ? 1 : candidates(content, level).count;
    }
    constexpr Backend candidate(StreamContent content, unsigned level, std::size_t index) const {
        return only_ ? *only_ : candidates(content, level)[index];
    }

    // Whether a buffer of `size` bytes that `chosen` compressed to
    // `compressed_size` bytes at `level` is compressed once more with its
    // row's longer search (LevelRow::retries_longest_matches): where it has
    // one and the buffer shrank to an eighth or less.
    static constexpr bool searches_longer(Backend chosen, std::size_t size, std::size_t compressed_size,
                                          unsigned level) {
        const BackendRow* const row = find_backend(chosen);
        return row != nullptr && row->compress_longer != nullptr && level <= max_level &&
               level_table[level].retries_longest_matches && compressed_size <= size / 8;
    }

    // Compresses `size` bytes of `content` at `data` into `compressed` at
    // `level` (`scratch` is the caller's buffer for the candidate that
    // loses) and returns the back-end used: every candidate, the smallest
    // output kept, then the longer search where searches_longer says.
    Backend compress(const std::uint8_t* data, std::size_t size, std::vector<std::uint8_t>& compressed,
                     std::vector<std::uint8_t>& scratch, unsigned level = default_level,
                     StreamContent content = StreamContent::values) const {
        Backend chosen = candidate(content, level, 0);
        backend_compress(chosen, data, size, compressed, level);
        for (std::size_t index = 1; index < candidate_count(content, level); ++index) {
            backend_compress(candidate(content, level, index), data, size, scratch, level);
            if (scratch.size() < compressed.size()) {
                compressed.swap(scratch);
                chosen = candidate(content, level, index);
            }
        }
        if (searches_longer(chosen, size, compressed.size(), level)) {
            compress_longer(chosen, data, size, compressed, scratch);
        }
        return chosen;
    }

    // The longer search of searches_longer: `compressed` holds `chosen`'s
    // output and keeps the smaller of the two.
    static void compress_longer(Backend chosen, const std::uint8_t* data, std::size_t size,
                                std::vector<std::uint8_t>& compressed, std::vector<std::uint8_t>& scratch) {
        backend_row(chosen).compress_longer(data, size, scratch);
        if (scratch.size() < compressed.size()) {
            compressed.swap(scratch);
        }
    }

private:
    static constexpr BackendCandidates candidates(StreamContent content, unsigned level) {
        const LevelRow& row = level_table[level <= max_level ? level : default_level];
        return content == StreamContent::codes ? row.codes : content == StreamContent::ids ? row.ids : row.values;
    }

    std::optional<Backend> only_;
};

}  // namespace tcgen_runtime
