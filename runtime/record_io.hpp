#pragma once
// The in-process API of a generated codec header (tcgen --emit=header): a
// pull-style Reader of the records of a .tcz and a Writer that appends
// records to one, for simulators and tools that would otherwise read through
// popen("comp -d"). Both stream with bounded memory (one block; the Reader
// also holds the streams of the block it reads ahead) and throw
// tcgen_runtime::Error with the same one-line messages the command line
// prints. A Record is the generated struct with one member per field:
//
//   struct Record {
//       static constexpr std::size_t bytes = ...;       // Codec::record_bytes
//       static Record load(const std::uint8_t* bytes);  // from the trace's byte layout
//       void store(std::uint8_t* bytes) const;
//   };
//
// Both also take records as columns, one array per field (record_columns.hpp),
// described by the generated header's `fields`.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends.hpp"
#include "block_index.hpp"
#include "error.hpp"
#include "files.hpp"
#include "io.hpp"
#include "record_columns.hpp"
#include "trace_reader.hpp"
#include "trace_writer.hpp"

namespace tcgen_runtime {

template <class Codec, class Record>
class RecordReader {
public:
    static_assert(Record::bytes == Codec::record_bytes, "a Record holds one record of the codec's spec");

    // Opens a .tcz by name; reads its preamble and header. With
    // ReadAhead::on a second thread reads and decompresses the next block
    // while next() works through this one; ReadAhead::off keeps to the
    // calling thread.
    explicit RecordReader(const std::string& path, ReadAhead read_ahead = ReadAhead::on)
        : path_(path), read_ahead_(read_ahead) {
        open();
    }

    // Reads a .tcz from `source`, which must outlive the reader (and, read
    // ahead, is read on the reader's second thread).
    explicit RecordReader(ByteSource& source, ReadAhead read_ahead = ReadAhead::on)
        : read_ahead_(read_ahead), reader_(std::make_unique<SeekableTraceReader<Codec>>(source, read_ahead)) {}

    // The trace's header bytes (those of the first .tcz, if several were
    // concatenated).
    const std::vector<std::uint8_t>& header() const { return header_or_first(); }

    // The next record; false at the end of the file. Concatenated .tcz files
    // give the records of each in turn.
    bool next(Record& record) {
        const std::uint8_t* bytes = next_bytes();
        if (bytes == nullptr) {
            return false;
        }
        record = Record::load(bytes);
        return true;
    }

    // The bytes of the next record as the trace stores them (valid until the
    // next call), or nullptr at the end of the file.
    const std::uint8_t* next_bytes() {
        if (index_ == reader_->record_count() && !advance()) {
            return nullptr;
        }
        const std::uint8_t* bytes = reader_->records() + index_ * Codec::record_bytes;
        index_ += 1;
        position_ += 1;
        return bytes;
    }

    // Reads up to `max_records` records as columns: the values of fields[k]
    // into columns[k], an array of at least `max_records` integers of the
    // field's width, in record order from position() on. Returns the records
    // read: fewer than `max_records` only at the end of the file (0 there),
    // across blocks and concatenated files as next() goes. `fields` may be
    // any of the header's `fields`, in any order.
    std::size_t read_columns(const FieldLayout* fields, std::size_t field_count, void* const* columns,
                             std::size_t max_records) {
        check_fields(fields, field_count, Codec::record_bytes);
        std::size_t read = 0;
        while (read < max_records) {
            if (index_ == reader_->record_count() && !advance()) {
                break;
            }
            const std::size_t available = reader_->record_count() - index_;
            const std::size_t step = std::min(available, max_records - read);
            const std::uint8_t* records = reader_->records() + index_ * Codec::record_bytes;
            // Every field of a few KiB of records, then the next few: the
            // records stay in the cache while each field is gathered (3x
            // faster on 16 MiB blocks than a field at a time).
            for (std::size_t done = 0; done < step; done += column_tile_records) {
                const std::size_t tile = std::min(step - done, column_tile_records);
                for (std::size_t column = 0; column < field_count; ++column) {
                    const std::size_t at = (read + done) * fields[column].bytes();
                    gather_column(fields[column], records + done * Codec::record_bytes, Codec::record_bytes, tile,
                                  static_cast<std::uint8_t*>(columns[column]) + at);
                }
            }
            index_ += step;
            position_ += step;
            read += step;
        }
        return read;
    }

    // Fills `columns` with up to its capacity() of records; its size() is
    // then the records read, which the call returns (0 at the end).
    std::size_t read_columns(Columns& columns) {
        columns.resize(0);
        columns.resize(read_columns(columns.fields(), columns.field_count(), columns.data(), columns.capacity()));
        return columns.size();
    }

    // Reads the rest of the block being read, or the next block when this
    // one is used up, into `columns`, grown to hold it if need be; returns
    // the records read (0 at the end). Memory stays one block's worth.
    std::size_t read_block_columns(Columns& columns) {
        const std::size_t records = block_records_left();
        columns.resize(0);
        columns.reserve(records);
        columns.resize(read_columns(columns.fields(), columns.field_count(), columns.data(), records));
        return columns.size();
    }

    // The records of the decoded block not yet read, decoding the next block
    // (of this .tcz or of one concatenated after it) when none are left; 0
    // at the end of the file. What read_block_columns reads, for a caller
    // that sizes its own arrays.
    std::size_t block_records_left() {
        if (index_ == reader_->record_count() && !advance()) {
            return 0;
        }
        return reader_->record_count() - index_;
    }

    // Skips up to `count` records; returns how many were skipped (fewer
    // only at the end of the file). Skipped blocks are still decoded, for
    // the predictors' state, but no record is copied out.
    std::uint64_t skip(std::uint64_t count) {
        std::uint64_t skipped = 0;
        while (skipped < count) {
            if (index_ == reader_->record_count() && !advance()) {
                break;
            }
            const std::uint64_t available = reader_->record_count() - index_;
            const std::uint64_t step = available < count - skipped ? available : count - skipped;
            index_ += static_cast<std::size_t>(step);
            position_ += step;
            skipped += step;
        }
        return skipped;
    }

    // Moves to record `index` (0-based; the next next() returns it). With
    // random access (a file, memory) it starts decoding at the latest point
    // before the record where the writer restarted the predictors, found in
    // the file's block index; otherwise it goes forward by skipping, and
    // backward by reading the file again from its start (which needs a
    // reader opened by name). Returns false if the file has fewer than
    // `index` records (the reader is then at its end).
    bool seek(std::uint64_t index) {
        // Blocks are numbered within each .tcz of a concatenation.
        if (index >= member_first_record_) {
            // Every block but a .tcz's last holds records_per_block records.
            const std::uint64_t per_block = reader_->records_per_block();
            const std::uint64_t block = (index - member_first_record_) / per_block + 1;
            const std::uint64_t next_block = (position_ - member_first_record_) / per_block + 1;
            const bool restart_ahead = tcz_restart_before(block, reader_->restart_blocks()) > next_block;
            if (index < position_ || restart_ahead) {
                const std::uint64_t start = reader_->resume_before(block);
                if (start > 0) {
                    index_ = 0;
                    position_ = member_first_record_ + (start - 1) * per_block;
                }
            }
        }
        if (index < position_) {
            if (path_.empty()) {
                fail("cannot seek backward in a .tcz read from a stream");
            }
            open();
        }
        const std::uint64_t distance = index - position_;
        return skip(distance) == distance;
    }

    // Records returned or skipped so far.
    std::uint64_t position() const { return position_; }

    // The file's record count when a file or memory holds one .tcz (read
    // from its verified trailer, without decoding); nothing for a stream, a
    // file cut short or concatenated .tcz files.
    std::optional<std::uint64_t> total_records() { return reader_->total_records(); }

    // The bytes after the last whole record of the trace (a partial record),
    // once next() has returned false.
    const std::vector<std::uint8_t>& tail() const { return reader_->tail(); }

private:
    static constexpr std::size_t column_tile_records = (std::size_t{1} << 14) / Codec::record_bytes + 1;

    void open() {
        reader_.reset();
        file_ = std::make_unique<InputPath>(path_);
        reader_ = std::make_unique<SeekableTraceReader<Codec>>(*file_, read_ahead_);
        first_header_.reset();
        index_ = 0;
        position_ = 0;
        member_first_record_ = 0;
    }

    // Decodes the next block, moving on to a concatenated .tcz if needed.
    bool advance() {
        while (!reader_->next_block()) {
            if (!first_header_) {
                first_header_ = std::make_unique<std::vector<std::uint8_t>>(reader_->header());
            }
            if (!reader_->next_member()) {
                index_ = 0;
                return false;
            }
            member_first_record_ = position_;
        }
        index_ = 0;
        return true;
    }

    const std::vector<std::uint8_t>& header_or_first() const {
        return first_header_ ? *first_header_ : reader_->header();
    }

    std::string path_;
    ReadAhead read_ahead_ = ReadAhead::on;
    std::unique_ptr<InputPath> file_;
    std::unique_ptr<SeekableTraceReader<Codec>> reader_;
    std::unique_ptr<std::vector<std::uint8_t>> first_header_;
    std::size_t index_ = 0;
    std::uint64_t position_ = 0;
    std::uint64_t member_first_record_ = 0;  // of the .tcz being read
};

template <class Codec, class Record>
class RecordWriter {
public:
    static_assert(Record::bytes == Codec::record_bytes, "a Record holds one record of the codec's spec");

    // Creates the .tcz `path` (replacing a file of that name); it appears
    // only when close() succeeds. `header` must have the spec's header size.
    // With options.restart_blocks = N the predictors restart every N blocks,
    // the points a Reader can seek to without decoding the blocks before.
    explicit RecordWriter(const std::string& path, const std::vector<std::uint8_t>& header = {},
                          const WriteOptions& options = {})
        : file_(std::make_unique<OutputPath>(path, true, true)),
          writer_(std::make_unique<TraceWriter<Codec>>(*file_, options)) {
        write_header(header);
    }

    // Writes the .tcz to `sink`, which must outlive the writer.
    explicit RecordWriter(ByteSink& sink, const std::vector<std::uint8_t>& header = {},
                          const WriteOptions& options = {})
        : writer_(std::make_unique<TraceWriter<Codec>>(sink, options)) {
        write_header(header);
    }

    // Appending after close() is the caller's mistake and throws.
    void append(const Record& record) {
        check_open();
        std::uint8_t bytes[Codec::record_bytes];
        record.store(bytes);
        writer_->write(bytes, Codec::record_bytes);
    }

    // Appends a record given in the trace's byte layout.
    void append_bytes(const std::uint8_t* record) {
        check_open();
        writer_->write(record, Codec::record_bytes);
    }

    // Appends `count` records given as columns: column k holds the values
    // of fields[k] (the header's `fields`, or any of them) for each record,
    // as integers of the field's width. A byte of the record that no column
    // covers is written as 0.
    void append_columns(const FieldLayout* fields, std::size_t field_count, const void* const* columns,
                        std::size_t count) {
        check_open();
        check_fields(fields, field_count, Codec::record_bytes);
        // A few pages of records at a time: the writer copies them into its block.
        constexpr std::size_t batch_records = (std::size_t{1} << 16) / Codec::record_bytes + 1;
        std::vector<std::uint8_t> batch(std::min(count, batch_records) * Codec::record_bytes);
        for (std::size_t done = 0; done < count;) {
            const std::size_t step = std::min(count - done, batch_records);
            for (std::size_t column = 0; column < field_count; ++column) {
                const std::size_t at = done * fields[column].bytes();
                scatter_column(fields[column], static_cast<const std::uint8_t*>(columns[column]) + at, step,
                               batch.data(), Codec::record_bytes);
            }
            writer_->write(batch.data(), step * Codec::record_bytes);
            done += step;
        }
    }

    // Appends the size() records of `columns`.
    void append_columns(const Columns& columns) {
        append_columns(columns.fields(), columns.field_count(), columns.data(), columns.size());
    }

    // Writes the trailer and completes the file. A writer destroyed without
    // close() leaves no file behind (a sink gets a .tcz without a trailer,
    // which every reader refuses). A second close() does nothing, as
    // closing a closed std::ofstream or Python file does no harm.
    void close() {
        if (closed_) {
            return;
        }
        closed_ = true;
        writer_->finish();
        if (file_) {
            file_->commit();
        }
    }

    // Records appended so far.
    std::uint64_t records() const {
        return (writer_->totals().input_bytes - Codec::header_bytes) / Codec::record_bytes;
    }

private:
    void check_open() const {
        if (closed_) {
            fail("a record appended to a Writer after its close()");
        }
    }

    void write_header(const std::vector<std::uint8_t>& header) {
        if (header.size() != Codec::header_bytes) {
            fail("the header has " + size_text(header.size()) + " bytes, the spec's has " +
                 size_text(Codec::header_bytes));
        }
        writer_->write(header.data(), header.size());
    }

    std::unique_ptr<OutputPath> file_;
    std::unique_ptr<TraceWriter<Codec>> writer_;
    bool closed_ = false;
};

}  // namespace tcgen_runtime
