#pragma once
// The bidirectional back end: from a spec, a C++ header and source defining
// a compressed stream of its records that a cursor walks both ways (WET
// paper §4; the runtime in runtime/bidirectional/). Each field becomes one
// stream coded with one of its predictors, chosen per stream (§4.4), so the
// predictors a field lists are candidates rather than a combination.

#include <cstdint>
#include <string>

#include "generator/frontend/model.hpp"
#include "generator/plan/code_plan.hpp"

namespace tcgen {

struct BidirectionalNames {
    std::string stem;          // "node_timestamps": the file names and the spec's name
    std::string class_name;    // "NodeTimestamps"
    std::string cpp_namespace; // "tcgen::wet"
};

// The names for a stem, which must be a C++ identifier
// (emitters/cpp_names.hpp); the bidirectional emitters check it, and the
// spec, before they call the generators below.
BidirectionalNames bidirectional_names(const std::string& stem, const std::string& cpp_namespace);

// The fingerprint a saved stream carries: of the spec's statements and the
// stream format, so a stream of another spec or format is refused by name.
std::uint64_t bidirectional_fingerprint(const CodePlan& plan);

std::string generate_bidirectional_header(const CodePlan& plan, const BidirectionalNames& names);
std::string generate_bidirectional_source(const CodePlan& plan, const BidirectionalNames& names);

}  // namespace tcgen
