// --emit=c-library: the C interface of the spec's codec (the functions of
// include/tcgen/tcgen_codec.h), one C++ source to build into a shared
// library that a foreign-function interface loads, Python's among them.

#include "generator/backend/codegen.hpp"
#include "generator/emitters/emitter.hpp"

namespace tcgen {
namespace {

// TCGEN_CODEC_ABI_VERSION of include/tcgen/tcgen_codec.h: the generated
// file asserts that the header it is built with agrees.
constexpr unsigned c_abi_version = 1;

std::string generate(const CodePlan& plan) {
    // Each library holds one codec and exports only the C functions, so a
    // fixed namespace never meets another.
    return generate_c_library(plan, "spec_codec", c_abi_version);
}

}  // namespace

const Emitter& c_library_emitter() {
    static const PlanOnlyEmitter emitter(
        "c-library", "a C interface (tcgen/tcgen_codec.h) to build into a shared library: the Python package's",
        ".cpp", generate);
    return emitter;
}

}  // namespace tcgen
