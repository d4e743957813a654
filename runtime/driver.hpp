#pragma once
// Whole-stream compression and decompression: a trace from a ByteSource to a
// .tcz on a ByteSink and back, for tests, fuzzers and programs that hold a
// trace in memory. Both are thin loops over TraceWriter and TraceReader, the
// one compressor and decompressor the command line and the generated Reader
// and Writer use too.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends.hpp"
#include "codec.hpp"
#include "group_decoder.hpp"
#include "io.hpp"
#include "trace_reader.hpp"
#include "trace_writer.hpp"

namespace tcgen_runtime {

// The piece size in which a trace is read: at most 1 MiB (the writer copies
// pieces into its block, so a larger piece would only cost memory).
template <class Codec>
constexpr std::size_t read_piece_bytes() {
    constexpr std::size_t block_bytes = Codec::records_per_block * Codec::record_bytes;
    constexpr std::size_t most = std::size_t{1} << 20;
    return block_bytes < most ? block_bytes : most;
}

// Compresses all of `input` into a .tcz on `output` (flushed), calling
// `progress(writer)` after each piece. Memory: one block of records plus the
// streams of one block, whatever the input length.
template <class Codec, class Progress>
RunTotals compress_with(ByteSource& input, TraceWriter<Codec>& writer, Progress&& progress) {
    std::vector<std::uint8_t> piece(read_piece_bytes<Codec>());
    while (true) {
        const std::size_t size = input.read_up_to(piece.data(), piece.size());
        writer.write(piece.data(), size);
        progress(writer);
        if (size < piece.size()) {
            // read_up_to only stops short at the end of the input.
            return writer.finish();
        }
    }
}

template <class Codec>
RunTotals compress(ByteSource& input, ByteSink& output, const WriteOptions& options = {}) {
    TraceWriter<Codec> writer(output, options);
    return compress_with(input, writer, [](const TraceWriter<Codec>&) {});
}

// Decompresses a .tcz (or several concatenated) from `input` onto `output`
// (flushed), calling `progress(reader, totals)` after each block. Every
// block is written only after its checksum has been verified.
template <class Codec, class Progress>
RunTotals decompress_with(TraceReader<Codec>& reader, ByteSink& output, Progress&& progress) {
    RunTotals totals;
    do {
        output.write(reader.header().data(), reader.header().size());
        totals.output_bytes += reader.header().size();
        while (reader.next_block()) {
            const std::size_t record_area = reader.record_count() * Codec::record_bytes;
            output.write(reader.records(), record_area);
            totals.output_bytes += record_area;
            totals.records += reader.record_count();
            totals.blocks += 1;
            totals.input_bytes = reader.bytes_read();
            progress(reader, totals);
        }
        output.write(reader.tail().data(), reader.tail().size());
        totals.output_bytes += reader.tail().size();
    } while (reader.next_member());
    output.flush();
    totals.input_bytes = reader.bytes_read();
    return totals;
}

template <class Codec>
RunTotals decompress(ByteSource& input, ByteSink& output, ReadAhead read_ahead = ReadAhead::on) {
    TraceReader<Codec> reader(input, read_ahead);
    return decompress_with(reader, output, [](const TraceReader<Codec>&, const RunTotals&) {});
}

// Decompresses on this thread alone (TraceReader without read ahead).
template <class Codec, class Progress>
RunTotals decompress_alone(ByteSource& input, ByteSink& output, Progress&& progress) {
    TraceReader<Codec> reader(input, ReadAhead::off);
    return decompress_with(reader, output, [&](const TraceReader<Codec>&, const RunTotals& totals) { progress(totals); });
}

// Decompresses on `threads` threads (0: one per core), calling
// `progress(totals)` after each block: with 1, on this thread alone;
// otherwise restart groups are decoded in parallel (GroupDecoder), with a
// codec, and so its tables, per thread, unless the first .tcz's groups are
// too small to pay for that (GroupDecoder::groups_pay_for_threads: one
// thread then). The output, and every error and the output before it, are
// the same whatever the threads.
template <class Codec, class Progress>
RunTotals decompress_on_threads(ByteSource& input, ByteSink& output, unsigned threads, Progress&& progress) {
    if (threads == 1) {
        return decompress_alone<Codec>(input, output, progress);
    }
    LookAheadSource source(input, TczPreambleLayout::spec_text);
    if (GroupDecoder<Codec>::groups_pay_for_threads(source.ahead())) {
        GroupDecoder<Codec> decoder(source, threads);
        if (decoder.started()) {
            return decoder.run(output, progress);
        }
        // No thread to be had: nothing was read; decode here.
    }
    return decompress_alone<Codec>(source, output, progress);
}

template <class Codec>
RunTotals decompress_on_threads(ByteSource& input, ByteSink& output, unsigned threads) {
    return decompress_on_threads<Codec>(input, output, threads, [](const RunTotals&) {});
}

}  // namespace tcgen_runtime
