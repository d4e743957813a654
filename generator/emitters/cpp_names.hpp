#pragma once
// Whether a name the user gives (--name, --namespace, or the spec's file name
// standing in for them) can be spelled in the C++ an output writes.

#include <string>

namespace tcgen {

// Letters, digits and '_', not starting with a digit.
bool is_identifier(const std::string& text);

// "a", "a::b": identifiers joined by "::".
bool is_namespace_name(const std::string& text);

}  // namespace tcgen
