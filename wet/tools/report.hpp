#pragma once
// `wet report`: one self-contained HTML page about a run, to look at rather
// than to parse: its size and the WET's, the hottest functions and blocks,
// the busiest loads with the range of their values, the control flow of the
// hottest function with how often each edge was taken, and the slice of the
// busiest load's last execution drawn as a graph of its instructions. No
// server, no network: styles, drawings (SVG) and the little script that
// links what a pointer rests on are all in the page.

#include <string>

#include <tcgen/wet.hpp>

namespace tcgen::wet::report {

// The page of `wet`, read from the file `name` (shown in the title).
std::string html(WholeExecutionTrace& wet, const std::string& name);

}  // namespace tcgen::wet::report
