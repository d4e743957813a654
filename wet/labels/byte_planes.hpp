#pragma once
// A chunk of records as byte planes compressed by zstd: byte k of every
// record, then byte k + 1 of every record, ..., the whole compressed as one
// zstd frame (the runtime's, runtime/zstd_codec.hpp). The other form a chunk may take besides a bidirectional stream
// (chunked_stream.hpp): values and addresses that repeat in patterns longer
// than a predictor's context (a loop re-reading a table, bytes of text) are
// what an LZ coder finds and one predictor per stream does not, and the
// planes put the mostly-zero high bytes of 64-bit labels together. A cursor
// on such a chunk decompresses it whole (a few tens of KiB) and walks an
// array, both ways alike. Measured in docs/design/log.md ("Chunks as byte
// planes").

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/zstd_codec.hpp"

namespace tcgen::wet::byte_planes {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "records are laid out little-endian");

// The zstd level of saved labels: 15 takes 2-3 times as long as 9 and
// saves 2-3 % more; 19 takes 4 times as long as 15 for 0.4 % (the design log).
constexpr int level = 15;
// The level of labels held in memory only (the blocks' timestamps derived
// from the control flow by a query): made while a query waits.
constexpr int memory_level = 1;
// No chunk this form holds decompresses to more: a forged size cannot make
// a reader allocate more than this.
constexpr std::uint64_t max_bytes = std::uint64_t{1} << 22;

// The two directions for a width known when compiling: loops the compiler
// unrolls, a record at a time.
template <std::size_t Width>
void planes_of_records(const std::uint8_t* records, std::size_t count, std::uint8_t* planes) {
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t k = 0; k < Width; ++k) {
            planes[k * count + i] = records[i * Width + k];
        }
    }
}
template <std::size_t Width>
void records_of_planes(const std::uint8_t* planes, std::size_t plane_bytes, std::size_t count, std::uint8_t* records) {
    for (std::size_t i = 0; i < count; ++i) {
        for (std::size_t k = 0; k < Width; ++k) {
            records[i * Width + k] = planes[k * plane_bytes + i];
        }
    }
}

// known(std::integral_constant<std::size_t, W>) for the widths of the
// build's temporary records (node_runs.hpp), else any(): a plane at a time
// there, long loops whatever the width.
template <class Known, class Any>
void with_width(std::size_t width, Known known, Any any) {
    switch (width) {
        case 4:
            return known(std::integral_constant<std::size_t, 4>{});
        case 20:
            return known(std::integral_constant<std::size_t, 20>{});
        case 28:
            return known(std::integral_constant<std::size_t, 28>{});
        default:
            return any();
    }
}

// The byte planes of `count` records of `width` bytes each, laid end to end
// at `records`, appended to `planes`.
inline void append_planes(const std::uint8_t* records, std::size_t count, std::size_t width,
                          std::vector<std::uint8_t>& planes) {
    const std::size_t at = planes.size();
    planes.resize(at + count * width);
    std::uint8_t* out = planes.data() + at;
    with_width(
        width, [&](auto known) { planes_of_records<decltype(known)::value>(records, count, out); },
        [&] {
            for (std::size_t k = 0; k < width; ++k) {
                for (std::size_t i = 0; i < count; ++i) {
                    out[k * count + i] = records[i * width + k];
                }
            }
        });
}

// `count` records of `width` bytes laid end to end at `records`, from byte
// planes of `plane_bytes` bytes each (append_planes's inverse, or a part of
// it: `planes` then points `first` bytes into the first plane for the
// records from the first-th).
inline void records_of_planes(const std::uint8_t* planes, std::size_t plane_bytes, std::size_t count, std::size_t width,
                              std::uint8_t* records) {
    with_width(
        width, [&](auto known) { records_of_planes<decltype(known)::value>(planes, plane_bytes, count, records); },
        [&] {
            for (std::size_t k = 0; k < width; ++k) {
                for (std::size_t i = 0; i < count; ++i) {
                    records[i * width + k] = planes[k * plane_bytes + i];
                }
            }
        });
}

// The `count` records whose byte planes start at `planes` (the caller has
// checked that count * sizeof(Record) bytes are there), written to `out`.
template <class Record>
void records_of_planes(const std::uint8_t* planes, std::size_t count, Record* out) {
    static_assert(std::is_trivially_copyable_v<Record>, "records are plain bytes");
    records_of_planes<sizeof(Record)>(planes, count, count, reinterpret_cast<std::uint8_t*>(out));
}
template <class Record>
std::vector<Record> records_of_planes(const std::uint8_t* planes, std::size_t count) {
    std::vector<Record> records(count);
    records_of_planes(planes, count, records.data());
    return records;
}

template <class Record>
std::vector<std::uint8_t> compress(const Record* records, std::size_t count, int zstd_level) {
    static_assert(std::is_trivially_copyable_v<Record>, "records are plain bytes");
    std::vector<std::uint8_t> planes;
    append_planes(reinterpret_cast<const std::uint8_t*>(records), count, sizeof(Record), planes);
    // The frame is kept (a label's chunk): not in an allocation of its
    // records' worst-case bound, which would hold a build's labels at their
    // raw size until they are saved.
    std::vector<std::uint8_t> frame = tcgen_runtime::zstd_frame(planes, zstd_level);
    frame.shrink_to_fit();
    return frame;
}

// The `count` records of a frame that compress() made; throws
// std::runtime_error when the frame does not hold exactly that many.
template <class Record>
std::vector<Record> decompress(const std::uint8_t* data, std::size_t size, std::size_t count) {
    constexpr std::size_t width = sizeof(Record);
    if (count > max_bytes / width) {  // before multiplying: a forged count cannot wrap
        throw std::runtime_error("its planes claim " + std::to_string(count) + " records");
    }
    const std::uint64_t expected = std::uint64_t{count} * width;
    if (tcgen_runtime::zstd_frame_content_size(data, size) != expected) {
        throw std::runtime_error("its planes do not hold " + std::to_string(count) + " records");
    }
    std::vector<std::uint8_t> planes(static_cast<std::size_t>(expected));
    if (!tcgen_runtime::zstd_unframe(data, size, planes.data(), expected)) {
        throw std::runtime_error("its planes are corrupt");
    }
    return records_of_planes<Record>(planes.data(), count);
}

}  // namespace tcgen::wet::byte_planes
