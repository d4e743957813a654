// One generated compressor (CMakeLists.txt names it in TCGEN_GENERATED_SOURCE)
// under both of its fuzz harnesses (codec_harnesses.hpp).
//
// decompress_input: the input either decompresses or is refused with a
// tcgen_runtime::Error, never a crash, a sanitizer report or another
// exception; reading ahead on a second thread (the default), restart groups
// decoded on three threads and one thread write the same bytes and stop
// with the same error; and whatever decompresses is a trace the codec keeps
// exactly: compressed afresh and decompressed again, it comes back byte for
// byte.
//
// roundtrip_input: any byte string compresses and decompresses, each with a
// fresh codec, to exactly itself, whether or not it is a whole number of
// records after a whole header.

#include TCGEN_GENERATED_SOURCE

#include "codec_harnesses.hpp"
#include "codec_runs.hpp"
#include "fuzz_support.hpp"

namespace tcgen_fuzz {

int decompress_input(const std::uint8_t* data, std::size_t size) {
    return run_input([&] {
        const DecompressOutcome outcome = decompress_outcome<TraceCodec>(data, size, tcgen_runtime::ReadAhead::on);
        const DecompressOutcome sequential = decompress_outcome<TraceCodec>(data, size, tcgen_runtime::ReadAhead::off);
        check(outcome.error == sequential.error, "reading ahead stops with another error");
        check(outcome.written == sequential.written, "reading ahead writes other bytes");
        const DecompressOutcome in_groups = decompress_outcome_on_threads<TraceCodec>(data, size, 3);
        check(in_groups.error == sequential.error, "decoding groups on threads stops with another error");
        check(in_groups.written == sequential.written, "decoding groups on threads writes other bytes");
        if (!outcome.error.empty()) {
            return;
        }
        const std::vector<std::uint8_t>& trace = outcome.written;
        const std::vector<std::uint8_t> recompressed = compress_bytes<TraceCodec>(trace.data(), trace.size());
        const std::vector<std::uint8_t> again =
            decompress_bytes<TraceCodec>(recompressed.data(), recompressed.size(), tcgen_runtime::ReadAhead::off);
        check(again == trace, "a decompressed trace does not survive compressing and decompressing again");
    });
}

int roundtrip_input(const std::uint8_t* data, std::size_t size) {
    return run_input([&] {
        const std::vector<std::uint8_t> compressed = compress_bytes<TraceCodec>(data, size);
        const std::vector<std::uint8_t> trace = decompress_bytes<TraceCodec>(compressed.data(), compressed.size());
        check(trace == std::vector<std::uint8_t>(data, data + size), "the input does not decompress to itself");
    });
}

}  // namespace tcgen_fuzz
