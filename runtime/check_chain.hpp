#pragma once
// The check chain that covers every byte of a .tcz (docs/format.md).

#include <cstddef>
#include <cstdint>

#include "checksum.hpp"

namespace tcgen_runtime {

// The checks of a file form one chain: each is the XXH64 of what it covers,
// seeded with the check before it (the preamble's with 0). A section
// therefore verifies only after the very sections it was written after, so
// sections of two files cannot be mixed, reordered, repeated or dropped
// without an error, and the trailer's check vouches for the whole file.
// Writer and reader hold one each; the output stays a function of the input
// alone (no random identifiers), so equal traces give equal files.
class CheckChain {
public:
    // The check of `size` bytes at `data`, which becomes the seed of the next.
    std::uint64_t next(const std::uint8_t* data, std::size_t size) {
        last_ = xxh64(data, size, last_);
        return last_;
    }

    // A hash of data that arrives in pieces, seeded like next().
    Xxh64 start() const { return Xxh64(last_); }

    // Continues the chain from a check computed elsewhere (or read from a
    // file, to be verified later).
    void advance(std::uint64_t check) { last_ = check; }

    std::uint64_t last() const { return last_; }

private:
    std::uint64_t last_ = 0;
};

}  // namespace tcgen_runtime
