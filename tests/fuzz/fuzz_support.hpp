#pragma once
// What every fuzz target shares: a broken promise must end the run with a
// message and abort(), which libFuzzer reports as a crash and saves the
// input of, rather than an exception escaping into libFuzzer's own loop.

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace tcgen_fuzz {

[[noreturn]] inline void report_bug(const char* what, const char* detail = "") {
    std::fprintf(stderr, "tcgen fuzz: BUG: %s%s%s\n", what, *detail != '\0' ? ": " : "", detail);
    std::fflush(stderr);
    std::abort();
}

inline void check(bool holds, const char* what) {
    if (!holds) {
        report_bug(what);
    }
}

// Runs one fuzz input; any exception that reaches here is a bug (each target
// catches the errors its contract allows before they get this far).
template <class Body>
int run_input(Body body) {
    try {
        body();
    } catch (const std::exception& error) {
        report_bug("unexpected exception", error.what());
    } catch (...) {
        report_bug("unexpected exception of an unknown type");
    }
    return 0;
}

}  // namespace tcgen_fuzz
