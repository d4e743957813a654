// wet-example: the Whole Execution Trace of a real program run, built and
// queried with libtcgen_wet's WET object (docs/wet.md).
//
//   wet-example PREFIX [PC]
//
// PREFIX names the five files `tcgen-tracer --wet=PREFIX` writes. The program
// builds the WET (every label compressed, held in memory), prints its size
// against the raw labels, the last blocks the run executed (walking the
// control flow backward), then follows one load back — the last execution of
// PC, or by default the last load that read what a traced store wrote: the
// value it read, the store that wrote it, and the size of its backward
// dynamic slice.

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <tcgen/wet.hpp>

namespace {

using tcgen::wet::WholeExecutionTrace;

// The PC argument: 0x-hex or decimal, nothing else.
bool parse_pc(const char* text, std::uint64_t& pc) {
    char* end = nullptr;
    pc = std::strtoull(text, &end, 0);
    return *text != '\0' && *text != '-' && *end == '\0';
}

void print_sizes(const WholeExecutionTrace& wet) {
    const auto stats = wet.stats();
    const auto& total = stats.back();
    std::printf("WET: %" PRIu32 " blocks executed, %" PRIu64 " loads and stores, %" PRIu64 " with a def\n",
                wet.executed(), wet.events(), wet.edges());
    std::printf("labels: %" PRIu64 " raw bytes, %" PRIu64 " in memory (%.1fx)\n", total.raw_bytes,
                total.memory_bytes, static_cast<double>(total.raw_bytes) / static_cast<double>(total.memory_bytes));
}

void print_last_blocks(WholeExecutionTrace& wet, int count) {
    auto cursor = wet.control_flow(wet.executed());
    tcgen::wet::FlowStep step;
    std::printf("last blocks:");
    for (int i = 0; i < count && cursor.prev(step); ++i) {
        std::printf(" t=%" PRIu32 ":0x%" PRIx64, step.t, wet.block(step.block).pc);
    }
    std::printf("\n");
}

// Where the loads of `pc` executed at t read from (t = 0: its last execution).
void follow_load(WholeExecutionTrace& wet, std::uint64_t pc, std::uint32_t t) {
    const auto instances = wet.instances(pc);
    const auto at = t == 0 ? instances.end() - 1 : std::lower_bound(instances.begin(), instances.end(), t);
    const std::size_t instance = static_cast<std::size_t>(at - instances.begin()) + 1;
    t = *at;
    std::printf("query: load at pc 0x%" PRIx64 ", execution %zu of %zu (t=%" PRIu32 ")\n", pc, instance,
                instances.size(), t);
    bool loads = false;
    for (const tcgen::wet::Access& access : wet.accesses(pc)) {
        if (access.t != t || access.access != 'L') {
            continue;
        }
        loads = true;
        const auto def = wet.def_of(access.node, t);
        if (!def) {
            std::printf("query answer: it read 0x%" PRIx64 " at 0x%" PRIx64 ", which no traced store wrote\n",
                        access.value, access.address);
            continue;
        }
        std::printf("query answer: it read 0x%" PRIx64 " at 0x%" PRIx64
                    ", written by the store at pc 0x%" PRIx64 " at t=%" PRIu32 "\n",
                    access.value, access.address, wet.node(def->node).pc, def->t);
    }
    if (!loads) {
        std::printf("query answer: pc 0x%" PRIx64 " loads nothing at t=%" PRIu32 " (a store)\n", pc, t);
    }
    std::printf("slice: %zu items\n", wet.backward_slice(pc, instance).size());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: wet-example PREFIX [PC]\n");
        return 2;
    }
    std::uint64_t pc = 0;
    std::uint32_t t = 0;  // the execution to follow; 0: PC's last
    if (argc == 3 && !parse_pc(argv[2], pc)) {
        std::fprintf(stderr, "wet-example: error: bad PC '%s' (0x-hex or decimal)\n", argv[2]);
        return 1;
    }
    try {
        const tcgen::wet::RawTrace raw = tcgen::wet::read_raw_trace(argv[1]);
        if (argc == 2) {
            if (raw.edges.empty()) {
                std::fprintf(stderr, "wet-example: error: %s: no load read what a traced store wrote\n", argv[1]);
                return 1;
            }
            pc = raw.nodes[raw.edges.back().use].pc;
            t = raw.edges.back().t_use;
        }
        WholeExecutionTrace wet = WholeExecutionTrace::build(raw);
        print_sizes(wet);
        print_last_blocks(wet, 5);
        follow_load(wet, pc, t);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "wet-example: %s\n", error.what());
        return 1;
    }
    return 0;
}
