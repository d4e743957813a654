#pragma once
// The input of fuzz_wet_raw_files, shared by the target and by the seed
// writer (forge_fuzz_seeds): a mode byte, then the raw WET files of one run
// (docs/wet-streams.md) one after another, each a u32 length (little-endian)
// then its bytes, in the order blocks, flow, nodes, events, edges, regs,
// syms. A length past the input's end takes what is left; a file whose
// length is missing is empty (blocks ... edges) or absent (regs, syms), as
// is a regs or syms whose length is 0xFFFFFFFF.

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace raw_wet_input {

constexpr const char* suffixes[] = {".blocks", ".flow", ".nodes", ".events", ".edges", ".regs", ".syms"};
constexpr std::size_t file_count = 7;
constexpr std::size_t first_optional = 5;  // .regs and .syms may be absent
constexpr std::uint32_t absent = 0xFFFFFFFFu;

struct Files {
    std::optional<std::vector<std::uint8_t>> bytes[file_count];
};

inline Files unpack(const std::uint8_t* data, std::size_t size) {
    Files files;
    std::size_t at = 0;
    for (std::size_t file = 0; file < file_count; ++file) {
        if (size - at < 4) {
            if (file < first_optional) {
                files.bytes[file].emplace();
            }
            continue;
        }
        std::uint32_t length = 0;
        std::memcpy(&length, data + at, 4);  // the fuzzers run on little-endian machines
        at += 4;
        if (length == absent && file >= first_optional) {
            continue;
        }
        const std::size_t taken = length < size - at ? length : size - at;
        files.bytes[file].emplace(data + at, data + at + taken);
        at += taken;
    }
    return files;
}

// The input for `files`, each "" of regs and syms absent, after `mode`.
inline std::string pack(std::uint8_t mode, const std::string (&files)[file_count]) {
    std::string input(1, static_cast<char>(mode));
    for (std::size_t file = 0; file < file_count; ++file) {
        const bool is_absent = file >= first_optional && files[file].empty();
        const std::uint32_t length = is_absent ? absent : static_cast<std::uint32_t>(files[file].size());
        for (int i = 0; i < 4; ++i) {
            input.push_back(static_cast<char>(length >> (8 * i)));
        }
        if (!is_absent) {
            input += files[file];
        }
    }
    return input;
}

}  // namespace raw_wet_input
