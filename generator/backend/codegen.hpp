#pragma once
// Code generation: a plan in, one standalone C++ source out, a deterministic
// function of the plan. The shapes of the code are the templates in
// templates/; this file works out the values that fill them (names, types,
// sizes, indices, hash parameters), asking each predictor kind for its own
// code (generator/kinds/).

#include <string>

#include "generator/plan/code_plan.hpp"

namespace tcgen {

std::string generate_compressor(const CodePlan& plan);

// The in-process reader and writer of the spec's .tcz files: one header
// (templates/codec.hpp.mustache) with the runtime, a Record struct and the
// codec in namespace `cpp_namespace`; header_name is how users include it.
std::string generate_codec_header(const CodePlan& plan, const std::string& cpp_namespace,
                                  const std::string& header_name);

// The C interface of the spec's codec (templates/c_library.cpp.mustache):
// one source whose extern "C" functions are those of
// include/tcgen/tcgen_codec.h, TCGEN_CODEC_ABI_VERSION `abi_version`, over
// the header's Reader and Writer in namespace `cpp_namespace`.
std::string generate_c_library(const CodePlan& plan, const std::string& cpp_namespace, unsigned abi_version);

}  // namespace tcgen
