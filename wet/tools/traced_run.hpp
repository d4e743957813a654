#pragma once
// `wet run OUT.wet -- [TRACER OPTIONS] PROGRAM [ARGS...]`: a program traced
// by tcgen-tracer --wet and its raw files read as the tracer writes them,
// through named pipes beside OUT, so that a run goes to its WET without its
// raw labels ever on disk (they are 30-80 times the WET). The pipes are
// removed on every way out, a signal included.

#include <string>
#include <vector>

#include <tcgen/wet/raw_trace.hpp>

namespace tcgen::wet::tools {

// Runs tcgen-tracer --wet on `command` (tracer options, then the program and
// its arguments) and returns the raw trace it wrote, checked as
// read_raw_trace() checks files. The tracer is $TCGEN_TRACER, or
// tcgen-tracer beside this program (installed) or in the build tree's
// tracer/ folder, or on PATH. Throws WetError when the tracer fails or
// its output does not check (the tracer's own messages go to stderr), a
// UsageError when `command` gives --wet.
RawTrace traced_run(const std::string& out, const std::vector<std::string>& command);

}  // namespace tcgen::wet::tools
