#pragma once
// The raw files' reader (<tcgen/wet/raw_trace.hpp>) over any source of their
// bytes: read_raw_trace() reads them from disk; the fuzz target
// fuzz_wet_raw_files serves them from memory, so that every check `wet
// build` makes of its input is reached without a file system.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

namespace tcgen::wet {

// The bytes of the raw file `name` (PREFIX.blocks, ...), asked for once each,
// in the order they are checked, so that one file's bytes are freed before
// the next is read. A required file that cannot be read throws WetError; an
// optional one (PREFIX.regs, PREFIX.syms) that does not exist is nullopt.
using RawFileSource = std::function<std::optional<std::vector<std::uint8_t>>(const std::string& name, bool required)>;

// read_raw_trace(prefix) with the files' bytes from `source`; `prefix` names
// them. Throws WetError as read_raw_trace() does.
RawTrace read_raw_files(const std::string& prefix, const RawFileSource& source);

}  // namespace tcgen::wet
