// How much of their work the longest exhaustive and randomised C++ tests do.
// Under AddressSanitizer and UndefinedBehaviorSanitizer (a Debug build
// checking every access) they take a fraction of their cases, walks and
// inputs: the sanitizers look for bad accesses, which the fewer cases still
// make on every code path, while the unsanitized suite and ThreadSanitizer's
// run check every case in full. The sanitized build defines
// TCGEN_TEST_UNDER_SANITIZERS for every test program (tests/CMakeLists.txt),
// as it sets the variable of that name for the test scripts.
#pragma once

namespace tcgen_test {

#ifdef TCGEN_TEST_UNDER_SANITIZERS
inline constexpr bool under_sanitizers = true;
#else
inline constexpr bool under_sanitizers = false;
#endif

// `full` steps of work, or a quarter of them under the sanitizers.
inline constexpr int scaled(int full) { return under_sanitizers ? (full + 3) / 4 : full; }

}  // namespace tcgen_test
