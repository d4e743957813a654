#pragma once
// WholeExecutionTrace::Lazy: what guards the parts of a WET decoded on the
// first query that needs them (the register dataflow, the symbols), so that
// threads querying one WET decode each once and never see it half made.
// The lock is held only while one of them is decoded (and while its size
// is read); afterwards a query finds the flag set and takes no lock.

#include <atomic>
#include <mutex>

#include <tcgen/wet/whole_execution_trace.hpp>

namespace tcgen::wet {

struct WholeExecutionTrace::Lazy {
    std::mutex mutex;
    std::atomic<bool> dataflow_decoded{false};
    std::atomic<bool> symbols_parsed{false};
};

}  // namespace tcgen::wet
