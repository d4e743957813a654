#pragma once
// The canonical text of a spec: every default explicit, fixed spacing, fields
// in order, comments replaced by tcgen's own per-field cost comments. The
// text is accepted back by tcgen and is a fixed point of printing.
//
// It is also what the spec's fingerprint is computed from and what a .tcz
// stores, so any change to it changes every fingerprint: treat the format as
// stable.

#include <string>

#include "generator/model.hpp"

namespace tcgen {

std::string canonical_text(const Spec& spec);

}  // namespace tcgen
