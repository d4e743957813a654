#pragma once
// What the runtime asks of a generated codec, and the few things it does with
// one before any data flows: check it at compile time, describe it in a
// preamble, allocate it.
//
// A Codec is the class the generator emits for one spec:
//
//   struct SomeCodec {
//     static constexpr std::string_view program_name = "comp";
//     static constexpr std::string_view spec_text = "...";        // canonical spec
//     static constexpr std::uint64_t fingerprint = 0x...;          // fingerprint64(spec_text)
//     static constexpr std::size_t header_bytes = 4;               // may be 0
//     static constexpr std::size_t record_bytes = 12;
//     static constexpr std::size_t records_per_block = 1 << 18;    // >= 1
//     static constexpr std::size_t stream_count = 4;
//     static constexpr std::array<std::string_view, stream_count> stream_names = {...};
//     static constexpr std::array<std::uint64_t, stream_count> stream_bytes_per_record = {...};
//     static constexpr std::uint64_t table_bytes = ...;            // what constructing it allocates
//     void encode(const std::uint8_t* records, std::size_t count, StreamWriter* streams);
//     void decode(StreamReader* streams, std::size_t count, std::uint8_t* records);
//     void write_report(std::FILE* out) const;
//     bool mostly_missed() const;   // every field's predictions missed more than half the time
//     void restart();               // tables back to zeros, as constructed (usage counts kept)
//     void restart_touched_pages_only(bool);  // restart() zeroes only the pages touched (empties the tables):
//                                             // restarts_touched_pages_only() says when
//     void learn_every_record(bool);  // the writer's ratio-over-speed choice for runs of records
//     void estimate_streams_with(StreamCostEstimate);  // the writer's estimate of a stream's compressed
//                                                      // bytes, for the codec's choices (stream_cost.hpp)
//   };
//
// encode appends whatever it likes to streams[0..stream_count) for `count`
// whole records, at most count * stream_bytes_per_record[s] bytes to stream
// s (a reader refuses a file claiming more; in all, at most
// tcz_max_stream_bytes(count, record_bytes) bytes); decode must read them back and rebuild exactly those records. The
// predictor state lives in the codec and carries from block to block, so one
// codec object serves one whole compression or decompression of a .tcz, and
// two codecs never share anything. Constructing a codec allocates its tables,
// zeroed; the runtime does so only once it is asked for work.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>

#include "checksum.hpp"
#include "container_layout.hpp"
#include "error.hpp"

namespace tcgen_runtime {

template <class Array>
constexpr std::uint64_t sum_of(const Array& values) {
    std::uint64_t sum = 0;
    for (const auto value : values) {
        sum += value;
    }
    return sum;
}

// Compile-time checks that a codec fits the format, so a bad generator is
// caught when the generated file is compiled rather than at run time.
template <class Codec>
constexpr bool check_codec() {
    static_assert(Codec::record_bytes >= 1, "a record has at least one byte");
    static_assert(Codec::record_bytes <= tcz_max_record_bytes, "record too large for the .tcz format");
    static_assert(Codec::header_bytes <= tcz_max_header_bytes, "header too large for the .tcz format");
    static_assert(Codec::records_per_block >= 1, "a block holds at least one record");
    static_assert(Codec::records_per_block <= tcz_max_block_bytes / Codec::record_bytes,
                  "block too large for the .tcz format");
    static_assert(Codec::stream_count <= tcz_max_stream_count, "too many streams for the .tcz format");
    static_assert(Codec::stream_names.size() == Codec::stream_count, "one name per stream");
    static_assert(Codec::stream_bytes_per_record.size() == Codec::stream_count, "one limit per stream");
    static_assert(sum_of(Codec::stream_bytes_per_record) <= tcz_max_stream_bytes(1, Codec::record_bytes),
                  "a record adds more to the streams than the .tcz format allows");
    static_assert(Codec::spec_text.size() <= tcz_max_spec_bytes, "spec text too long for the .tcz format");
    static_assert(Codec::fingerprint == fingerprint64(Codec::spec_text),
                  "fingerprint must be fingerprint64(spec_text)");
    return true;
}

template <class Codec>
Preamble codec_preamble() {
    static_assert(check_codec<Codec>());
    Preamble preamble;
    preamble.fingerprint = Codec::fingerprint;
    preamble.spec_text = std::string(Codec::spec_text);
    preamble.record_bytes = static_cast<std::uint32_t>(Codec::record_bytes);
    preamble.header_bytes = static_cast<std::uint32_t>(Codec::header_bytes);
    preamble.stream_count = static_cast<std::uint32_t>(Codec::stream_count);
    preamble.records_per_block = Codec::records_per_block;
    return preamble;
}

// A fresh codec, or an Error naming the table memory it could not get.
template <class Codec>
std::unique_ptr<Codec> make_codec() {
    try {
        return std::make_unique<Codec>();
    } catch (const std::bad_alloc&) {
        fail("cannot allocate " + size_text(Codec::table_bytes) + " bytes of predictor tables");
    }
}

// Whether a restart group of `restart_blocks` blocks of `records_per_block`
// records (one block where the file has no restart points) fills a codec's
// tables: it holds at least a sixteenth of their bytes in records, so that
// it touches most of their pages and emptying the whole tables costs little
// beside decoding it.
template <class Codec>
constexpr bool restart_group_fills_tables(std::uint32_t restart_blocks, std::uint64_t records_per_block) {
    const std::uint64_t group_blocks = restart_blocks == 0 ? 1 : restart_blocks;
    return records_per_block * Codec::record_bytes * group_blocks >= Codec::table_bytes / 16;
}

// Whether the codec of a file restarting every `restart_blocks` blocks of
// `records_per_block` records marks the pages its lines touch and zeroes
// only those at a restart (Codec::restart_touched_pages_only): where the
// file has restart points and its groups do not fill the tables. A group
// that does touches most pages anyway, and marking every line costs more
// than emptying the tables whole, as a file without restart points would
// (TCgen(A), 16 MiB groups, docs/design/log.md, "Restarts that clear only
// what the group touched"). The writer and both readers ask this; either
// way a restart empties the tables, so the choice changes speed alone.
template <class Codec>
constexpr bool restarts_touched_pages_only(std::uint32_t restart_blocks, std::uint64_t records_per_block) {
    return restart_blocks != 0 && !restart_group_fills_tables<Codec>(restart_blocks, records_per_block);
}

// How often the predictors restart, in blocks, unless a writer is told
// otherwise: never, because restarts cost ratio (every 16 blocks: 0-8 % on
// the corpus, docs/design/log.md, "The price of restart points"); a writer whose
// readers seek asks for them.
inline constexpr std::uint32_t default_restart_blocks = 0;

// What one run moved: bytes of trace and of .tcz, records and blocks.
struct RunTotals {
    std::uint64_t input_bytes = 0;
    std::uint64_t output_bytes = 0;
    std::uint64_t records = 0;
    std::uint64_t blocks = 0;
};

}  // namespace tcgen_runtime
