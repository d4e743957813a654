// --emit=ir (--dump-ir): the code plan after the optimisation passes in its
// stable text form, what the golden tests of the passes compare.

#include "generator/backend/plan_dump.hpp"
#include "generator/emitters/emitter.hpp"

namespace tcgen {

const Emitter& ir_dump_emitter() {
    static const PlanOnlyEmitter emitter(
        "ir", "the code plan after the optimisation passes (tables, types, sharing, hashing)", ".ir.txt",
        dump_code_plan, "--dump-ir");
    return emitter;
}

}  // namespace tcgen
