// The decompressor of one generated compressor (CMakeLists.txt names it in
// TCGEN_GENERATED_SOURCE) on any bytes. Asserts: the input either decompresses
// or is refused with a tcgen_runtime::Error, never a crash, a sanitizer report
// or another exception; and whatever decompresses is a trace the codec keeps
// exactly: compressed afresh and decompressed again, it comes back byte for
// byte.

#include TCGEN_GENERATED_SOURCE

#include "codec_runs.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::run_input([&] {
        std::vector<std::uint8_t> trace;
        try {
            trace = tcgen_fuzz::decompress_bytes<TraceCodec>(data, size);
        } catch (const tcgen_runtime::Error&) {
            return;
        }
        const std::vector<std::uint8_t> recompressed =
            tcgen_fuzz::compress_bytes<TraceCodec>(trace.data(), trace.size());
        const std::vector<std::uint8_t> again =
            tcgen_fuzz::decompress_bytes<TraceCodec>(recompressed.data(), recompressed.size());
        tcgen_fuzz::check(again == trace, "a decompressed trace does not survive compressing and decompressing again");
    });
}
