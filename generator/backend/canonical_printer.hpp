#pragma once
// The canonical text of a spec: every default explicit, fixed spacing, fields
// in order. The text is accepted back by tcgen and is a fixed point of
// printing.
//
// spec_text() is the statements alone, one per field, without field names:
// with the encoding line it is the spec's identity, fingerprinted and stored in every .tcz (encoding.hpp), so
// any change to the statements' format changes every fingerprint: treat it
// as stable. Names are left out of it so that naming the fields of a spec
// changes neither its fingerprint nor the .tcz it makes.
// canonical_text() has the names (still one statement per field: an array's
// elements as pieces of one, "a[1]", each continuing the array; the PC by
// name) and adds tcgen's cost comments for one build: after each
// field its predictions and table bytes, at the end the memory estimate. The
// names and comments may change freely.

#include <string>

#include "generator/frontend/model.hpp"
#include "generator/plan/code_plan.hpp"

namespace tcgen {

std::string spec_text(const Spec& spec);

std::string canonical_text(const CodePlan& plan);

}  // namespace tcgen
