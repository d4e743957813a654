// `wet build` on any raw files: read_raw_files() (what read_raw_trace()
// does with PREFIX.blocks, .flow, .nodes, .events, .edges, .regs and .syms,
// served from memory; the input's layout is raw_wet_input.hpp's), then
// WholeExecutionTrace::build. Either a refusal (a WetError) or a WET that
// saves, loads from its bytes, saves again to the same bytes and holds the
// run it was built from: the same counts, the control flow block for block
// both ways, the accesses (t, value, address) of the nodes of 64 pcs and
// the defs of 512 loads as the raw records say. What `wet build` writes
// must load: an empty control flow once wrote a .wet no command could open.
// Never a crash, a sanitizer report or another exception. The mode byte's
// low two bits choose the checkpoint interval (4096, 4, 16 or 64 records),
// so that small runs get chunked labels and shared frames too (not 1: a
// stream per record is a build's slowest case, 3 times the fuzzing time).

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tcgen/wet/whole_execution_trace.hpp>

#include "fuzz_support.hpp"
#include "raw_wet_input.hpp"
#include "wet/format/raw_files.hpp"

namespace {

using tcgen::wet::RawTrace;
using tcgen::wet::WholeExecutionTrace;

// The WET loaded from what `built` saved holds the run `raw` describes.
void check_holds(WholeExecutionTrace& wet, const RawTrace& raw) {
    using tcgen_fuzz::check;
    check(wet.executed() == raw.flow.size(), "executed() is not the flow's length");
    check(wet.events() == raw.events.size(), "events() is not the events' count");
    check(wet.edges() == raw.edges.size(), "edges() is not the edges' count");
    check(wet.block_count() == raw.blocks.size() && wet.node_count() == raw.nodes.size(),
          "the static program's size differs");
    tcgen::wet::FlowStep step;
    auto cursor = wet.control_flow(0);
    for (std::uint32_t t = 1; t <= raw.flow.size(); ++t) {
        check(cursor.next(step) && step.t == t && step.block == raw.flow[t - 1], "the flow differs, walked forward");
    }
    check(!cursor.next(step), "the flow runs past its end");
    for (std::uint32_t t = static_cast<std::uint32_t>(raw.flow.size()); t >= 1; --t) {
        check(cursor.prev(step) && step.t == t && step.block == raw.flow[t - 1], "the flow differs, walked backward");
    }
    check(!cursor.prev(step), "the flow runs past its start");

    // Per node, its executions as (t, value, address).
    using Execution = std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>;
    std::map<std::uint32_t, std::vector<Execution>> expected;
    for (const auto& event : raw.events) {
        expected[event.node].emplace_back(event.t, event.value, event.address);
    }
    std::set<std::uint64_t> pcs;
    for (const auto& node : raw.nodes) {
        if (pcs.size() < 64) {
            pcs.insert(node.pc);
        }
    }
    for (const std::uint64_t pc : pcs) {
        std::map<std::uint32_t, std::vector<Execution>> got;
        for (const auto& access : wet.accesses(pc)) {
            got[access.node].emplace_back(access.t, access.value, access.address);
        }
        for (auto& [node, executions] : got) {
            std::sort(executions.begin(), executions.end());
            check(raw.nodes[node].pc == pc && executions == expected[node], "a node's accesses differ from its events");
        }
        for (const std::uint32_t node : wet.nodes_at_pc(pc)) {
            check(got.count(node) == 1 || expected[node].empty(), "a node's events are missing from its accesses");
        }
    }

    std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint32_t, std::uint32_t>> defs;
    for (const auto& edge : raw.edges) {
        defs[{edge.use, edge.t_use}] = {edge.def, edge.t_def};
    }
    std::size_t loads = 0;
    for (const auto& event : raw.events) {
        if (raw.nodes[event.node].access != 'L' || ++loads > 512) {
            continue;
        }
        const std::optional<tcgen::wet::Def> def = wet.def_of(event.node, event.t);
        const auto found = defs.find({event.node, event.t});
        check(def.has_value() == (found != defs.end()), "a load's def is lost or made up");
        check(!def || (def->node == found->second.first && def->t == found->second.second),
              "a load's def differs from its edge");
    }
    // A slice from the first execution of a few memory accesses: an answer
    // (its walk is checked by fuzz_wet_file and the unit tests).
    std::size_t slices = 0;
    for (const std::uint64_t pc : pcs) {
        if (slices < 4 && wet.instance_count(pc) > 0) {
            wet.backward_slice(pc, 1);
            ++slices;
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    static constexpr std::uint64_t checkpoints[] = {WholeExecutionTrace::default_checkpoint_records, 4, 16, 64};
    const std::uint64_t checkpoint_records = checkpoints[data[0] & 3];
    return tcgen_fuzz::run_input([&] {
        raw_wet_input::Files files = raw_wet_input::unpack(data + 1, size - 1);
        const auto source = [&](const std::string& name, bool required) {
            for (std::size_t file = 0; file < raw_wet_input::file_count; ++file) {
                const std::string suffix = raw_wet_input::suffixes[file];
                if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
                    tcgen_fuzz::check(required == (file < raw_wet_input::first_optional),
                                      "a raw file asked for as required or optional wrongly");
                    return std::move(files.bytes[file]);
                }
            }
            tcgen_fuzz::report_bug("a raw file that wet build does not read was asked for", name.c_str());
        };
        std::vector<std::uint8_t> saved;
        RawTrace raw;
        try {
            raw = tcgen::wet::read_raw_files("fuzz", source);
            saved = WholeExecutionTrace::build(raw, nullptr, checkpoint_records).to_bytes();
        } catch (const tcgen::wet::WetError&) {
            return;  // refused: the raw checks', or build's own
        }
        tcgen_fuzz::check(!raw.flow.empty(), "a WET of an empty control flow was built");
        WholeExecutionTrace loaded = [&] {
            try {
                return WholeExecutionTrace::from_bytes(saved.data(), saved.size(), "fuzz.wet");
            } catch (const tcgen::wet::WetError& error) {
                tcgen_fuzz::report_bug("what wet build wrote does not load", error.what());
            }
        }();
        tcgen_fuzz::check(loaded.to_bytes() == saved, "a loaded WET saves to other bytes");
        try {
            check_holds(loaded, raw);
        } catch (const tcgen::wet::WetError& error) {
            tcgen_fuzz::report_bug("a query of a WET wet build wrote failed", error.what());
        }
    });
}
