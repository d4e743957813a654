#pragma once
// What tcgen reads: a spec, or a .tcz, whose preamble holds the spec (with
// its encoding line) that its compressor was generated from, so that
// `tcgen trace.tcz` regenerates the decompressor of that file. Only the
// preamble of a .tcz is read, however large the file.

#include <cstdint>
#include <optional>
#include <string>

#include "generator/frontend/source_file.hpp"

namespace tcgen {

struct SpecInput {
    SourceFile file;
    std::optional<std::uint64_t> tcz_fingerprint;  // set when the input is a .tcz
};

// `path` may be "-" for standard input. On failure returns nothing and sets
// `error` to a one-line reason such as "cannot read 'x.tcg': No such file or
// directory".
std::optional<SpecInput> read_spec_input(const std::string& path, std::string& error);

}  // namespace tcgen
