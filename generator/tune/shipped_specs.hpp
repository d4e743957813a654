#pragma once
// The example specs shipped with tcgen (examples/*.tcg, embedded into tcgen
// at build time like the runtime), as starting points of the tuner: a
// layout that one of them fits exactly starts from that spec, so that the
// tuner never returns less than the spec a user would try first.

#include <optional>
#include <string>

#include "generator/tune/candidate.hpp"

namespace tcgen::tune {

struct ShippedSpec {
    std::string name;  // "examples/vpc3.tcg"
    Candidate candidate;
};

// Whether two candidates have the same record layout: header, field widths
// in order, the PC field.
bool same_layout(const Candidate& a, const Candidate& b);

// The shipped spec for exactly this layout, or nothing. When several fit
// (the VPC format h32,pc32,64 has TCgen(A), TCgen(B) and the x86 specs),
// TCgen(A), examples/vpc3.tcg, comes first: it is the paper's spec for that
// format and the one users compare with; otherwise the first by name.
std::optional<ShippedSpec> shipped_spec_for(const Candidate& layout);

}  // namespace tcgen::tune
