#pragma once
// Code generation: the checked model in, one standalone C++ source out. The
// shapes of the code are the templates in templates/; this file only works
// out the values that fill them (names, types, sizes, indices, hash plans).

#include <string>

#include "generator/model.hpp"

namespace tcgen {

// The whole generated compressor: a deterministic function of the spec.
std::string generate_compressor(const Spec& spec);

// The 64-bit fingerprint of a spec: fingerprint64 of its canonical text,
// the same function the generated program and the .tcz use.
std::uint64_t spec_fingerprint(const Spec& spec);

}  // namespace tcgen
