// A generated codec owns its state: two compressions in one process give the
// same bytes, and the first one's output decompresses in the same process.
// (With tables at namespace scope, the second compression started from the
// first one's tables and the decompression failed its checksum.) The
// generated compressor of examples/vpc3.tcg is compiled into this test, its
// main() renamed on the command line.

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "comp_vpc3.cpp"

namespace {

std::vector<std::uint8_t> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::uint8_t> compress_once(const std::vector<std::uint8_t>& trace) {
    tcgen_runtime::MemorySource input(trace);
    tcgen_runtime::MemorySink output;
    tcgen_runtime::compress<TraceCodec>(input, output);
    return output.bytes();
}

TEST(InProcess, TwoCompressionsShareNoState) {
    std::vector<std::uint8_t> trace = read_bytes(TCGEN_GOLDEN_DIR "/inputs/load_values.trace");
    ASSERT_FALSE(trace.empty());
    std::vector<std::uint8_t> first = compress_once(trace);
    std::vector<std::uint8_t> second = compress_once(trace);
    EXPECT_EQ(first, second);
    EXPECT_EQ(first, read_bytes(TCGEN_GOLDEN_DIR "/vpc3.tcz"));

    tcgen_runtime::MemorySource input(first);
    tcgen_runtime::MemorySink output;
    tcgen_runtime::decompress<TraceCodec>(input, output);
    EXPECT_EQ(output.bytes(), trace);
}

}  // namespace
