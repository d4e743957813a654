#include "generator/backend/encoding.hpp"

#include <cstdio>

#include "generator/backend/canonical_printer.hpp"
#include "generator/plan/passes/pass.hpp"
#include "runtime/checksum.hpp"

namespace tcgen {

std::string encoding_line(const CodePlan& plan) {
    std::string disabled;
    for (const std::string& name : encoding_passes_disabled(plan)) {
        disabled += (disabled.empty() ? "" : ",") + name;
    }
    return disabled.empty() ? "" : std::string(encoding_line_prefix) + disabled + "\n";
}

std::string encoding_identity(const CodePlan& plan) {
    return spec_text(plan.spec) + encoding_line(plan);
}

std::uint64_t encoding_fingerprint(const CodePlan& plan) {
    return tcgen_runtime::fingerprint64(encoding_identity(plan));
}

std::string fingerprint_text(std::uint64_t fingerprint) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(fingerprint));
    return text;
}

}  // namespace tcgen
