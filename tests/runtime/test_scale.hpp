// How much of their work the runtime's longest exhaustive tests do. Under
// AddressSanitizer and UndefinedBehaviorSanitizer (a Debug build checking
// every access) they take a fraction of their cases: the sanitizers look
// for bad accesses, which the fewer cases still make on every code path,
// while the unsanitized suite and ThreadSanitizer's run check every case.
#pragma once

namespace tcgen_test {

#ifdef TCGEN_TEST_UNDER_SANITIZERS
inline constexpr bool under_sanitizers = true;
#else
inline constexpr bool under_sanitizers = false;
#endif

}  // namespace tcgen_test
