// The decompressor of one generated compressor (CMakeLists.txt names it in
// TCGEN_GENERATED_SOURCE) on any bytes. Asserts: the input either decompresses
// or is refused with a tcgen_runtime::Error, never a crash, a sanitizer report
// or another exception; reading ahead on a second thread (the default),
// restart groups decoded on three threads and one thread write the same
// bytes and stop with the same error; and
// whatever decompresses is a trace the codec keeps exactly: compressed
// afresh and decompressed again, it comes back byte for byte.

#include TCGEN_GENERATED_SOURCE

#include "codec_runs.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::run_input([&] {
        const tcgen_fuzz::DecompressOutcome outcome =
            tcgen_fuzz::decompress_outcome<TraceCodec>(data, size, tcgen_runtime::ReadAhead::on);
        const tcgen_fuzz::DecompressOutcome sequential =
            tcgen_fuzz::decompress_outcome<TraceCodec>(data, size, tcgen_runtime::ReadAhead::off);
        tcgen_fuzz::check(outcome.error == sequential.error, "reading ahead stops with another error");
        tcgen_fuzz::check(outcome.written == sequential.written, "reading ahead writes other bytes");
        const tcgen_fuzz::DecompressOutcome in_groups =
            tcgen_fuzz::decompress_outcome_on_threads<TraceCodec>(data, size, 3);
        tcgen_fuzz::check(in_groups.error == sequential.error, "decoding groups on threads stops with another error");
        tcgen_fuzz::check(in_groups.written == sequential.written, "decoding groups on threads writes other bytes");
        if (!outcome.error.empty()) {
            return;
        }
        const std::vector<std::uint8_t>& trace = outcome.written;
        const std::vector<std::uint8_t> recompressed =
            tcgen_fuzz::compress_bytes<TraceCodec>(trace.data(), trace.size());
        const std::vector<std::uint8_t> again = tcgen_fuzz::decompress_bytes<TraceCodec>(
            recompressed.data(), recompressed.size(), tcgen_runtime::ReadAhead::off);
        tcgen_fuzz::check(again == trace, "a decompressed trace does not survive compressing and decompressing again");
    });
}
