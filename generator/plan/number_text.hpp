#pragma once
// Numbers as people read them, in comments, dumps and diagnostics.

#include <cstdint>
#include <string>

namespace tcgen {

// "5,242,880"
std::string with_thousands_separators(std::uint64_t value);

// "5.0 MiB", "512 bytes"
std::string human_bytes(std::uint64_t value);

}  // namespace tcgen
