#pragma once
// BuildTemporaries: where `wet build` keeps what it does not hold in
// memory, and how much it holds: the tables grouped by node in temporary
// files beside the output (framed_runs.hpp) with their buffers' budget,
// and, under a memory cap, the labels made so far (held_bytes.hpp).
//
// What a cap bounds is what grows with the run: the tables' buffers and
// the labels. What grows with the code (a few hundred bytes a node) and
// the open labels' caches are not capped; docs/wet.md gives the figures.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "wet/labels/framed_runs.hpp"
#include "wet/labels/held_bytes.hpp"

namespace tcgen::wet {

struct BuildTemporaries {
    // Three tables' buffers are alive at once at most (the events, the
    // asks or the defs, and the one being filled): an eighth of the cap
    // each, within these bounds. Never below the default: smaller buffers
    // write smaller frames early, and over many nodes the frames' index
    // grows faster than the buffers shrink (a cc1 run of a quarter of a
    // million nodes peaked at 288 MB with 1 MiB buffers, 241 MB with 16).
    static constexpr std::uint64_t least_buffer_budget = FramedRunsLimits{}.buffer_budget;
    static constexpr std::uint64_t most_buffer_budget = std::uint64_t{64} << 20;
    // Each holder of labels keeps its last block in memory: 1/256 of the
    // cap, within these bounds (seven holders).
    static constexpr std::uint64_t least_spill_block_bytes = std::uint64_t{4} << 10;

    // Everything in memory.
    BuildTemporaries() = default;
    // Tables in files beside `file` (in memory when it is empty), labels
    // in memory.
    BuildTemporaries(std::string file) : beside(std::move(file)) {}  // NOLINT: a file name is all most need
    BuildTemporaries(const char* file) : beside(file) {}             // NOLINT

    // Beside `beside`, under a cap of `memory` bytes (0: none, the tables'
    // buffers at their default budget and the labels in memory).
    static BuildTemporaries capped(std::string beside, std::uint64_t memory) {
        BuildTemporaries temporaries(std::move(beside));
        if (memory != 0 && !temporaries.beside.empty()) {
            temporaries.limits.buffer_budget =
                static_cast<std::size_t>(std::clamp(memory / 8, least_buffer_budget, most_buffer_budget));
            temporaries.labels.beside = temporaries.beside;
            temporaries.labels.block_bytes = static_cast<std::size_t>(
                std::clamp(memory / 256, least_spill_block_bytes, std::uint64_t{HeldBytes::most_block_bytes}));
        }
        return temporaries;
    }

    std::string beside;       // the files are made beside it; empty: in memory
    FramedRunsLimits limits;  // each table's buffers
    HeldBytes::Spill labels;  // where the labels made are kept: in memory when it names no file
};

}  // namespace tcgen::wet
