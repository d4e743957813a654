// How much of their work the longest exhaustive and randomised C++ tests do.
// Under the sanitizers (AddressSanitizer and UndefinedBehaviorSanitizer in a
// Debug build checking every access; ThreadSanitizer, which tracks every
// access of every thread) they take a fraction of their cases, walks and
// inputs: the sanitizers look for bad accesses and races, which the fewer
// cases still make on every code path, while the unsanitized suite checks
// every case in full. The sanitized builds define TCGEN_TEST_UNDER_SANITIZERS
// for every test program (tests/CMakeLists.txt), as the ASan build sets the
// variable of that name for the test scripts.
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
