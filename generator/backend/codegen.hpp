#pragma once
// Code generation: the checked model in, one standalone C++ source out. The
// shapes of the code are the templates in templates/; this file only works
// out the values that fill them (names, types, sizes, indices, hash plans).

#include <string>

#include "generator/plan/code_plan.hpp"
#include "generator/frontend/model.hpp"

namespace tcgen {

// The whole generated compressor for a plan of the spec: a deterministic
// function of both.
std::string generate_compressor(const Spec& spec, const CodePlan& plan);

// The same with every optimisation applied.
std::string generate_compressor(const Spec& spec);

// What identifies the encoding a generated compressor writes, stored in
// every .tcz it makes: the canonical spec, followed, when passes that change
// the encoding are turned off, by a comment naming them. Compressors built
// from the same spec with other options thus refuse each other's files by
// name instead of failing a checksum.
std::string encoding_identity(const Spec& spec, const CodePlan& plan);

// The 64-bit fingerprint of a fully optimised compressor of the spec:
// fingerprint64 of its encoding identity, the same function the generated
// program and the .tcz use.
std::uint64_t spec_fingerprint(const Spec& spec);

}  // namespace tcgen
