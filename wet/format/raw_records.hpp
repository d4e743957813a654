#pragma once
// A raw file's records (PREFIX.edges, PREFIX.flow) walked in passes: held in
// memory (a trace made or read whole), or read a piece at a time from the
// file, so that `wet build` never holds them all. A file read again must
// hold what it held the first time: each whole pass over it is digested,
// and a pass that differs from the first is refused as a file changed while
// read. Codec: Record, bytes (a record's), magic, held_name (the name of
// records in memory in messages), decode(bytes) and digest(hash, record).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>
#include "wet/format/pieces_file.hpp"

namespace tcgen::wet {

template <class Codec>
class RawRecords {
public:
    using Record = typename Codec::Record;
    // Records read at a time, in a pass or by a cursor.
    static constexpr std::size_t piece_records = std::size_t{1} << 16;

    RawRecords() = default;
    // Records held here, freed with it.
    explicit RawRecords(std::vector<Record> held) : held_(std::move(held)) {}
    // Records held by the caller, which outlive this.
    explicit RawRecords(const std::vector<Record>* viewed) : viewed_(viewed) {}
    // The file `file`, its magic and size checked.
    explicit RawRecords(const std::string& file)
        : file_(std::make_unique<PiecesFile>(file, Codec::magic, Codec::bytes)) {}

    std::size_t size() const { return file_ ? file_->count() : held().size(); }
    // The file's name; Codec::held_name for records in memory.
    std::string name() const { return file_ ? file_->name() : Codec::held_name; }

    // Throws the WetError of a file that no longer holds what was checked:
    // for a walk that met a record the checks would have refused.
    [[noreturn]] void refuse_changed() const {
        throw WetError(name(), "cannot read: the file changed while it was read");
    }

    // piece(first, records, count) for every record in order, a piece at a
    // time: records first .. first + count - 1.
    template <class Piece>
    void each_piece(const Piece& piece) const {
        if (!file_) {
            const std::vector<Record>& records = held();
            for (std::size_t first = 0; first < records.size(); first += piece_records) {
                piece(first, records.data() + first, std::min(piece_records, records.size() - first));
            }
            return;
        }
        std::vector<Record> records;
        std::uint64_t digest = digest_start;
        for (std::size_t first = 0; first < size(); first += piece_records) {
            read(first, piece_records, records);
            for (const Record& record : records) {
                digest = Codec::digest(digest, record);
            }
            piece(first, records.data(), records.size());
        }
        if (!digested_) {
            first_digest_ = digest;
            digested_ = true;
        } else if (digest != first_digest_) {
            refuse_changed();
        }
    }

    // visit(index, record) for every record in order.
    template <class Visit>
    void each(const Visit& visit) const {
        each_piece([&](std::size_t first, const Record* records, std::size_t count) {
            for (std::size_t index = 0; index < count; ++index) {
                visit(first + index, records[index]);
            }
        });
    }

    // Records read in order, a piece at a time, for a walk beside another.
    class Cursor {
    public:
        explicit Cursor(const RawRecords& records) : records_(records) {}
        // Record `index` (below size()); the indexes asked never decrease.
        const Record& at(std::size_t index) {
            if (!records_.file_) {
                return records_.held()[index];
            }
            if (index < first_ || index >= first_ + piece_.size()) {
                first_ = index;
                records_.read(first_, piece_records, piece_);
            }
            return piece_[index - first_];
        }

    private:
        const RawRecords& records_;
        std::size_t first_ = 0;
        std::vector<Record> piece_;
    };

private:
    static constexpr std::uint64_t digest_start = 0xCBF29CE484222325;

    const std::vector<Record>& held() const { return viewed_ ? *viewed_ : held_; }

    // Up to `count` records from `first` into `piece`.
    void read(std::size_t first, std::size_t count, std::vector<Record>& piece) const {
        count = std::min(count, size() - first);
        std::vector<std::uint8_t> bytes(count * Codec::bytes);
        file_->read(first, count, bytes.data());
        piece.resize(count);
        for (std::size_t index = 0; index < count; ++index) {
            piece[index] = Codec::decode(bytes.data() + index * Codec::bytes);
        }
    }

    std::vector<Record> held_;
    const std::vector<Record>* viewed_ = nullptr;
    std::unique_ptr<PiecesFile> file_;
    mutable std::uint64_t first_digest_ = 0;
    mutable bool digested_ = false;
};

}  // namespace tcgen::wet
