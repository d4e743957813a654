#pragma once
// ChunkedStream<Stream>: one long label sequence as independent chunks of
// `chunk_records` records each, every chunk its own bidirectional stream
// (its predictors restart at the chunk's start). A chunk's start is a
// checkpoint: a cursor can be made there from the chunk's saved bytes alone,
// so seek(i) and "how many records lie below timestamp t" cost at most one
// chunk's length, not the sequence's.
//
// A bidirectional stream's state at a position includes its predictor
// tables (up to the spec's L2 lines each), too large to keep every few
// thousand records; restarting them costs the misses that warm tables would
// have saved (measured in docs/design/log.md, "Checkpoints").
//
// Each chunk keeps the first field of its first record (for a timestamp
// label, the timestamp the checkpoint starts at): a binary search over them
// finds the chunk of a timestamp. When a chunk is entered its first record
// is checked against that value, so a forged checkpoint is refused, not
// followed. One chunk at a time has a cursor; the others stay saved bytes.
//
// A chunk is kept in the smaller of two forms: its bidirectional stream, or
// its records as zstd-compressed byte planes (byte_planes.hpp), which a
// cursor decompresses whole when a walk enters the chunk; or, once the whole
// kind is built, its records in a frame shared with other chunks of the kind
// (shared_frames.hpp), addressed as (frame, offset).
//
// Saved: u64 records, u64 records per chunk, then per chunk u64 its first
// record's first field, u8 its form (0 stream, 1 byte planes, 2 in a shared
// frame), u64 size, and the stream's saved form (cursor at 0), the planes'
// zstd frame, or u32 frame and u32 byte offset. The frames are saved by the
// owner.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>  // WetError

#include "common/byte_io.hpp"
#include "runtime/byte_order.hpp"
#include "wet/labels/byte_planes.hpp"
#include "wet/labels/shared_frames.hpp"

namespace tcgen::wet {

template <class Stream>
class ChunkedStream {
public:
    using Record = typename Stream::Record;

    // planes_level: the zstd level of chunks tried as byte planes.
    static ChunkedStream build(const Record* records, std::uint64_t count, std::uint64_t chunk_records,
                               int planes_level = byte_planes::level) {
        ChunkedStream chunked = of_chunks(chunk_records);
        for (std::uint64_t first = 0; first < count; first += chunked.chunk_records_) {
            chunked.append_chunk(records + first,
                                 static_cast<std::size_t>(std::min(chunked.chunk_records_, count - first)),
                                 planes_level);
        }
        return chunked;
    }

    // An empty stream of chunks of `chunk_records` records, grown a chunk at
    // a time by append_chunk(): build() of the same records, chunk by chunk.
    static ChunkedStream of_chunks(std::uint64_t chunk_records) {
        ChunkedStream chunked;
        chunked.chunk_records_ = std::max<std::uint64_t>(chunk_records, 1);
        return chunked;
    }
    // The next chunk: `length` records, chunk_records() of them but in the last.
    void append_chunk(const Record* records, std::size_t length, int planes_level = byte_planes::level) {
        Chunk chunk;
        chunk.first = records[0].field1;
        chunk.saved = Stream::build(records, length).save();
        if (length <= byte_planes::max_bytes / sizeof(Record)) {
            std::vector<std::uint8_t> planes = byte_planes::compress(records, length, planes_level);
            if (planes.size() < chunk.saved.size()) {
                chunk.saved = std::move(planes);
                chunk.form = Form::planes;
            }
        }
        chunk.saved.shrink_to_fit();
        chunks_.push_back(std::move(chunk));
        count_ += length;
    }

    // visit(chunk, first record, records) for every chunk not yet in a
    // shared frame: the ones a shared frame may take.
    template <class Visit>
    void each_unshared_chunk(const Visit& visit) const {
        for (std::size_t index = 0; index < chunks_.size(); ++index) {
            if (chunks_[index].form != Form::shared) {
                visit(index, index * chunk_records_, chunk_length(index));
            }
        }
    }
    std::uint64_t chunk_saved_bytes(std::size_t chunk) const {
        return chunks_[chunk].form == Form::dropped ? chunks_[chunk].dropped_bytes : chunks_[chunk].saved.size();
    }
    // Forgets the bytes of every chunk not in a shared frame, keeping their
    // sizes (chunk_saved_bytes): a builder that moves every such chunk into
    // shared frames next, made from the records again, need not hold them
    // meanwhile. Until each is shared, the stream is neither walked nor saved.
    void drop_unshared_bytes() {
        for (Chunk& chunk : chunks_) {
            if (chunk.form != Form::shared && chunk.form != Form::dropped) {
                chunk.dropped_bytes = chunk.saved.size();
                chunk.saved = std::vector<std::uint8_t>();
                chunk.form = Form::dropped;
            }
        }
    }
    bool has_dropped_bytes() const {
        return std::any_of(chunks_.begin(), chunks_.end(),
                           [](const Chunk& chunk) { return chunk.form == Form::dropped; });
    }
    // Moves `chunk` into a shared frame of `frames`, at `place`.
    void share(std::size_t chunk, std::shared_ptr<SharedFrames> frames, SharedFrames::Place place) {
        frames_ = std::move(frames);
        ByteWriter writer;
        writer.u32(place.frame);
        writer.u32(place.offset);
        chunks_[chunk].saved = std::move(writer.data());
        chunks_[chunk].form = Form::shared;
    }

    std::uint64_t size() const { return count_; }
    std::uint64_t chunk_records() const { return chunk_records_; }
    std::size_t chunk_count() const { return chunks_.size(); }
    // How many chunks are kept as byte planes (their own or in a shared
    // frame) rather than as streams.
    std::size_t planes_chunks() const {
        return static_cast<std::size_t>(std::count_if(chunks_.begin(), chunks_.end(),
                                                      [](const Chunk& chunk) { return chunk.form != Form::stream; }));
    }
    std::uint64_t position() const { return cursor_ ? current_ * chunk_records_ + cursor_->position() : 0; }

    void seek(std::uint64_t position) {
        if (position > count_) {
            throw std::runtime_error("seek to record " + std::to_string(position) + " of a stream of " +
                                     std::to_string(count_));
        }
        if (chunks_.empty()) {
            return;
        }
        const std::size_t chunk = static_cast<std::size_t>(
            std::min<std::uint64_t>(position / chunk_records_, chunks_.size() - 1));
        enter(chunk);
        cursor_->seek(position - chunk * chunk_records_);
    }

    bool next(Record& record) {
        if (chunks_.empty()) {
            return false;
        }
        if (!cursor_) {
            enter(0);
        }
        if (cursor_->at_end()) {
            if (current_ + 1 >= chunks_.size()) {
                return false;
            }
            enter(current_ + 1);
            cursor_->seek(0);
        }
        return cursor_->next(record);
    }

    bool prev(Record& record) {
        if (chunks_.empty()) {
            return false;
        }
        if (!cursor_) {
            enter(0);
        }
        if (cursor_->at_begin()) {
            if (current_ == 0) {
                return false;
            }
            enter(current_ - 1);
            cursor_->seek(cursor_->size());
        }
        return cursor_->prev(record);
    }

    // In a sequence of increasing first fields: the first chunk that may
    // hold a record >= t (the chunk before the first checkpoint >= t).
    std::uint64_t chunk_start_below(std::uint64_t t) const {
        const auto found = std::lower_bound(chunks_.begin(), chunks_.end(), t,
                                            [](const Chunk& chunk, std::uint64_t value) { return chunk.first < value; });
        const std::size_t chunk = found == chunks_.begin() ? 0 : static_cast<std::size_t>(found - chunks_.begin()) - 1;
        return chunk * chunk_records_;
    }

    // Every record, after those `out` holds, a chunk at a time (a shared
    // chunk copied straight from its decoded frame, a planes chunk from its
    // planes): a label read whole walks no cursor record by record. The
    // cursor queries use stays where it is.
    void append_all(std::vector<Record>& out) const {
        for (std::size_t chunk = 0; chunk < chunks_.size(); ++chunk) {
            append_records_of(chunk, out);
        }
    }

    // visit(record, position) for every record forward, with cursors of its
    // own: the one queries use stays where it is.
    template <class Visit>
    void walk_all(const Visit& visit) const {
        walk_chunks(0, chunks_.size(), visit);
    }
    // The same for chunks first..end - 1 only.
    template <class Visit>
    void walk_chunks(std::size_t first, std::size_t end, const Visit& visit) const {
        Record record{};
        for (std::size_t chunk = first; chunk < std::min(end, chunks_.size()); ++chunk) {
            Cursor walker = checked_cursor(chunk);
            const std::uint64_t start = chunk * chunk_records_;
            while (walker.next(record)) {
                visit(record, start + walker.position() - 1);
            }
        }
    }

    void save(ByteWriter& writer) const {
        if (has_dropped_bytes()) {
            throw std::logic_error("a stream saved before its dropped chunks were shared");
        }
        writer.u64(count_);
        writer.u64(chunk_records_);
        for (const Chunk& chunk : chunks_) {
            writer.u64(chunk.first);
            writer.u8(static_cast<std::uint8_t>(chunk.form));
            writer.blob(chunk.saved);
        }
    }
    std::uint64_t saved_bytes() const {
        std::uint64_t bytes = 16;
        for (std::size_t chunk = 0; chunk < chunks_.size(); ++chunk) {
            bytes += 17 + chunk_saved_bytes(chunk);
        }
        return bytes;
    }

    // Checks every chunk whole (so that a walk later cannot fail on its
    // framing), its length, and that the checkpoints of a sequence of
    // increasing first fields increase (`increasing`). `frames`: the kind's
    // shared frames, if its owner saved them. `checked`: bytes this load
    // checked whole before (a packed label reopened, packed_labels.hpp),
    // whose chunks are not decoded again.
    static ChunkedStream load(ByteReader& reader, const std::string& what, bool increasing,
                              std::shared_ptr<SharedFrames> frames = nullptr, bool checked = false) {
        ChunkedStream chunked;
        chunked.frames_ = std::move(frames);
        chunked.count_ = reader.u64();
        chunked.chunk_records_ = reader.u64();
        if (chunked.count_ == 0 || chunked.chunk_records_ == 0) {
            reader.fail(what + ": a stream of no records or of chunks of none");
        }
        const std::uint64_t chunks = (chunked.count_ - 1) / chunked.chunk_records_ + 1;
        // Each chunk takes 17 bytes of framing at least: no more than the bytes left.
        if (chunks > reader.remaining() / 17) {
            reader.fail(what + ": " + std::to_string(chunks) + " chunks claimed, " +
                        std::to_string(reader.remaining()) + " bytes are left");
        }
        chunked.chunks_.resize(static_cast<std::size_t>(chunks));
        for (std::size_t index = 0; index < chunked.chunks_.size(); ++index) {
            Chunk& chunk = chunked.chunks_[index];
            chunk.first = reader.u64();
            if (increasing && index > 0 && chunk.first <= chunked.chunks_[index - 1].first) {
                reader.fail(what + ": checkpoint " + std::to_string(index) + " does not increase");
            }
            const std::uint8_t form = reader.u8();
            if (form > static_cast<std::uint8_t>(Form::shared)) {
                reader.fail(what + ": chunk " + std::to_string(index) + " of unknown form " + std::to_string(form));
            }
            chunk.form = static_cast<Form>(form);
            const std::uint64_t size = reader.u64();
            const std::uint8_t* bytes = reader.bytes(size);
            const std::uint64_t expected =
                std::min(chunked.chunk_records_, chunked.count_ - index * chunked.chunk_records_);
            try {
                if (checked) {
                    // Decoded whole when the file was loaded.
                } else if (chunk.form == Form::shared) {
                    chunked.check_place(reader, what, index, bytes, size, expected);
                } else if (chunk.form == Form::planes) {
                    if (expected > byte_planes::max_bytes / sizeof(Record)) {
                        reader.fail(what + ": chunk " + std::to_string(index) + " claims " + std::to_string(expected) +
                                    " records in byte planes");
                    }
                    byte_planes::decompress<Record>(bytes, static_cast<std::size_t>(size),
                                                    static_cast<std::size_t>(expected));
                } else if (Stream::load(bytes, static_cast<std::size_t>(size)).size() != expected) {
                    reader.fail(what + ": chunk " + std::to_string(index) + " does not hold " +
                                std::to_string(expected) + " records");
                }
            } catch (const WetError&) {
                throw;
            } catch (const std::runtime_error& error) {
                reader.fail(what + ": chunk " + std::to_string(index) + ": " + error.what());
            }
            chunk.saved.assign(bytes, bytes + size);
        }
        return chunked;
    }

    std::size_t memory_bytes() const {
        std::size_t bytes = sizeof(*this) + chunks_.capacity() * sizeof(Chunk) + (cursor_ ? cursor_->memory_bytes() : 0);
        for (const Chunk& chunk : chunks_) {
            bytes += chunk.saved.capacity();
        }
        return bytes;
    }

private:
    // The saved forms, then one only a builder holds (never saved).
    enum class Form : std::uint8_t { stream = 0, planes = 1, shared = 2, dropped = 3 };
    struct Chunk {
        std::uint64_t first = 0;          // its first record's first field
        Form form = Form::stream;
        std::vector<std::uint8_t> saved;  // its stream's saved form, or its planes' zstd frame
        std::uint64_t dropped_bytes = 0;  // dropped: what `saved` held
    };

    std::size_t chunk_length(std::size_t chunk) const {
        return static_cast<std::size_t>(std::min(chunk_records_, count_ - chunk * chunk_records_));
    }
    static SharedFrames::Place place_of(const std::uint8_t* bytes) {
        SharedFrames::Place place;
        place.frame = tcgen_runtime::load_le32(bytes);
        place.offset = tcgen_runtime::load_le32(bytes + 4);
        return place;
    }
    // A shared chunk's place: 8 bytes, in a frame the kind has, its records
    // inside that frame's decoded bytes.
    void check_place(ByteReader& reader, const std::string& what, std::size_t index, const std::uint8_t* bytes,
                     std::uint64_t size, std::uint64_t records) const {
        const std::string chunk = what + ": chunk " + std::to_string(index);
        if (size != 8) {
            reader.fail(chunk + ": a shared frame's place of " + std::to_string(size) + " bytes");
        }
        if (!frames_) {
            reader.fail(chunk + " is in a shared frame, and there are none");
        }
        const SharedFrames::Place place = place_of(bytes);
        if (place.frame >= frames_->size() || place.offset > frames_->decoded_bytes(place.frame) ||
            records > (frames_->decoded_bytes(place.frame) - place.offset) / sizeof(Record)) {
            reader.fail(chunk + " lies outside the shared frames");
        }
        frames_->refer(place, records * sizeof(Record));
    }

    // A walk inside one chunk: its stream's cursor, or its records decompressed.
    class Cursor {
    public:
        explicit Cursor(Stream stream) : stream_(std::make_unique<Stream>(std::move(stream))) {}
        explicit Cursor(std::vector<Record> records) : records_(std::move(records)) {}
        std::uint64_t size() const { return stream_ ? stream_->size() : records_.size(); }
        std::uint64_t position() const { return stream_ ? stream_->position() : at_; }
        bool at_begin() const { return position() == 0; }
        bool at_end() const { return position() == size(); }
        void seek(std::uint64_t position) {
            if (stream_) {
                stream_->seek(position);
            } else {
                at_ = position;
            }
        }
        bool next(Record& record) {
            if (stream_) {
                return stream_->next(record);
            }
            if (at_ == records_.size()) {
                return false;
            }
            record = records_[static_cast<std::size_t>(at_++)];
            return true;
        }
        bool prev(Record& record) {
            if (stream_) {
                return stream_->prev(record);
            }
            if (at_ == 0) {
                return false;
            }
            record = records_[static_cast<std::size_t>(--at_)];
            return true;
        }
        std::size_t memory_bytes() const {
            return sizeof(*this) + (stream_ ? stream_->memory_bytes() : records_.capacity() * sizeof(Record));
        }

    private:
        std::unique_ptr<Stream> stream_;
        std::vector<Record> records_;
        std::uint64_t at_ = 0;
    };

    // Makes the cursor of `chunk` (unless it has it) and checks its first
    // record against the chunk's checkpoint; the cursor is then at 0.
    void enter(std::size_t chunk) {
        if (cursor_ && current_ == chunk) {
            return;
        }
        cursor_.reset();
        cursor_ = std::make_unique<Cursor>(checked_cursor(chunk));
        current_ = chunk;
    }
    Cursor checked_cursor(std::size_t chunk) const {
        const Chunk& saved = chunks_[chunk];
        check_walkable(saved);
        Cursor cursor = saved.form == Form::shared
                            ? Cursor(frames_->records<Record>(place_of(saved.saved.data()), chunk_length(chunk)))
                        : saved.form == Form::planes
                            ? Cursor(byte_planes::decompress<Record>(saved.saved.data(), saved.saved.size(),
                                                                     chunk_length(chunk)))
                            : Cursor(Stream::load(saved.saved.data(), saved.saved.size()));
        cursor.seek(0);
        Record first{};
        check_first(chunk, cursor.next(first) ? &first : nullptr);
        cursor.prev(first);
        return cursor;
    }
    // The records of `chunk` after those `out` holds, checked as a cursor's.
    void append_records_of(std::size_t chunk, std::vector<Record>& out) const {
        const Chunk& saved = chunks_[chunk];
        check_walkable(saved);
        const std::size_t before = out.size();
        if (saved.form == Form::shared) {
            frames_->append_records(place_of(saved.saved.data()), chunk_length(chunk), out);
        } else if (saved.form == Form::planes) {
            const std::vector<Record> records =
                byte_planes::decompress<Record>(saved.saved.data(), saved.saved.size(), chunk_length(chunk));
            out.insert(out.end(), records.begin(), records.end());
        } else {
            Stream stream = Stream::load(saved.saved.data(), saved.saved.size());
            Record record{};
            while (stream.next(record)) {
                out.push_back(record);
            }
        }
        check_first(chunk, out.size() > before ? &out[before] : nullptr);
    }
    static void check_walkable(const Chunk& saved) {
        if (saved.form == Form::dropped) {
            throw std::logic_error("a stream walked before its dropped chunks were shared");
        }
    }
    // A chunk's first record (none: it held none) is its checkpoint's.
    void check_first(std::size_t chunk, const Record* first) const {
        if (first == nullptr || first->field1 != chunks_[chunk].first) {
            throw std::runtime_error("chunk " + std::to_string(chunk) + " does not start where its checkpoint says (" +
                                     std::to_string(chunks_[chunk].first) + "): the stream is corrupt");
        }
    }

    std::uint64_t count_ = 0;
    std::uint64_t chunk_records_ = 1;
    std::vector<Chunk> chunks_;
    std::shared_ptr<SharedFrames> frames_;  // its kind's, shared; or none
    std::unique_ptr<Cursor> cursor_;  // of chunk current_, once a walk entered it
    std::size_t current_ = 0;
};

}  // namespace tcgen::wet
