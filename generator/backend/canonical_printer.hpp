#pragma once
// The canonical text of a spec: every default explicit, fixed spacing, fields
// in order, comments replaced by tcgen's own per-field cost comments. The
// text is accepted back by tcgen and is a fixed point of printing.
//
// Without comments it is also what the spec's fingerprint is computed from
// and what a .tcz stores, so any change to the statements' format changes
// every fingerprint: treat it as stable. The comments may change freely.

#include <string>

#include "generator/frontend/model.hpp"

namespace tcgen {

enum class CanonicalComments {
    costs,  // after each field its predictions and table bytes, at the end the memory estimate
    none,   // the statements alone: the spec's identity, fingerprinted and stored in a .tcz
};

std::string canonical_text(const Spec& spec, CanonicalComments comments = CanonicalComments::costs);

}  // namespace tcgen
