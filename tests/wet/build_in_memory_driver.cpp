// wet-build-in-memory PREFIX OUT.wet: builds PREFIX's WET with the raw trace
// read whole into memory (read_raw_trace, WholeExecutionTrace::build), the
// way `wet build` did before it grouped the events through a temporary file,
// so that a test compares the two with cmp. Bad input: one line on stderr,
// exit 1.

#include <cstdio>
#include <exception>

#include <tcgen/wet/raw_trace.hpp>
#include <tcgen/wet/whole_execution_trace.hpp>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: wet-build-in-memory PREFIX OUT.wet\n");
        return 2;
    }
    try {
        tcgen::wet::WholeExecutionTrace::build(tcgen::wet::read_raw_trace(argv[1])).save(argv[2]);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "wet-build-in-memory: %s\n", error.what());
        return 1;
    }
    return 0;
}
