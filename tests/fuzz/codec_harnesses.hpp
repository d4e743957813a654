#pragma once
// What the two fuzz targets of a generated compressor do with an input,
// defined in fuzz_codec.cpp. That file includes the whole generated codec,
// which takes longer to compile than anything else a target holds; it is
// compiled once per spec and linked into both of the spec's targets
// (fuzz_decompress_NAME, fuzz_roundtrip_NAME), each a one-line file.

#include <cstddef>
#include <cstdint>

namespace tcgen_fuzz {

// Any bytes as a .tcz: refused with a tcgen_runtime::Error or decompressed,
// alike on every path, and what decompresses survives a second round trip.
int decompress_input(const std::uint8_t* data, std::size_t size);

// Any bytes as a trace: compressed and decompressed to exactly themselves.
int roundtrip_input(const std::uint8_t* data, std::size_t size);

}  // namespace tcgen_fuzz
