// The compressor of one generated compressor on any bytes as a trace
// (tcgen_fuzz::roundtrip_input, in fuzz_codec.cpp, says what is asserted).

#include "codec_harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::roundtrip_input(data, size);
}
