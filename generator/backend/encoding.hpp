#pragma once
// What identifies the encoding a generated compressor writes, stored in
// every .tcz it makes and fingerprinted: the spec's statements (spec_text),
// followed, when passes that change the encoding are turned off, by the
// encoding line
//
//   # Encoding: tcgen --disable=type-minimisation,smart-update
//
// which tcgen reads back (the front end's encoding line), so that
// `comp --spec | tcgen -` and `tcgen FILE.tcz` rebuild the same encoding.
// Compressors built from the same spec with other options refuse each
// other's files by name instead of failing a checksum.

#include <cstdint>
#include <string>

#include "generator/plan/code_plan.hpp"

namespace tcgen {

std::string encoding_identity(const CodePlan& plan);

// The encoding line alone, with its newline; empty when the encoding is the
// default one.
std::string encoding_line(const CodePlan& plan);

// fingerprint64 of the identity: the function the generated program and the
// .tcz use.
std::uint64_t encoding_fingerprint(const CodePlan& plan);

// "0x21c359f2eb4ed95d"
std::string fingerprint_text(std::uint64_t fingerprint);

}  // namespace tcgen
