#pragma once
// A chunk of records as byte planes compressed by zstd: byte k of every
// record, then byte k + 1 of every record, ..., the whole compressed as one
// zstd frame. The other form a chunk may take besides a bidirectional stream
// (chunked_stream.hpp): values and addresses that repeat in patterns longer
// than a predictor's context (a loop re-reading a table, bytes of text) are
// what an LZ coder finds and one predictor per stream does not, and the
// planes put the mostly-zero high bytes of 64-bit labels together. A cursor
// on such a chunk decompresses it whole (a few tens of KiB) and walks an
// array, both ways alike. Measured in docs/design/log.md ("Chunks as byte
// planes").

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#define ZDICT_STATIC_LINKING_ONLY  // ZDICT_trainFromBuffer_fastCover and its parameters
#include <zdict.h>
#include <zstd.h>

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

// The byte planes of `count` records, uncompressed.
template <class Record>
std::vector<std::uint8_t> planes_of(const Record* records, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<Record>, "records are plain bytes");
    constexpr std::size_t width = sizeof(Record);
    std::vector<std::uint8_t> planes(count * width);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint8_t bytes[width];
        std::memcpy(bytes, &records[i], width);
        for (std::size_t k = 0; k < width; ++k) {
            planes[k * count + i] = bytes[k];
        }
    }
    return planes;
}

// The `count` records whose byte planes start at `planes` (planes_of's
// inverse; the caller has checked that count * sizeof(Record) bytes are there).
template <class Record>
std::vector<Record> records_of_planes(const std::uint8_t* planes, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<Record>, "records are plain bytes");
    constexpr std::size_t width = sizeof(Record);
    std::vector<Record> records(count);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint8_t bytes[width];
        for (std::size_t k = 0; k < width; ++k) {
            bytes[k] = planes[k * count + i];
        }
        std::memcpy(&records[i], bytes, width);
    }
    return records;
}

// A zstd dictionary shared by every planes chunk of one kind of label (a
// WET's values, its addresses): trained on a sample of those chunks' byte
// planes when the WET is built, saved once. What repeats between the chunks
// of a node, or between nodes (a table read by several loops, the same text
// bytes loaded in several places), is then a match into the dictionary
// instead of literals in every chunk.
class Dictionary {
public:
    // No saved dictionary is larger: a forged size cannot make a reader
    // allocate more.
    static constexpr std::uint64_t max_bytes = std::uint64_t{1} << 20;

    // The size of a trained dictionary: 1 MiB saved less on both runs the
    // design log measured ("A shared dictionary for the values").
    static constexpr std::size_t trained_bytes = std::size_t{1} << 18;

    // Trained on `samples` (planes laid end to end, `sizes` each), for
    // compression at `zstd_level`; null when zstd finds too little to train
    // on. fastCover with fixed segments (k 2048, d 8): zstd's default
    // trainer made dictionaries of under 1 KiB here, which saved nothing,
    // and the legacy one took 4 times as long for about as much.
    static std::shared_ptr<const Dictionary> train(const std::vector<std::uint8_t>& samples,
                                                   const std::vector<std::size_t>& sizes, int zstd_level) {
        if (sizes.size() < 8) {
            return nullptr;
        }
        ZDICT_fastCover_params_t parameters{};
        parameters.k = 2048;
        parameters.d = 8;
        parameters.f = 22;
        parameters.accel = 1;
        parameters.zParams.compressionLevel = zstd_level;
        std::vector<std::uint8_t> bytes(trained_bytes);
        const std::size_t size = ZDICT_trainFromBuffer_fastCover(bytes.data(), bytes.size(), samples.data(),
                                                                 sizes.data(), static_cast<unsigned>(sizes.size()),
                                                                 parameters);
        if (ZDICT_isError(size)) {
            return nullptr;
        }
        bytes.resize(size);
        auto dictionary = std::make_shared<Dictionary>(std::move(bytes));
        if (!dictionary->ddict_) {
            return nullptr;
        }
        dictionary->cdict_.reset(ZSTD_createCDict(dictionary->bytes_.data(), dictionary->bytes_.size(), zstd_level));
        return dictionary->cdict_ ? dictionary : nullptr;
    }

    // A saved dictionary: throws std::runtime_error unless it is one zstd
    // reads (its magic number, an id, entropy tables it can load).
    static std::shared_ptr<const Dictionary> load(const std::uint8_t* data, std::size_t size) {
        if (size > max_bytes) {
            throw std::runtime_error("its zstd dictionary claims " + std::to_string(size) + " bytes, at most " +
                                     std::to_string(max_bytes));
        }
        auto dictionary = std::make_shared<Dictionary>(std::vector<std::uint8_t>(data, data + size));
        if (ZSTD_getDictID_fromDict(data, size) == 0 || !dictionary->ddict_) {
            throw std::runtime_error("its zstd dictionary is corrupt");
        }
        return dictionary;
    }

    explicit Dictionary(std::vector<std::uint8_t> bytes)
        : bytes_(std::move(bytes)), ddict_(ZSTD_createDDict(bytes_.data(), bytes_.size()), ZSTD_freeDDict) {}

    const std::vector<std::uint8_t>& bytes() const { return bytes_; }
    const ZSTD_CDict* for_compression() const { return cdict_.get(); }
    const ZSTD_DDict* for_decompression() const { return ddict_.get(); }

private:
    std::vector<std::uint8_t> bytes_;
    std::unique_ptr<ZSTD_DDict, std::size_t (*)(ZSTD_DDict*)> ddict_;
    std::unique_ptr<ZSTD_CDict, std::size_t (*)(ZSTD_CDict*)> cdict_{nullptr, ZSTD_freeCDict};
};

// With `dictionary` (made by train(), at the level it was made for), the
// frame refers to it and needs it to decompress.
template <class Record>
std::vector<std::uint8_t> compress(const Record* records, std::size_t count, int zstd_level,
                                   const Dictionary* dictionary = nullptr) {
    const std::vector<std::uint8_t> planes = planes_of(records, count);
    // One context per thread, kept: making one per chunk costs more than
    // coding a small chunk.
    thread_local const std::unique_ptr<ZSTD_CCtx, std::size_t (*)(ZSTD_CCtx*)> context(ZSTD_createCCtx(),
                                                                                       ZSTD_freeCCtx);
    std::vector<std::uint8_t> out(ZSTD_compressBound(planes.size()));
    const std::size_t size =
        dictionary ? ZSTD_compress_usingCDict(context.get(), out.data(), out.size(), planes.data(), planes.size(),
                                              dictionary->for_compression())
                   : ZSTD_compressCCtx(context.get(), out.data(), out.size(), planes.data(), planes.size(), zstd_level);
    if (ZSTD_isError(size)) {
        throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(size));
    }
    out.resize(size);
    return out;
}

// The `count` records of a frame that compress() made (with `dictionary`
// when it was made with one); throws std::runtime_error when the frame does
// not hold exactly that many.
template <class Record>
std::vector<Record> decompress(const std::uint8_t* data, std::size_t size, std::size_t count,
                               const Dictionary* dictionary = nullptr) {
    constexpr std::size_t width = sizeof(Record);
    if (count > max_bytes / width) {  // before multiplying: a forged count cannot wrap
        throw std::runtime_error("its planes claim " + std::to_string(count) + " records");
    }
    const std::uint64_t expected = std::uint64_t{count} * width;
    if (ZSTD_getFrameContentSize(data, size) != expected) {
        throw std::runtime_error("its planes do not hold " + std::to_string(count) + " records");
    }
    thread_local const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> context(ZSTD_createDCtx(),
                                                                                       ZSTD_freeDCtx);
    std::vector<std::uint8_t> planes(static_cast<std::size_t>(expected));
    const std::size_t got =
        dictionary ? ZSTD_decompress_usingDDict(context.get(), planes.data(), planes.size(), data, size,
                                                dictionary->for_decompression())
                   : ZSTD_decompressDCtx(context.get(), planes.data(), planes.size(), data, size);
    if (ZSTD_isError(got) || got != expected) {
        throw std::runtime_error("its planes are corrupt");
    }
    return records_of_planes<Record>(planes.data(), count);
}

}  // namespace tcgen::wet::byte_planes
