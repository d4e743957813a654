#pragma once
// Label<Stream>: one label sequence of a WET (a node's values, a block's
// timestamps, ...) in the cheapest of three forms, chosen per sequence as the
// paper's §4.4 chooses a compressor per stream:
// - constant: every record is the same (a node that ran once, a load that
//   always reads the latest execution of the same store: the paper's §3.4
//   static edge, which needs no labels): that record and a count;
// - plain: the records themselves, when they take fewer bytes than the
//   stream's saved form;
// - stream: bidirectional compressed streams, one per chunk of
//   `chunk_records` records (ChunkedStream, chunked_stream.hpp), so a seek
//   or a timestamp lookup costs a chunk's length at most. Chunks are held in
//   their saved form; the one a query walks gets a cursor (code tables,
//   predictor tables, buffer), which stays until the walk leaves the chunk.
//   A stream at rest so costs its saved bytes, not the few KiB of a cursor:
//   most sequences of a real run are short and never queried.
// Absent (empty) sequences have none.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

#include "common/byte_io.hpp"
#include "wet/labels/chunked_stream.hpp"

namespace tcgen::wet {

template <class Stream>
class Label {
public:
    using Record = typename Stream::Record;
    using stream_type = Stream;

    // planes_level: the zstd level of chunks tried as byte planes.
    static Label make(const std::vector<Record>& records, std::uint64_t chunk_records,
                      int planes_level = byte_planes::level) {
        Label label;
        if (records.empty()) {
            return label;
        }
        const bool constant = std::all_of(records.begin(), records.end(), [&](const Record& record) {
            return std::memcmp(&record, &records.front(), sizeof(Record)) == 0;
        });
        if (constant) {
            label.constant_ = records.front();
            label.count_ = records.size();
            return label;
        }
        static_assert(sizeof(Record) == Stream::field_count * sizeof(Record{}.field1), "fields of one width");
        auto chunked = std::make_unique<ChunkedStream<Stream>>(
            ChunkedStream<Stream>::build(records.data(), records.size(), chunk_records, planes_level));
        label.count_ = records.size();
        if (records.size() * sizeof(Record) < chunked->saved_bytes()) {
            label.plain_ = std::make_unique<Record[]>(records.size());
            std::copy(records.begin(), records.end(), label.plain_.get());
        } else {
            label.chunked_ = std::move(chunked);
        }
        return label;
    }

    class Builder;

    // Its chunks, when it is a stream (null otherwise): the owner moves
    // chunks of a kind into shared frames once every label is made.
    ChunkedStream<Stream>* chunks() { return chunked_.get(); }
    // Plain records become a stream of chunks, for the owner to move into
    // shared frames (where a few records cost less than plain).
    void make_chunked(std::uint64_t chunk_records) {
        if (plain_) {
            chunked_ = std::make_unique<ChunkedStream<Stream>>(
                ChunkedStream<Stream>::build(plain_.get(), static_cast<std::size_t>(count_), chunk_records));
            plain_.reset();
        }
    }
    bool is_plain() const { return plain_ != nullptr; }

    std::uint64_t size() const { return count_; }
    bool empty() const { return size() == 0; }
    bool is_stream() const { return chunked_ != nullptr; }

    // The record at `index` (< size()), reached by stepping the stream's cursor.
    Record at(std::uint64_t index) {
        if (plain_) {
            return plain_[static_cast<std::size_t>(index)];
        }
        if (!is_stream()) {
            return constant_;
        }
        Record record{};
        chunked_->seek(index);
        chunked_->next(record);
        return record;
    }

    // Every record, a chunk at a time. A stream's length is what its file
    // claims (a run of hits codes many records in a few bits): reserve no
    // more than a bounded start.
    std::vector<Record> all() {
        if (plain_) {
            return std::vector<Record>(plain_.get(), plain_.get() + count_);
        }
        std::vector<Record> records;
        records.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(size(), 1u << 20)));
        if (!is_stream()) {
            records.assign(static_cast<std::size_t>(count_), constant_);
            return records;
        }
        chunked_->append_all(records);
        return records;
    }

    // Every record's first field, as `Value`.
    template <class Value>
    std::vector<Value> first_fields() {
        const std::vector<Record> records = all();
        std::vector<Value> values(records.size());
        std::transform(records.begin(), records.end(), values.begin(),
                       [](const Record& record) { return static_cast<Value>(record.field1); });
        return values;
    }

    // How many records have a first field below t, in a sequence of
    // increasing first fields (timestamps). The cursor ends just before the
    // first record >= t, reached from wherever it was when that is in the
    // chunk that holds t, else from that chunk's checkpoint: so queries close
    // in time are cheap, and none walks more than a chunk or two.
    std::uint64_t count_below(std::uint64_t t) {
        if (plain_) {
            const Record* end = plain_.get() + count_;
            const Record* found = std::lower_bound(
                static_cast<const Record*>(plain_.get()), end, t,
                [](const Record& record, std::uint64_t value) { return record.field1 < value; });
            return static_cast<std::uint64_t>(found - plain_.get());
        }
        if (!is_stream()) {
            // Increasing, so a constant sequence holds one record.
            return count_ != 0 && constant_.field1 < t ? 1 : 0;
        }
        ChunkedStream<Stream>& stream = *chunked_;
        const std::uint64_t start = stream.chunk_start_below(t);
        if (stream.position() < start || stream.position() > start + stream.chunk_records()) {
            stream.seek(start);
        }
        Record record{};
        while (stream.prev(record)) {
            if (record.field1 < t) {
                stream.next(record);
                break;
            }
        }
        while (stream.next(record)) {
            if (record.field1 >= t) {
                stream.prev(record);
                break;
            }
        }
        return stream.position();
    }

    // The index of the record whose first field is t, in a sequence of
    // increasing first fields; the cursor moves as count_below()'s.
    std::optional<std::uint64_t> find(std::uint32_t t) {
        const std::uint64_t below = count_below(t);
        if (below < size() && at(below).field1 == t) {
            return below;
        }
        return std::nullopt;
    }

    // Saved: u8 form (0 absent, 1 constant, 2 stream, 3 plain); a constant's
    // u64 count then its fields as u64 each; a stream's chunks
    // (ChunkedStream::save); plain records as a u64
    // count then each record's fields at their own width (4 or 8 bytes).
    void save(ByteWriter& writer) const {
        if (plain_) {
            writer.u8(3);
            writer.u64(count_);
            for (std::size_t index = 0; index < count_; ++index) {
                const Record& record = plain_[index];
                const auto* fields = &record.field1;
                for (std::size_t field = 0; field < Stream::field_count; ++field) {
                    if (sizeof(record.field1) == 4) {
                        writer.u32(static_cast<std::uint32_t>(fields[field]));
                    } else {
                        writer.u64(fields[field]);
                    }
                }
            }
        } else if (is_stream()) {
            writer.u8(2);
            chunked_->save(writer);
        } else if (count_ != 0) {
            writer.u8(1);
            writer.u64(count_);
            const auto* fields = &constant_.field1;
            for (std::size_t field = 0; field < Stream::field_count; ++field) {
                writer.u64(fields[field]);
            }
        } else {
            writer.u8(0);
        }
    }
    std::uint64_t saved_bytes() const {
        return plain_          ? 1 + 8 + sizeof(Record) * count_
               : is_stream()   ? 1 + chunked_->saved_bytes()
               : count_ != 0   ? 1 + 8 + 8 * Stream::field_count
                               : 1;
    }

    // `increasing`: a sequence of increasing first fields (timestamps), whose
    // checkpoints must increase.
    // `frames`: its kind's, if the file holds them.
    // `checked`: bytes loaded and checked whole before (ChunkedStream::load).
    static Label load(ByteReader& reader, const std::string& what, bool increasing = false,
                      std::shared_ptr<SharedFrames> frames = nullptr, bool checked = false) {
        Label label;
        const std::uint8_t form = reader.u8();
        if (form == 1) {
            label.count_ = reader.u64();
            if (label.count_ == 0) {
                reader.fail(what + ": a constant label of no records");
            }
            read_fields(reader, label.constant_, what);
        } else if (form == 2) {
            // Checked whole now, so that a walk later cannot fail on its framing.
            label.chunked_ = std::make_unique<ChunkedStream<Stream>>(
                ChunkedStream<Stream>::load(reader, what, increasing, std::move(frames), checked));
            label.count_ = label.chunked_->size();
        } else if (form == 3) {
            const std::size_t count = reader.count(sizeof(Record));
            if (count == 0) {
                reader.fail(what + ": plain records of no records");
            }
            label.plain_ = std::make_unique<Record[]>(count);
            label.count_ = count;
            for (std::size_t index = 0; index < count; ++index) {
                Record& record = label.plain_[index];
                auto* fields = &record.field1;
                for (std::size_t field = 0; field < Stream::field_count; ++field) {
                    fields[field] = sizeof(record.field1) == 4 ? reader.u32() : reader.u64();
                }
            }
        } else if (form != 0) {
            reader.fail(what + ": unknown label form " + std::to_string(form));
        }
        return label;
    }

    std::size_t memory_bytes() const {
        return sizeof(*this) + (chunked_ ? chunked_->memory_bytes() : 0) + (plain_ ? count_ * sizeof(Record) : 0);
    }

private:
    static void read_fields(ByteReader& reader, Record& record, const std::string& what) {
        auto* fields = &record.field1;
        for (std::size_t field = 0; field < Stream::field_count; ++field) {
            const std::uint64_t value = reader.u64();
            fields[field] = static_cast<std::remove_reference_t<decltype(fields[field])>>(value);
            if (fields[field] != value) {
                reader.fail(what + ": a field wider than the label's");
            }
        }
    }

    // One of the three forms, or none. A loaded WET keeps its labels packed
    // as saved bytes (packed_labels.hpp) and makes objects of the few that
    // queries walk.
    std::unique_ptr<ChunkedStream<Stream>> chunked_;  // a stream's chunks
    std::unique_ptr<Record[]> plain_;
    Record constant_{};
    std::uint64_t count_ = 0;          // records, in every form
};

// A label made from its records a piece at a time, as Label::make() makes
// it from all of them: the same label, without holding them all. Records
// wait here until they fill a chunk (while every one equals the first, only
// their count is kept); where plain records turn out smaller than their
// chunks, finish() asks for every record again.
template <class Stream>
class Label<Stream>::Builder {
public:
    explicit Builder(std::uint64_t chunk_records, int planes_level = byte_planes::level)
        : chunked_(ChunkedStream<Stream>::of_chunks(chunk_records)), planes_level_(planes_level) {}

    // The next `count` records.
    void add(const Record* records, std::size_t count) {
        if (count == 0) {
            return;
        }
        if (count_ == 0) {
            first_ = records[0];
        }
        if (constant_) {
            // While every record is the first, only their count is kept:
            // most labels of constants are never chunked, as make() never
            // chunks them. The first that differs has the ones before it
            // chunked, made again from the first.
            std::size_t same = 0;
            while (same < count && std::memcmp(&records[same], &first_, sizeof(Record)) == 0) {
                ++same;
            }
            count_ += same;
            if (same == count) {
                return;
            }
            constant_ = false;
            const std::vector<Record> copies(static_cast<std::size_t>(chunked_.chunk_records()), first_);
            for (std::uint64_t left = count_; left != 0;) {
                const std::size_t length = static_cast<std::size_t>(std::min<std::uint64_t>(left, copies.size()));
                append(copies.data(), length);
                left -= length;
            }
            records += same;
            count -= same;
        }
        count_ += count;
        append(records, count);
    }
    void add(const std::vector<Record>& records) { add(records.data(), records.size()); }

    // What the label would take saved (Label::saved_bytes()), every record
    // added; none may be added after.
    std::uint64_t saved_bytes() {
        if (!constant_) {
            close();
        }
        return count_ == 0 ? 1
               : constant_ ? 1 + 8 + 8 * Stream::field_count
               : plain()   ? 1 + 8 + sizeof(Record) * count_
                           : 1 + chunked_.saved_bytes();
    }

    // The label; records_again() gives every record added, in order, where
    // they are kept plain.
    template <class RecordsAgain>
    Label finish(const RecordsAgain& records_again) {
        Label label;
        if (count_ == 0) {
            return label;
        }
        label.count_ = count_;
        if (constant_) {
            label.constant_ = first_;
            return label;
        }
        close();
        if (plain()) {
            const std::vector<Record> records = records_again();
            if (records.size() != count_) {
                throw std::logic_error("a label's records, asked again, are not the ones added");
            }
            label.plain_ = std::make_unique<Record[]>(records.size());
            std::copy(records.begin(), records.end(), label.plain_.get());
        } else {
            label.chunked_ = std::make_unique<ChunkedStream<Stream>>(std::move(chunked_));
        }
        return label;
    }

private:
    // The last chunk made of the records that wait.
    void close() {
        if (!pending_.empty()) {
            chunked_.append_chunk(pending_.data(), pending_.size(), planes_level_);
            pending_ = {};
        }
    }
    // Records after those chunked or waiting: whole chunks made, the rest waits.
    void append(const Record* records, std::size_t count) {
        const std::size_t chunk = static_cast<std::size_t>(chunked_.chunk_records());
        std::size_t used = 0;
        if (!pending_.empty()) {
            used = std::min(count, chunk - pending_.size());
            pending_.insert(pending_.end(), records, records + used);
            if (pending_.size() < chunk) {
                return;
            }
            chunked_.append_chunk(pending_.data(), chunk, planes_level_);
            pending_.clear();
        }
        for (; count - used >= chunk; used += chunk) {
            chunked_.append_chunk(records + used, chunk, planes_level_);
        }
        pending_.assign(records + used, records + count);
    }
    // Plain records take fewer bytes than their chunks (Label::make()'s choice).
    bool plain() const { return count_ * sizeof(Record) < chunked_.saved_bytes(); }

    ChunkedStream<Stream> chunked_;
    int planes_level_;
    std::vector<Record> pending_;  // fewer than a chunk's records
    Record first_{};
    bool constant_ = true;
    std::uint64_t count_ = 0;
};

}  // namespace tcgen::wet
