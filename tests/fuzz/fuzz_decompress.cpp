// The decompressor of one generated compressor on any bytes
// (tcgen_fuzz::decompress_input, in fuzz_codec.cpp, says what is asserted).

#include "codec_harnesses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return tcgen_fuzz::decompress_input(data, size);
}
