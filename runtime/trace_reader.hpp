#pragma once
// Decompression as a source: a .tcz comes in on a ByteSource and the trace
// comes out a block of verified records at a time, in the order header,
// blocks, partial record; then the same for each .tcz concatenated after it.
// The command line and the generated in-process Reader are both built on it,
// so there is one decompressor. Memory: one block of records and the
// streams of two blocks (one read ahead), whatever the file claims.
//
// With ReadAhead::on (the default) a second thread reads and
// back-end-decompresses block n+1 while the calling thread runs the
// predictors over block n (BlockPrefetcher); the output, and every error
// and the point where it is thrown, are those of ReadAhead::off.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "block_prefetcher.hpp"
#include "codec.hpp"
#include "container_reader.hpp"
#include "error.hpp"
#include "io.hpp"
#include "streams.hpp"
#include "zeroed_memory.hpp"

namespace tcgen_runtime {

// Whether a reader reads the next block on a second thread while the
// predictors decode the current one (the source is then read on that
// thread). Off: everything happens on the calling thread.
enum class ReadAhead { off, on };

// Container is the ContainerReader it reads with, or a class derived from
// it (SeekableTraceReader, block_index.hpp, reads with one that seeks).
template <class Codec, class Container = ContainerReader>
class TraceReader {
public:
    // Reads the preamble, checks that this codec's spec made the file, and
    // reads the header; allocates the codec's tables.
    explicit TraceReader(ByteSource& source, ReadAhead read_ahead = ReadAhead::on)
        : container_(source), streams_(Codec::stream_count) {
        container_.limit_stream_bytes(Codec::stream_bytes_per_record.data(), Codec::stream_count);
        begin_member();
        if (read_ahead == ReadAhead::on) {
            prefetcher_ = std::make_unique<BlockPrefetcher>(container_, Codec::stream_names.data());
        }
    }

    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    // The header of the current .tcz (shorter than the spec's only if the
    // trace was).
    const std::vector<std::uint8_t>& header() const { return header_; }

    // Decodes and verifies the next block of the current .tcz; false once
    // its trailer has been read (tail() then holds its partial record).
    bool next_block() {
        if (at_trailer_) {
            return false;
        }
        if (!read_section()) {
            at_trailer_ = true;
            records_.clear();
            return false;
        }
        if (block_.number > 1 && tcz_restarts_at(block_.number, preamble_.restart_blocks)) {
            const TablesClearedInPlace in_place(
                restart_group_fills_tables<Codec>(preamble_.restart_blocks, preamble_.records_per_block));
            codec_->restart();
        }
        const std::size_t record_count = static_cast<std::size_t>(block_.record_count);
        records_.resize(record_count * Codec::record_bytes);
        for (std::size_t stream = 0; stream < Codec::stream_count; ++stream) {
            streams_[stream] = StreamReader(Codec::stream_names[stream], block_.streams[stream].data(),
                                            block_.streams[stream].size());
        }
        codec_->decode(streams_.data(), record_count, records_.data());
        for (const StreamReader& stream : streams_) {
            if (!stream.at_end()) {
                fail("corrupt input: stream '" + std::string(stream.name()) + "' of " + block_name(block_.number) +
                     " has " + size_text(stream.remaining()) + " unused bytes");
            }
        }
        container_.verify_records(block_, records_.data());
        return true;
    }

    // The records of the block next_block() decoded.
    const std::uint8_t* records() const { return records_.data(); }

    std::size_t record_count() const { return records_.size() / Codec::record_bytes; }

    // The bytes after the last whole record, once next_block() returned false.
    const std::vector<std::uint8_t>& tail() const { return trailer_.tail; }

    // Once next_block() returned false: starts on the next .tcz concatenated
    // after this one, with predictor state of its own; false if none
    // follows (the input is then fully read and checked).
    bool next_member() {
        if (!at_trailer_ || !container_.next_member()) {
            return false;
        }
        begin_member();
        return true;
    }

    // Bytes of .tcz read so far (up to the end of the block next_block()
    // decoded, whatever has been read ahead).
    std::uint64_t bytes_read() const {
        return prefetcher_ && prefetcher_->pending() ? bytes_read_ : container_.bytes_read();
    }

    // How often the writer restarted the predictors, in blocks (0: never).
    std::uint32_t restart_blocks() const { return preamble_.restart_blocks; }

    // The records of every block of the current .tcz but its last.
    std::uint64_t records_per_block() const { return preamble_.records_per_block; }

private:
    // Reads the next section into block_ (true) or trailer_ (false). Read
    // ahead, a block is followed at once by the start of the next read, so
    // that it runs while this block is decoded; after the trailer nothing
    // is started (next_member(), or a seek, uses the container).
    bool read_section() {
        if (!prefetcher_) {
            return container_.read_next(block_, trailer_, Codec::stream_names.data());
        }
        if (!prefetcher_->pending()) {
            prefetcher_->start();
        }
        const bool is_block = prefetcher_->take(block_, trailer_, bytes_read_);
        if (is_block) {
            prefetcher_->start();
        }
        return is_block;
    }

    void begin_member() {
        preamble_ = container_.read_preamble();
        check_preamble_matches(preamble_, codec_preamble<Codec>());
        container_.read_header(header_);
        codec_ = make_codec<Codec>();
        codec_->restart_touched_pages_only(
            restarts_touched_pages_only<Codec>(preamble_.restart_blocks, preamble_.records_per_block));
        at_trailer_ = false;
        member_number_ += 1;
    }

protected:
    // The state a reader that seeks (SeekableTraceReader) moves.
    Container container_;
    Preamble preamble_;
    std::uint64_t member_number_ = 0;
    std::unique_ptr<Codec> codec_;
    std::vector<StreamReader> streams_;
    std::vector<std::uint8_t> header_;
    BlockData block_;
    Trailer trailer_;
    std::vector<std::uint8_t> records_;
    bool at_trailer_ = false;
    std::uint64_t bytes_read_ = 0;  // container_.bytes_read() after the section last taken from prefetcher_
    // Last: destroyed first, so that its thread is joined before anything it
    // reads or writes goes.
    std::unique_ptr<BlockPrefetcher> prefetcher_;
};

}  // namespace tcgen_runtime
