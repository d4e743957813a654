#pragma once
// Label<Stream>: one label sequence of a WET (a node's values, a block's
// timestamps, ...) in the cheapest of three forms, chosen per sequence as the
// paper's §4.4 chooses a compressor per stream:
// - constant: every record is the same (a node that ran once, a load that
//   always reads the latest execution of the same store: the paper's §3.4
//   static edge, which needs no labels): that record and a count;
// - plain: the records themselves, when they take fewer bytes than the
//   stream's saved form;
// - stream: a bidirectional compressed stream. It is held in its saved form
//   (the code and the tables a walk starts from) until a query walks it;
//   only then are its cursor, code tables and buffer made from it, and they
//   stay (in place of the saved form).
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

#include "byte_io.hpp"

namespace tcgen::wet {

template <class Stream>
class Label {
public:
    using Record = typename Stream::Record;
    using stream_type = Stream;

    static Label make(const std::vector<Record>& records) {
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
        std::vector<std::uint8_t> saved = Stream::build(records.data(), records.size()).save();
        label.count_ = records.size();
        if (records.size() * sizeof(Record) < saved.size()) {
            label.plain_ = std::make_unique<Record[]>(records.size());
            std::copy(records.begin(), records.end(), label.plain_.get());
        } else {
            label.saved_ = std::move(saved);
            label.saved_.shrink_to_fit();  // as a loaded one: a label made on load stays its saved size
        }
        return label;
    }

    std::uint64_t size() const { return count_; }
    bool empty() const { return size() == 0; }
    bool is_stream() const { return stream_ != nullptr || !saved_.empty(); }

    // The record at `index` (< size()), reached by stepping the stream's cursor.
    Record at(std::uint64_t index) {
        if (plain_) {
            return plain_[static_cast<std::size_t>(index)];
        }
        if (!is_stream()) {
            return constant_;
        }
        Stream& stream = walked();
        Record record{};
        stream.seek(index);
        stream.next(record);
        return record;
    }

    // Every record, walking the stream from its nearer end. A stream's length
    // is what its file claims (a run of hits codes many records in a few
    // bits): reserve no more than a bounded start.
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
        Stream& stream = walked();
        Record record{};
        if (stream.position() > stream.size() / 2) {
            stream.seek(stream.size());
            while (stream.prev(record)) {
                records.push_back(record);
            }
            std::reverse(records.begin(), records.end());
        } else {
            stream.seek(0);
            while (stream.next(record)) {
                records.push_back(record);
            }
        }
        return records;
    }

    // How many records have a first field below t, in a sequence of
    // increasing first fields (timestamps). The cursor ends just before the
    // first record >= t, reached from wherever it was, so queries close in
    // time are cheap.
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
        Stream& stream = walked();
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
    // u64 count then its fields as u64 each; a stream's u64 count, u64 size
    // then its saved form (its cursor where it is); plain records as a u64
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
            writer.u64(count_);
            writer.blob(stream_ ? stream_->save() : saved_);
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
               : is_stream()   ? 1 + 8 + 8 + (stream_ ? stream_->save().size() : saved_.size())
               : count_ != 0   ? 1 + 8 + 8 * Stream::field_count
                               : 1;
    }

    static Label load(ByteReader& reader, const std::string& what) {
        Label label;
        const std::uint8_t form = reader.u8();
        if (form == 1) {
            label.count_ = reader.u64();
            if (label.count_ == 0) {
                reader.fail(what + ": a constant label of no records");
            }
            read_fields(reader, label.constant_, what);
        } else if (form == 2) {
            label.count_ = reader.u64();
            const std::uint64_t size = reader.u64();
            const std::uint8_t* bytes = reader.bytes(size);
            // Checked whole now, so that a walk later cannot fail; then only
            // the bytes are kept.
            try {
                if (Stream::load(bytes, static_cast<std::size_t>(size)).size() != label.count_) {
                    reader.fail(what + ": the stream does not hold " + std::to_string(label.count_) + " records");
                }
            } catch (const WetError&) {
                throw;
            } catch (const std::runtime_error& error) {
                reader.fail(what + ": " + error.what());
            }
            if (label.count_ == 0) {
                reader.fail(what + ": a stream of no records");
            }
            label.saved_.assign(bytes, bytes + size);
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
        return sizeof(*this) + saved_.capacity() + (stream_ ? stream_->memory_bytes() : 0) +
               (plain_ ? count_ * sizeof(Record) : 0);
    }

private:
    // The stream's cursor, made from the saved form on the first walk.
    Stream& walked() {
        if (!stream_) {
            stream_ = std::make_unique<Stream>(Stream::load(saved_.data(), saved_.size()));
            saved_ = std::vector<std::uint8_t>();  // save() asks the stream from now on
        }
        return *stream_;
    }

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

    // One of the three forms, or none: 56 bytes a label, as there is one per
    // node and kind of label whether it ran or not.
    std::vector<std::uint8_t> saved_;  // a stream's saved form
    std::unique_ptr<Stream> stream_;   // its cursor, once walked
    std::unique_ptr<Record[]> plain_;
    Record constant_{};
    std::uint64_t count_ = 0;          // records, in every form
};

}  // namespace tcgen::wet
