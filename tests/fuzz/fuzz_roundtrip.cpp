// The compressor of one generated compressor (CMakeLists.txt names it in
// TCGEN_GENERATED_SOURCE) on any bytes as a trace. Asserts: any byte string
// compresses and decompresses, each with a fresh codec, to exactly itself,
// whether or not it is a whole number of records after a whole header.

#include TCGEN_GENERATED_SOURCE

#include "codec_runs.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::run_input([&] {
        const std::vector<std::uint8_t> compressed = tcgen_fuzz::compress_bytes<TraceCodec>(data, size);
        const std::vector<std::uint8_t> trace =
            tcgen_fuzz::decompress_bytes<TraceCodec>(compressed.data(), compressed.size());
        tcgen_fuzz::check(trace == std::vector<std::uint8_t>(data, data + size),
                          "the input does not decompress to itself");
    });
}
