// --emit=canonical (--canonical): the spec with every default written out,
// followed by each field's table sizes; tcgen reads it back as the same spec.

#include "generator/backend/canonical_printer.hpp"
#include "generator/emitters/emitter.hpp"

namespace tcgen {

const Emitter& canonical_text_emitter() {
    static const PlanOnlyEmitter emitter("canonical", "the spec in canonical form with per-field table sizes", ".tcg",
                                         canonical_text, "--canonical");
    return emitter;
}

}  // namespace tcgen
