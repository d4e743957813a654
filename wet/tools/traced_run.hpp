#pragma once
// `wet run OUT.wet -- [TRACER OPTIONS] PROGRAM [ARGS...]`: a program traced
// by tcgen-tracer --wet and its raw files read as the tracer writes them,
// through named pipes beside OUT, and kept compressed until the build reads
// them, so that a run goes to its WET without its raw labels ever on disk
// or in memory (they are 30-80 times the WET). The pipes and the compressed
// files are removed on every way out, a signal included.

#include <functional>
#include <string>
#include <vector>

namespace tcgen::wet::tools {

// Runs tcgen-tracer --wet on `command` (tracer options, then the program and
// its arguments), then use(prefix) with the raw files it wrote at `prefix`,
// kept as zstd frames (zstd_frames.hpp) beside OUT while it ran, and
// removed once use() returns or throws. The tracer is $TCGEN_TRACER, or
// tcgen-tracer beside this program (installed) or in the build tree's
// tracer/ folder, or on PATH. Throws WetError when the tracer fails or
// writes nothing to a file it must write (the tracer's own messages go to
// stderr), a UsageError when `command` gives --wet.
void traced_run(const std::string& out, const std::vector<std::string>& command,
                const std::function<void(const std::string& prefix)>& use);

}  // namespace tcgen::wet::tools
