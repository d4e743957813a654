#pragma once
// The message of the WetError that a call throws, for tests that compare
// refusals word for word.

#include <string>

#include <tcgen/wet/raw_trace.hpp>

namespace tcgen_test {

// The message of the WetError that ACT throws; empty if none.
template <typename Act>
std::string wet_error_of(const Act& act) {
    try {
        act();
    } catch (const tcgen::wet::WetError& error) {
        return error.what();
    }
    return "";
}

}  // namespace tcgen_test
