#pragma once
// Decompression as a source: a .tcz comes in on a ByteSource and the trace
// comes out a block of verified records at a time, in the order header,
// blocks, partial record; then the same for each .tcz concatenated after it.
// The command line and the generated in-process Reader are both built on it,
// so there is one decompressor. Memory: one block of records and its
// streams, whatever the file claims.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codec.hpp"
#include "container.hpp"
#include "error.hpp"
#include "io.hpp"
#include "streams.hpp"

namespace tcgen_runtime {

template <class Codec>
class TraceReader {
public:
    // Reads the preamble, checks that this codec's spec made the file, and
    // reads the header; allocates the codec's tables.
    explicit TraceReader(ByteSource& source) : container_(source), streams_(Codec::stream_count) { begin_member(); }

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
        if (!container_.read_next(block_, trailer_, Codec::stream_names.data())) {
            at_trailer_ = true;
            records_.clear();
            return false;
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

    // Bytes of .tcz read so far.
    std::uint64_t bytes_read() const { return container_.bytes_read(); }

private:
    void begin_member() {
        check_preamble_matches(container_.read_preamble(), codec_preamble<Codec>());
        container_.read_header(header_);
        codec_ = make_codec<Codec>();
        at_trailer_ = false;
    }

    ContainerReader container_;
    std::unique_ptr<Codec> codec_;
    std::vector<StreamReader> streams_;
    std::vector<std::uint8_t> header_;
    BlockData block_;
    Trailer trailer_;
    std::vector<std::uint8_t> records_;
    bool at_trailer_ = false;
};

}  // namespace tcgen_runtime
