// WholeExecutionTrace::from_bytes on any bytes. The first byte is the mode:
// bit 0 set, every section's XXH64 is recomputed first (the framing walked
// as far as it holds), so that forgeries reach the parsers behind the
// checksums. A WET that loads is queried: the control flow walked both ways,
// the accesses, instances and defs of a few pcs, slices from them and from
// blocks' first instructions; every query yields an
// answer or a WetError. Loading either succeeds or throws WetError. Never a
// crash, a sanitizer report, another exception, or an allocation the input's
// size does not pay for. META's counts must agree with the labels (a
// forged count once made `wet stats` report 10^12 dependences). Walks are bounded so that a forged run of billions
// of records cannot hang a fuzzing run.

#include <cstdint>
#include <vector>

#include <tcgen/wet.hpp>

#include "fuzz_support.hpp"
#include "tests/wet/wet_file_bytes.hpp"

namespace {

template <class Query>
void allowing_errors(Query query) {
    try {
        query();
    } catch (const tcgen::wet::WetError&) {
    } catch (const std::runtime_error&) {
        // a forged stream that runs a half dry mid-walk (the streams' own error)
    }
}

void query(tcgen::wet::WholeExecutionTrace& wet) {
    constexpr std::uint64_t bound = 20000;
    if (wet.events() > bound || wet.executed() > bound) {
        return;  // every stream's length is bounded by these two (checked at load), and so is every walk
    }
    allowing_errors([&] {
        auto cursor = wet.control_flow(0);
        tcgen::wet::FlowStep step;
        for (std::uint64_t steps = 0; steps < bound && cursor.next(step); ++steps) {
            tcgen_fuzz::check(step.block < wet.block_count(), "a flow step names a block out of range");
        }
        for (std::uint64_t steps = 0; steps < bound && cursor.prev(step); ++steps) {
        }
    });
    for (std::uint32_t node = 0; node < wet.node_count() && node < 8; ++node) {
        const std::uint64_t pc = wet.node(node).pc;
        allowing_errors([&] { wet.accesses(pc); });
        allowing_errors([&] {
            const auto times = wet.instances(pc);
            tcgen_fuzz::check(wet.instance_count(pc) == times.size(), "instance_count disagrees with instances");
            if (!times.empty()) {
                tcgen_fuzz::check(wet.instance_time(pc, times.size()) == times.back(),
                                  "instance_time disagrees with instances");
                wet.def_of(node, times.front());
                wet.backward_slice(pc, times.size());
            }
        });
    }
    // Slices from instructions that may access no memory: the blocks' first.
    for (std::uint32_t block = 0; block < wet.block_count() && block < 4; ++block) {
        allowing_errors([&] { wet.backward_slice(wet.block(block).pc, 1); });
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    return tcgen_fuzz::run_input([&] {
        std::vector<std::uint8_t> bytes(data + 1, data + size);
        if (data[0] & 1) {
            wet_file_bytes::reseal(bytes);
        }
        try {
            auto wet = tcgen::wet::WholeExecutionTrace::from_bytes(bytes.data(), bytes.size(), "fuzz.wet");
            // META's counts are checked against the labels at load: a load
            // has one def at most, and a WET runs one block at least.
            tcgen_fuzz::check(wet.edges() <= wet.events(), "more loads with a def than events");
            tcgen_fuzz::check(wet.executed() > 0, "a WET with an empty control flow loaded");
            query(wet);
        } catch (const tcgen::wet::WetError&) {
        }
    });
}
