#pragma once
// A source of bytes in memory without random access, as a pipe is: for tests
// of what a reader does when it cannot seek.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/io.hpp"

namespace tcgen_runtime {

class StreamOnly final : public ByteSource {
public:
    explicit StreamOnly(const std::vector<std::uint8_t>& bytes) : memory_(bytes) {}
    // It reads the bytes where they are, as MemorySource does: a temporary
    // would be gone.
    explicit StreamOnly(std::vector<std::uint8_t>&& bytes) = delete;
    std::size_t read_up_to(std::uint8_t* buffer, std::size_t size) override { return memory_.read_up_to(buffer, size); }

private:
    MemorySource memory_;
};

}  // namespace tcgen_runtime
