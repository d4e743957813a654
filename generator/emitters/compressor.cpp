// --emit=compressor: the standalone compressor program, tcgen's default.

#include "generator/backend/codegen.hpp"
#include "generator/emitters/emitter.hpp"

namespace tcgen {

const Emitter& compressor_emitter() {
    static const PlanOnlyEmitter emitter("compressor", "a standalone compressor program", ".cpp", generate_compressor);
    return emitter;
}

}  // namespace tcgen
