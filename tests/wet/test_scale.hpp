// How much of their work the longest randomised WET tests do. Under
// AddressSanitizer and UndefinedBehaviorSanitizer (a Debug build checking
// every access) they take a fraction of their walks, pcs and inputs: the
// sanitizers look for bad accesses, which the shorter runs still make on
// every code path, while the unsanitized suite checks every answer in full.
#pragma once

namespace wet_test {

#ifdef TCGEN_TEST_UNDER_SANITIZERS
inline constexpr bool under_sanitizers = true;
#else
inline constexpr bool under_sanitizers = false;
#endif

// `full` steps of work, or a quarter of them under the sanitizers.
inline constexpr int scaled(int full) { return under_sanitizers ? (full + 3) / 4 : full; }

}  // namespace wet_test
