#pragma once
// Compression as a sink: the bytes of a trace go in, in pieces of any size
// (the header, then whole records, perhaps a partial record at the very end),
// and a .tcz comes out on a ByteSink one block at a time. The command line
// and the generated in-process Writer are both built on it, so there is one
// compressor. Memory: one block of records and its streams, whatever the
// trace length.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include "backends.hpp"
#include "codec.hpp"
#include "container_writer.hpp"
#include "error.hpp"
#include "io.hpp"
#include "levels.hpp"
#include "stream_cost.hpp"
#include "streams.hpp"
#include "zeroed_memory.hpp"

namespace tcgen_runtime {

// How a writer lays out its .tcz; the defaults are the generated program's.
struct WriteOptions {
    // The predictors restart every this many blocks (0: never), where a
    // reader with random access can start decoding.
    std::uint32_t restart_blocks = default_restart_blocks;
    // Bytes of records per block (0: the level's, LevelRow::block_bytes),
    // rounded down to whole records. The back-ends see one block's streams
    // at a time, so a larger block finds longer repeats and costs memory:
    // about three blocks' worth to compress, four to decompress with
    // read-ahead.
    std::uint64_t block_bytes = 0;
    // The back-end of each compressed buffer.
    BackendChoice backend;
    // 0-9, as xz and zstd take it: a row of levels.hpp.
    unsigned level = default_level;
    // The threads of the back-ends (0: one per hardware thread): with more
    // than one the streams of a block are compressed in parallel while the
    // codec predicts the next block, for a block's more memory. The file is
    // the same whatever the threads.
    unsigned threads = 0;
};

// The records per block `options` asks for with records of `record_bytes`
// bytes: at least one, and at most what the format allows (an Error names
// the sizes allowed otherwise). A level's block is never smaller than the
// codec's own (a spec coding records as ids has 64 MiB blocks of its own).
inline std::uint64_t records_per_block_for(const WriteOptions& options, std::uint64_t record_bytes,
                                           std::uint64_t codec_default) {
    if (options.block_bytes == 0) {
        const std::uint64_t level_bytes = level_row(options.level).block_bytes;
        return std::max(codec_default, level_bytes / record_bytes);
    }
    const std::uint64_t block_bytes = options.block_bytes;
    if (block_bytes < record_bytes || block_bytes > tcz_max_block_bytes) {
        fail("a block holds " + size_text(record_bytes) + " to " + size_text(tcz_max_block_bytes) +
             " bytes (one record to the format's limit), not " + size_text(block_bytes));
    }
    return block_bytes / record_bytes;
}

template <class Codec>
class TraceWriter {
public:
    // Allocates the codec's tables and room for one block (an Error if they
    // do not fit) and writes the preamble.
    explicit TraceWriter(ByteSink& sink, const WriteOptions& options = {})
        : records_per_block_(records_per_block_for(options, Codec::record_bytes, Codec::records_per_block)),
          block_bytes_(records_per_block_ * Codec::record_bytes), codec_(make_codec<Codec>()),
          container_(sink, options.backend, options.level, options.threads), sink_(sink), streams_(Codec::stream_count),
          restart_blocks_(options.restart_blocks) {
        codec_->learn_every_record(level_row(options.level).learns_every_record);
        codec_->restart_touched_pages_only(
            restarts_touched_pages_only<Codec>(options.restart_blocks, records_per_block_));
        Preamble preamble = codec_preamble<Codec>();
        preamble.restart_blocks = options.restart_blocks;
        preamble.records_per_block = records_per_block_;
        std::vector<StreamContent> contents;
        for (const std::string_view name : Codec::stream_names) {
            contents.push_back(stream_content(name));
        }
        codec_->estimate_streams_with(stream_cost_estimate(contents, options.backend, options.level));
        container_.set_stream_contents(std::move(contents));
        container_.write_preamble(preamble);
        header_.reserve(Codec::header_bytes);
        // Reserved, not filled: a short trace touches only the pages it uses.
        try {
            block_.reserve(block_bytes_);
        } catch (const std::bad_alloc&) {
            fail("cannot allocate a block of " + size_text(block_bytes_) + " bytes");
        }
    }

    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    // Appends the next `size` bytes of the trace.
    void write(const std::uint8_t* data, std::size_t size) {
        check_open();
        totals_.input_bytes += size;
        while (size > 0) {
            std::size_t taken = 0;
            if (!header_written_) {
                taken = std::min(size, Codec::header_bytes - header_.size());
                header_.insert(header_.end(), data, data + taken);
                if (header_.size() == Codec::header_bytes) {
                    write_header();
                }
            } else {
                taken = std::min(size, block_bytes_ - block_.size());
                block_.insert(block_.end(), data, data + taken);
                if (block_.size() == block_bytes_) {
                    write_block(records_per_block_);
                }
            }
            data += taken;
            size -= taken;
        }
    }

    // Ends the .tcz: the last block, then the trailer with the partial record
    // (or the partial header) kept verbatim; flushes the sink. Nothing may be
    // written after it.
    const RunTotals& finish() {
        check_open();
        if (!header_written_) {
            write_header();
        }
        const std::size_t record_count = block_.size() / Codec::record_bytes;
        if (record_count > 0) {
            write_block(record_count);
        }
        // What is left at the front of the block is the partial record.
        container_.write_trailer(totals_.records, totals_.input_bytes, block_.data(), block_.size());
        sink_.flush();
        totals_.output_bytes = container_.bytes_written();
        finished_ = true;
        return totals_;
    }

    // The trace bytes after the last whole record so far (0 after finish()
    // unless the trace ended inside a record or inside its header).
    std::size_t partial_bytes() const {
        return header_written_ ? block_.size() % Codec::record_bytes : header_.size();
    }

    const RunTotals& totals() const { return totals_; }

    // The compressed and the raw bytes of each stream so far (empty before
    // the first block).
    const std::vector<std::uint64_t>& stream_bytes() const { return container_.stream_bytes(); }
    const std::vector<std::uint64_t>& stream_raw_bytes() const { return container_.stream_raw_bytes(); }

    std::uint64_t bytes_written() const { return container_.bytes_written(); }

    const Codec& codec() const { return *codec_; }

private:
    void check_open() const {
        if (finished_) {
            fail("internal error: a trace written to after its .tcz was finished");
        }
    }

    void write_header() {
        container_.write_header(header_.data(), header_.size());
        header_written_ = true;
    }

    void write_block(std::size_t record_count) {
        for (StreamWriter& stream : streams_) {
            stream.clear();
        }
        if (totals_.blocks > 0 && tcz_restarts_at(totals_.blocks + 1, restart_blocks_)) {
            const TablesClearedInPlace in_place(restart_group_fills_tables<Codec>(restart_blocks_, records_per_block_));
            codec_->restart();
        }
        codec_->encode(block_.data(), record_count, streams_.data());
        container_.write_block(block_.data(), record_count, streams_.data());
        totals_.records += record_count;
        totals_.blocks += 1;
        const std::size_t record_area = record_count * Codec::record_bytes;
        block_.erase(block_.begin(), block_.begin() + static_cast<std::ptrdiff_t>(record_area));
    }

    std::size_t records_per_block_;
    std::size_t block_bytes_;
    std::unique_ptr<Codec> codec_;
    ContainerWriter container_;
    ByteSink& sink_;
    std::vector<StreamWriter> streams_;
    std::vector<std::uint8_t> header_;
    bool header_written_ = false;
    std::vector<std::uint8_t> block_;  // the records not yet written (and a partial one)
    RunTotals totals_;
    std::uint32_t restart_blocks_;
    bool finished_ = false;
};

}  // namespace tcgen_runtime
