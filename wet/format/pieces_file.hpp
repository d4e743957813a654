#pragma once
// A raw file of fixed-size records after a 4-byte magic (PREFIX.events,
// PREFIX.edges) read a piece at a time, as often as asked: whole, its bytes
// beside the records made from them would double the raw trace's largest
// parts while they are read. A regular file stays open and is read where
// asked, decompressing the frames a piece is in when it is zstd frames
// (zstd_frames.hpp, as `wet run` keeps the tracer's output); anything else
// (a pipe) can be read once only, so it is read whole, once, and its pieces
// served from memory.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/files.hpp"
#include "wet/format/zstd_frames.hpp"

namespace tcgen::wet {

// The checks of a raw file of `size` bytes that start with `head` (its
// first min(size, 4)): its magic and its size; returns its number of
// records. Throws WetError naming the file.
std::size_t check_records(const std::string& name, const std::uint8_t* head, std::size_t size, const char* magic,
                          std::size_t record_bytes);

class PiecesFile {
public:
    PiecesFile(const std::string& name, const char* magic, std::size_t record_bytes);

    const std::string& name() const { return name_; }
    std::size_t count() const { return count_; }

    // Records first .. first + count - 1 (within count()) into `bytes`,
    // record_bytes each.
    void read(std::size_t first, std::size_t count, std::uint8_t* bytes) const;

    // piece(records, count) for every record in order, `piece_records` at a
    // time, `records` their bytes.
    template <class Piece>
    void each_piece(std::size_t piece_records, const Piece& piece) const {
        std::vector<std::uint8_t> bytes(std::min(piece_records, count_) * record_bytes_);
        for (std::size_t first = 0; first < count_; first += piece_records) {
            const std::size_t records = std::min(piece_records, count_ - first);
            read(first, records, bytes.data());
            piece(bytes.data(), records);
        }
    }

private:
    std::string name_;
    std::size_t record_bytes_;
    FilePtr file_;
    std::unique_ptr<ZstdFramesReader> frames_;
    std::vector<std::uint8_t> bytes_;  // a file that is not a regular one, whole
    std::size_t count_ = 0;
};

}  // namespace tcgen::wet
