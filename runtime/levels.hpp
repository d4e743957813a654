#pragma once
// What a compression level (-0 .. -9, as xz and zstd take it) means, one row
// a level: the block, how the predictors learn a repeated run, the
// back-ends each kind of stream tries and how hard LZMA searches. The
// writer (trace_writer.hpp), the back-end choice (backends.hpp), LZMA's
// compression (lzma_codec.hpp) and the help (command_options.hpp) read it, so a
// level is changed here and nowhere else. Why each row is what it is:
// docs/design/log.md, "Choosing the back-end per stream", "A cheaper default
// level", "Block size", "Compression levels", "A context-mixing
// back-end" and "The grammar as a stream back-end".

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "error.hpp"

namespace tcgen_runtime {

// The format's back-end identifiers, one a row of backends.hpp's table.
enum class Backend : std::uint8_t { bzip2 = 1, lzma = 2, zstd = 3, cm = 4, grammar = 5 };

// How hard LZMA's match finder searches: as its preset says; only 8
// candidates deep (liblzma's depth; preset 6 tries 48), which on the
// predictors' miss streams is 2-3 times faster for 0.3-4 % more bytes; or
// to the longest match LZMA codes (nice_len): code streams are long
// repeats, and on some traces following every match to its end shrinks them
// by a tenth more, for up to 4 times the encoding time where it gains
// nothing.
enum class LzmaSearch { preset, shallow, longest_matches };

// The back-ends a buffer is compressed with, the smallest output kept and
// the first preferred on a tie: one to three.
struct BackendCandidates {
    std::size_t count;
    Backend first;
    Backend second;
    Backend third;

    constexpr Backend operator[](std::size_t index) const {
        return index == 0 ? first : index == 1 ? second : third;
    }
};

inline constexpr BackendCandidates bzip2_alone{1, Backend::bzip2, Backend::bzip2, Backend::bzip2};
// LZMA first: on a tie it decodes faster.
inline constexpr BackendCandidates lzma_or_bzip2{2, Backend::lzma, Backend::bzip2, Backend::bzip2};
// Context mixing last: it decodes slowest (cm_codec.hpp).
inline constexpr BackendCandidates lzma_bzip2_or_cm{3, Backend::lzma, Backend::bzip2, Backend::cm};
// Id streams: their SEQUITUR grammar first (grammar_codec.hpp), about a
// third smaller than LZMA's on branch traces' ids; bzip2, whose block
// sorting is smaller still on the ids of tight loops (sort, bzip2, gzip, xz:
// 10-25 % below the grammar) and far larger on the others (2-4 times on
// cc1's and sqlite3's); then LZMA, or at -9 context mixing, smaller than
// both on most ids (docs/design/log.md, "Control flow as ids in the
// container").
inline constexpr BackendCandidates grammar_bzip2_or_lzma{3, Backend::grammar, Backend::bzip2, Backend::lzma};
inline constexpr BackendCandidates grammar_bzip2_or_cm{3, Backend::grammar, Backend::bzip2, Backend::cm};

struct LevelRow {
    // Bytes of records a block holds, at least the codec's own; 0: the
    // codec's own (the generated programs' is 16 MiB, 64 MiB with records
    // as ids). A larger block finds longer repeats and costs
    // memory: about three blocks' worth to compress, four to decompress.
    std::uint64_t block_bytes;
    // Whether the predictors learn every record of a run that the records'
    // runs copy (ratio), or only the tails of long runs, which halves
    // decoding time where runs are long (record_runs.hpp).
    bool learns_every_record;
    // What the code streams try (the predictors' codes: small numbers in
    // long repeats, where bzip2's block sorting is mostly ahead and LZMA's
    // search costs most of compression's time), and what every other
    // buffer tries (the values the predictors missed, the trace header).
    BackendCandidates codes;
    BackendCandidates values;
    // What an id stream tries (a record's number in order of first
    // appearance, 32 bits each: backends.hpp's StreamContent::ids).
    BackendCandidates ids;
    // LZMA's preset (0-9) and search.
    std::uint32_t lzma_preset;
    LzmaSearch lzma_search;
    // Whether a buffer that LZMA, the back-end kept, compressed to an eighth
    // or less is compressed once more with LzmaSearch::longest_matches (the
    // smaller kept): code streams of long repeats shrink by up to a tenth;
    // the misses, where the slower search gains nothing, do not pay for it.
    bool retries_longest_matches;
    // What the level does, for the help; levels with the same text are
    // shown as one range.
    std::string_view help;
};

inline constexpr unsigned default_level = 6;
inline constexpr unsigned max_level = 9;

namespace level_help {
inline constexpr std::string_view paper = "bzip2 alone for every stream, as the TCgen paper";
inline constexpr std::string_view shallow =
    "code streams go to bzip2, the misses to the smaller of bzip2 and LZMA at the level's preset, searching "
    "shallower than at 6 (-1: up to 2x faster, 0-8 % larger)";
inline constexpr std::string_view standard =
    "code streams go to bzip2, the misses to the smaller of bzip2 and LZMA, whose search is shallow";
inline constexpr std::string_view large =
    "LZMA tries the code streams too and follows its matches to their end, blocks of 32, 48 and 64 MiB, and "
    "the predictors learn every record of a repeated run (up to 6 they learn the last 4 of a long run, which "
    "decodes faster): more ratio, memory and time";
inline constexpr std::string_view largest =
    "as 7 and 8, with blocks of 64 MiB, and every stream tries context mixing too, kept where it is smallest "
    "(on cache-miss traces 11-12 % smaller files, whose streams decode at about 0.5 MB/s)";
}  // namespace level_help

// clang-format off
inline constexpr LevelRow level_table[max_level + 1] = {
    // block     learns  codes          values         ids            LZMA preset, search       retries  help
    {0,          false,  bzip2_alone,   bzip2_alone,   bzip2_alone,   0, LzmaSearch::preset,    false,   level_help::paper},
    {0,          false,  bzip2_alone,   lzma_or_bzip2, grammar_bzip2_or_lzma, 1, LzmaSearch::preset,  false,   level_help::shallow},
    {0,          false,  bzip2_alone,   lzma_or_bzip2, grammar_bzip2_or_lzma, 2, LzmaSearch::preset,  false,   level_help::shallow},
    {0,          false,  bzip2_alone,   lzma_or_bzip2, grammar_bzip2_or_lzma, 3, LzmaSearch::preset,  false,   level_help::shallow},
    {0,          false,  bzip2_alone,   lzma_or_bzip2, grammar_bzip2_or_lzma, 4, LzmaSearch::preset,  false,   level_help::shallow},
    {0,          false,  bzip2_alone,   lzma_or_bzip2, grammar_bzip2_or_lzma, 5, LzmaSearch::preset,  false,   level_help::shallow},
    {0,          false,  bzip2_alone,   lzma_or_bzip2, grammar_bzip2_or_lzma, 6, LzmaSearch::shallow, false,   level_help::standard},
    {32u << 20,  true,   lzma_or_bzip2, lzma_or_bzip2, grammar_bzip2_or_lzma, 6, LzmaSearch::preset,  true,    level_help::large},
    {48u << 20,  true,   lzma_or_bzip2, lzma_or_bzip2, grammar_bzip2_or_lzma, 6, LzmaSearch::preset,  true,    level_help::large},
    {64u << 20,  true,   lzma_bzip2_or_cm, lzma_bzip2_or_cm, grammar_bzip2_or_cm, 6, LzmaSearch::preset, true, level_help::largest},
};
// clang-format on

static_assert(level_table[default_level].block_bytes == 0, "the default level keeps the codec's own block");

// The row of `level`; an Error names the levels there are.
inline const LevelRow& level_row(unsigned level) {
    if (level > max_level) {
        fail("compression level " + std::to_string(level) + " is not in 0.." + std::to_string(max_level));
    }
    return level_table[level];
}

// The help of the levels: "compression level (default 6): -0: TEXT; -1 ..
// -5: TEXT; ...", each run of levels with one text shown once.
inline std::string levels_help() {
    std::string text = "compression level (default " + std::to_string(default_level) + ")";
    for (unsigned first = 0; first <= max_level;) {
        unsigned last = first;
        while (last < max_level && level_table[last + 1].help == level_table[first].help) {
            ++last;
        }
        text += (first == 0 ? ": -" : "; -") + std::to_string(first);
        if (last != first) {
            text += " .. -" + std::to_string(last);
        }
        text += ": ";
        text += level_table[first].help;
        first = last + 1;
    }
    return text;
}

}  // namespace tcgen_runtime
