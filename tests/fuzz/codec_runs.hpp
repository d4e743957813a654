#pragma once
// One whole compression or decompression in memory, the way a generated
// program runs it. Include after the generated compressor source: the
// runtime it embeds is what this uses.
//
// Each run constructs its own codec: predictor state carries from block to
// block, so a codec reused across fuzz inputs would make an input's outcome
// depend on the inputs before it, and a crash would not reproduce.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tcgen_fuzz {

template <class Codec>
std::vector<std::uint8_t> compress_bytes(const std::uint8_t* data, std::size_t size) {
    tcgen_runtime::MemorySource input(data, size);
    tcgen_runtime::MemorySink output;
    tcgen_runtime::compress<Codec>(input, output);
    return output.bytes();
}

template <class Codec>
std::vector<std::uint8_t> decompress_bytes(const std::uint8_t* data, std::size_t size,
                                           tcgen_runtime::ReadAhead read_ahead = tcgen_runtime::ReadAhead::on) {
    tcgen_runtime::MemorySource input(data, size);
    tcgen_runtime::MemorySink output;
    tcgen_runtime::decompress<Codec>(input, output, read_ahead);
    return output.bytes();
}

// What decompressing gives: what was written before it stopped, and the
// error's message ("" if none).
struct DecompressOutcome {
    std::vector<std::uint8_t> written;
    std::string error;
};

template <class Codec>
DecompressOutcome decompress_outcome(const std::uint8_t* data, std::size_t size, tcgen_runtime::ReadAhead read_ahead) {
    tcgen_runtime::MemorySource input(data, size);
    tcgen_runtime::MemorySink output;
    DecompressOutcome outcome;
    try {
        tcgen_runtime::decompress<Codec>(input, output, read_ahead);
    } catch (const tcgen_runtime::Error& error) {
        outcome.error = error.what();
    }
    outcome.written = output.bytes();
    return outcome;
}

// The same on `threads` threads, restart groups decoded in parallel
// (decompress_on_threads).
template <class Codec>
DecompressOutcome decompress_outcome_on_threads(const std::uint8_t* data, std::size_t size, unsigned threads) {
    tcgen_runtime::MemorySource input(data, size);
    tcgen_runtime::MemorySink output;
    DecompressOutcome outcome;
    try {
        tcgen_runtime::decompress_on_threads<Codec>(input, output, threads);
    } catch (const tcgen_runtime::Error& error) {
        outcome.error = error.what();
    }
    outcome.written = output.bytes();
    return outcome;
}

}  // namespace tcgen_fuzz
