#pragma once
// The example specs shipped with tcgen (examples/*.tcg, embedded into tcgen
// at build time like the runtime), as starting points of the tuner: a
// layout that some of them fit exactly starts from each of those specs, so
// that the tuner never returns less than the best shipped spec a user could
// try.

#include <optional>
#include <string>
#include <vector>

#include "generator/tune/candidate.hpp"

namespace tcgen::tune {

struct ShippedSpec {
    std::string name;  // "examples/vpc3.tcg"
    Candidate candidate;
};

// Whether two candidates have the same record layout: header, field widths
// in order, the PC field.
bool same_layout(const Candidate& a, const Candidate& b);

// Every shipped spec of exactly this layout (none, one or several: the VPC
// format h32,pc32,64 has TCgen(A), TCgen(B) and the x86 specs). TCgen(A),
// examples/vpc3.tcg, comes first: it is the paper's spec for that format
// and the one users compare with; the others follow by name.
std::vector<ShippedSpec> shipped_specs_for(const Candidate& layout);

// The first of shipped_specs_for, or nothing.
std::optional<ShippedSpec> shipped_spec_for(const Candidate& layout);

}  // namespace tcgen::tune
